"""The Slogan option checks (issue 26): each finds a card built to break it, and the starter
catalogue passes them (its findings fixed or dismissed with a reason in the fixtures).

The checks read a card as plain data, so most tests build one here; the last ones run the
checks over the database the way ``validate_content`` does.
"""

from __future__ import annotations

import csv

from cards.brands import BrandTable
from cards.catalogue import import_catalogue
from cards.models import Slogan, SloganOption
from cards.option_checks import (
    CardSides,
    Side,
    card_findings,
    check_answer_on_other_side,
    check_article,
    check_brand_unknown,
    check_name_in_text,
    check_same_group,
    words_in_text,
    year_of,
)
from cards.option_findings import open_findings
from cards.validation import find_problems
from tests.conftest import STARTER

TABLE = BrandTable([
    ("Skittles", "Mars", None, None), ("Starburst", "Mars", None, None),
    ("Jelly Belly", "Jelly Belly", None, None), ("Nerds", "Ferrara", None, None),
    ("Mars", "Mars", None, None),
    ("Dresdner Bank", "Dresdner Bank", None, 2000), ("Dresdner Bank", "Allianz", 2001, 2008),
    ("Dresdner Bank", "Commerzbank", 2009, None), ("Commerzbank", "Commerzbank", None, None),
    ("Deutsche Bank", "Deutsche Bank", None, None), ("HypoVereinsbank", "UniCredit", None, None),
    ("Allianz", "Allianz", None, None),
])


def side(options, correct, text="… taste the rainbow.", key="s1", english="", year=None):
    return Side(key, text, list(options), correct, english=english, year=year)


def slugs(findings):
    return [(f.field, f.check) for f in findings]


# --- an option from the answer's group ---------------------------------------------------------


def test_a_sister_brand_beside_the_answer_is_found():
    found = check_same_group(side(["Starburst", "Skittles", "Jelly Belly", "Nerds"], 2), TABLE)
    assert slugs(found) == [("option_1", "same-group")]
    assert "“Starburst” and the answer “Skittles” belong to the same group today (mars)" in found[0].message


def test_a_parent_company_beside_its_brand_is_found():
    found = check_same_group(side(["Mars", "Skittles", "Jelly Belly", "Nerds"], 2), TABLE)
    assert slugs(found) == [("option_1", "same-group")]


def test_options_of_other_groups_pass():
    assert check_same_group(side(["Jelly Belly", "Skittles", "Nerds", "Commerzbank"], 2), TABLE) == []


def test_a_takeover_counts_today_and_not_before_it_at_the_slogans_time():
    options = ["Dresdner Bank", "Commerzbank", "Deutsche Bank", "HypoVereinsbank"]
    found = check_same_group(side(options, 1, text="Mit dem grünen Band der Sympathie.", year=1975), TABLE)
    assert slugs(found) == [("option_2", "same-group")]
    assert "today" in found[0].message
    # the group a brand belonged to when the slogan ran is checked too
    table = BrandTable([("Dresdner Bank", "Allianz", 2001, 2008), ("Allianz", "Allianz", None, None),
                        ("Deutsche Bank", "Deutsche Bank", None, None)])
    at_the_time = check_same_group(side(["Dresdner Bank", "Allianz", "Deutsche Bank", "Allianz X"], 1,
                                        year=2004), table)
    assert [(f.field, "in 2004" in f.message) for f in at_the_time] == [("option_2", True)]
    assert check_same_group(side(["Dresdner Bank", "Allianz", "Deutsche Bank", "Allianz X"], 1,
                                 year=1990), table) == []


def test_the_year_is_read_from_the_slogans_source():
    assert year_of("Miller-Lite-Kampagne (USA, ab 1974); vgl. Wikipedia") == 1974
    assert year_of("Martini-Kampagne (2000er-Jahre)") == 2000
    assert year_of("Bauknecht-Werbung; vgl. Wikipedia (de) Bauknecht") is None


# --- a brand without an owner --------------------------------------------------------------------


def test_a_brand_typed_without_a_group_is_a_finding():
    found = check_brand_unknown(side(["Skittles", "Starburst", "Brausebonbon X", "Nerds"], 1), TABLE)
    assert slugs(found) == [("option_3", "brand-unknown")]
    assert "“Brausebonbon X” has no owner group" in found[0].message


def test_a_brand_is_found_with_its_article_and_without_its_gloss():
    table = BrandTable([("Der Spiegel", "Spiegel-Verlag", None, None), ("Nordsee", "Nordsee", None, None)])
    assert table.knows("Der Spiegel") and table.knows("die Nordsee") and table.knows("Nordsee (Fisch)")


# --- the name in the slogan ---------------------------------------------------------------------


def test_the_answers_name_in_the_slogan_is_found_also_in_another_form():
    found = check_name_in_text(side(["Jack Daniel's", "Chivas Regal", "Johnnie Walker", "Jameson"], 3,
                                    text="Keep walking."))
    assert slugs(found) == [("option_3", "name-in-text")]
    assert "names the answer, “Johnnie Walker” (walker)" in found[0].message


def test_an_options_name_in_the_english_text_is_found():
    found = check_name_in_text(side(["Haribo", "Katjes", "Maoam", "Storck"], 1,
                                    text="… macht Kinder froh.", english="Katjes makes kids happy."))
    assert slugs(found) == [("option_2", "name-in-text")]


def test_ordinary_words_of_a_name_do_not_count():
    assert words_in_text("Die Bank an Ihrer Seite.", "Deutsche Bank") == []
    assert words_in_text("Walk on.", "Johnnie Walker") == []  # too short a form to tell
    assert check_name_in_text(side(["Haribo", "Katjes", "Maoam", "Storck"], 1,
                                   text="… macht Kinder froh.")) == []


# --- one side's answer among the other side's options ------------------------------------------


def test_one_sides_answer_offered_on_the_other_side_is_found():
    card = CardSides("karte-x", {
        1: side(["Persil", "Ariel", "Omo", "Dash"], 1, text="… bleibt …", key="a"),
        2: side(["Ariel", "Spee", "Persil", "Sunil"], 1, text="Da weiß man, was man hat.", key="b"),
    })
    found = check_answer_on_other_side(card)
    assert [(f.slogan, f.field) for f in found] == [("a", "option_2"), ("b", "option_3")]
    assert all(f.check == "answer-on-other-side" for f in found)


def test_different_answers_on_the_two_sides_pass():
    card = CardSides("karte-y", {
        1: side(["Persil", "Ariel", "Omo", "Dash"], 1, key="a"),
        2: side(["Bosch", "Siemens", "Miele", "AEG"], 3, key="b"),
    })
    assert check_answer_on_other_side(card) == []


# --- the article before the blank ----------------------------------------------------------------


def test_an_option_ruled_out_by_the_german_article_is_found():
    text = "Heute bleibt die Küche kalt, wir gehen in den …"
    found = check_article(side(["die Nordsee", "der Kochlöffel", "der Wienerwald", "der Burger King"],
                               3, text=text))
    assert slugs(found) == [("option_1", "article")]
    assert "“den …” rules out “die Nordsee”" in found[0].message


def test_options_without_an_article_after_an_article_are_a_finding_to_look_at():
    found = check_article(side(["Bit", "Beck's", "Warsteiner", "Krombacher"], 1, text="Bitte ein …"))
    assert [f.field for f in found] == ["option_1", "option_2", "option_3", "option_4"]
    assert check_article(side(["Bit", "Beck's", "Warsteiner", "Krombacher"], 1,
                              text="… – das Bier der Biere.")) == []


def test_an_option_ruled_out_by_a_or_an_in_the_english_text_is_found():
    found = check_article(side(["Oreck", "Electrolux", "Hoover", "Dyson"], 2, text="Nothing sucks like an …",
                               english="Nothing sucks like an …"))
    assert slugs(found) == [("option_3", "article"), ("option_4", "article")]
    # German "an …" is a preposition: no English check without an English text
    assert check_article(side(["Bayern", "Hessen", "Thüringen", "Sachsen"], 1,
                              text="An … führt kein Weg vorbei.")) == []


def test_card_findings_runs_every_check():
    card = CardSides("karte-z", {
        1: side(["Starburst", "Skittles", "Unknown Gum", "Nerds"], 2, text="Skittles forever.", key="a"),
        2: side(["Skittles", "Jelly Belly", "Mars", "Nerds"], 2, text="… beans.", key="b"),
    })
    checks = {f.check for f in card_findings(card, TABLE)}
    assert checks == {"same-group", "brand-unknown", "name-in-text", "answer-on-other-side"}


# --- over the database ---------------------------------------------------------------------------


def _option(key, position):
    return SloganOption.objects.get(slogan__key=key, position=position)


def test_validate_content_names_a_sister_brand_typed_into_a_card(mini_catalogue):
    assert find_problems() == []
    option = _option("ich-bin-doch-nicht-bloed", 1)
    option.text = "Saturn"  # Media Markt's sister; and a brand the table does not know yet
    option.save()
    messages = [str(p) for p in find_problems()]
    assert any("slogan 'ich-bin-doch-nicht-bloed' [option_1]: Brand without an owner group" in m
               for m in messages), messages
    from cards.models import BrandOwnership

    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/saturn")
    messages = [str(p) for p in find_problems()]
    assert [m for m in messages if "Option from the answer's company group" in m] == [
        "slogan 'ich-bin-doch-nicht-bloed' [option_1]: Option from the answer's company group: "
        "“Saturn” and the answer “Media Markt” belong to the same group today (ceconomy): a player "
        "who knows it can argue for both; use a competitor of another group."]


def test_a_dismissal_holds_until_the_slogan_or_the_option_changes(mini_catalogue):
    from cards.option_checks import OptionFinding
    from cards.option_findings import dismiss, load_cards

    option = _option("just-do-it", 2)
    option.text = "Nike Air"  # "Nike" stands in it: but it is no give-away of the slogan text
    option.save()
    slogan = Slogan.objects.get(key="just-do-it")
    slogan.text = "Just do it, Nike."
    slogan.save()
    found = [f for _c, f in open_findings() if f.slogan == "just-do-it"]
    assert [(f.field, f.check) for f in found] == [("option_2", "brand-unknown"),
                                                   ("option_2", "name-in-text"),
                                                   ("option_4", "name-in-text")]
    for finding in found:
        dismiss(slogan, finding, "A test of dismissals.")
    assert [f for _c, f in open_findings() if f.slogan == "just-do-it"] == []
    slogan.text = "Just do it, Nike!"
    slogan.save()
    assert len([f for _c, f in open_findings() if f.slogan == "just-do-it"]) == 3
    assert isinstance(found[0], OptionFinding) and load_cards()


def test_the_starter_catalogue_passes_the_option_checks(db):
    report = import_catalogue(STARTER)
    assert not report.errors, report.errors[:5]
    assert open_findings() == []
    assert [str(p) for p in find_problems() if "[option_" in p.where or "[text]" in p.where] == []


def rows(relative):
    with (STARTER / relative).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_brand_in_the_packs_has_an_owner_group_with_a_source():
    table = BrandTable((r["brand"], r["group"], None, None) for r in rows("slogan/brands.csv"))
    options = {r[f"option_{i}"] for r in rows("slogan/slogans.csv") for i in range(1, 5)}
    assert sorted(o for o in options if not table.knows(o)) == []
    for row in rows("slogan/brands.csv"):
        assert row["group"].strip() and row["source"].startswith(("https://", "http://")), row


def test_every_shipped_dismissal_names_its_texts_and_a_reason():
    slogans = {r["key"]: r for r in rows("slogan/slogans.csv")}
    dismissals = rows("slogan/option_dismissals.csv")
    assert dismissals
    for dismissal in dismissals:
        slogan = slogans[dismissal["key"]]
        assert dismissal["source"] == slogan["text"], dismissal
        assert dismissal["text"] == slogan[dismissal["field"]], dismissal
        assert len(dismissal["reason"]) > 30, dismissal
