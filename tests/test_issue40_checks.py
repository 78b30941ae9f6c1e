# ruff: noqa: E501  (the old rows are quoted verbatim)
"""Issue 40: the content audit's findings as a class. Each check is run over the rows as they
stood before the audit (commit e7bed78, copied here verbatim) and must fire on every error
the audit found; the shipped catalogue passes (tests/test_option_checks.py runs it whole).
"""

from __future__ import annotations

import csv
import io

from cards.brands import BrandTable
from cards.option_checks import Side, check_name_in_text, check_same_group, words_in_text, year_of
from cards.validation import composite_weight_problems, repeated_option_sets
from tests.conftest import STARTER

OLD_ROWS = """card,side,key,text,option_1,option_2,option_3,option_4,correct,keep_german,source,markets
karte-130,1,drive-earth,Drive@earth,Nissan,Mazda,Subaru,Mitsubishi,4,true,Mitsubishi-Claim (2000er-Jahre); vgl. automobilwoche.de „Neu ist eben doch nicht immer besser“ (Endmark-Claimstudie),de
karte-130,2,alte-schuhe-wirken-aermlich,Alte Schuhe wirken ärmlich.,Salamander,Deichmann,Deutsches Schuhinstitut,Bata,3,true,"Gemeinschaftswerbung des Deutschen Schuhinstituts (1968); vgl. taz.de, Besprechung von W. Hars, „Nichts ist unmöglich. Das Lexikon der Werbesprüche“",de
karte-153,1,nimm-gib-gas,"Nimm …, gib Gas.",Lion,Mars,Duplo,Nuts,2,true,"Mars-Slogan (2007, BBDO); vgl. reklameblogger.de „Mars-Slogans im Zeitraffer“ (2007, nach slogans.de)",de
karte-153,2,hier-tanken-sie-auf,Hier tanken Sie auf.,Aral,DEA,Esso,Shell,2,true,DEA-Tankstellenwerbung (1990er-Jahre); vgl. rtiesler.de „Werbung: RWE“ (2009); 24vest.de „Die letzte DEA-Tankstelle Deutschlands steht in Haltern“ („Hier ist DEA – Hier tanken Sie auf!“),de
karte-en-014,1,reassuringly-expensive,Reassuringly expensive.,Kronenbourg,Carling,Peroni,Stella Artois,4,false,"Stella-Artois-Slogan (UK, ab 1981, Lowe Howard-Spink); vgl. managementtoday.co.uk „The Slogan Doctor – Stella Artois: Reassuringly expensive“, warc.com „Stella Artois: Reassuringly Expensive“",en-GB
karte-en-014,2,refreshes-the-parts-other-beers-cannot-reach,Refreshes the parts other beers cannot reach.,Carling,Foster's,Heineken,Carlsberg,3,false,"Heineken-Kampagne (UK, 1970er-Jahre, Collett Dickenson Pearce); vgl. brookstonbeerbulletin.com „Beer In Ads #2181“ (1977) und #2183 (1976), hooklineandsinkers.ca (2024)",en-GB
karte-en-123,1,londoners-love-it-when-it-pours,Londoners love it when it pours.,Carling,Foster's,Heineken,Castlemaine XXXX,2,false,"Foster’s-Plakat für den britischen Markt (1983); vgl. https://brookstonbeerbulletin.com/tag/australia/page/3 (Foster’s-Anzeige von 1983, „a billboard for the UK market with … the tagline ‚Londoners love it when it pours.‘“)",en-GB
karte-en-123,2,one-trip-and-you-re-laughing,One trip and you're laughing.,Tesco,Sainsbury's,Asda,Morrisons,3,false,"Asda-Slogan (UK, ab 1987, Nachfolger von „You’d be off your trolley …“); vgl. https://www.scribd.com/document/612365696/eme-doncs („…, was replaced in 1987 by ‚One trip and you’re laughing‘“)",en-GB
karte-en-089,1,i-don-t-wanna-grow-up-i-m-a-kid,"I don't wanna grow up, I'm a … kid.",KB Toys,FAO Schwarz,"Toys ""R"" Us",Kmart,3,false,"Toys-""R""-Us-Jingle (USA, ab 1982); vgl. https://www.azcentral.com/story/money/business/consumers/2018/03/15/watch-these-toys-r-us-commercials-bring-out-your-inner-kid/428078002/ (Jingle „I don’t wanna grow up, I’m a Toys R Us kid“)",en-US
karte-en-089,2,tastes-good-like-a-cigarette-should,… tastes good like a cigarette should.,Marlboro,Winston,Pall Mall,Chesterfield,2,false,"Winston-Jingle (USA, 1954–1972); vgl. http://commercialheaven.com/2007/09/14/whistling-winston/ („Winston tastes good like a cigarette should“)",en-US
karte-en-105,1,we-love-to-see-you-smile,We love to see you smile.,Wendy's,Burger King,McDonald's,Hardee's,3,false,"McDonald’s-Slogan (USA, 1995–1997); vgl. https://www.mentalfloss.com/article/28384/historys-best-and-worst-advertising-slogans (McDonald’s verkündete „We Love to See You Smile“) und folkslisten.blogspot.com",en-US
karte-en-105,2,clap-on-clap-off,Clap on! Clap off!,The Clapper,The Chia Pet,The Snuggie,The Flowbee,1,false,"Werbung für The Clapper (USA, ab 1985); vgl. http://deletionpedia.org/en/The_Clapper (vermarktet mit dem Slogan „Clap On!“ und „Clap Off!“) und https://bradstanhope.blogspot.com/2025/07 („Clap on, clap off“)",en-US
karte-156,1,himmlisch-joghurt-leicht,Himmlisch joghurt-leicht.,Milka,Yogurette,Ritter Sport,Sarotti,2,true,Yogurette-Werbung der 1980er-Jahre; vgl. makkketing.wordpress.com „Die wunderbare Welt der Werbung in den 80ern“ (2021),de
karte-156,2,direkt-gesund,Direkt gesund.,TK,DAK,Barmer,BIG,4,true,Claim der Krankenkasse BIG direkt gesund; vgl. d-e-g.de „Slogans werden immer kürzer“ (2011),de
karte-en-082,1,double-your-pleasure-double-your-fun,"Double your pleasure, double your fun.",Trident,Doublemint,Dentyne,Bazooka,2,false,"Wrigley’s-Doublemint-Jingle (USA, ab 1959); vgl. http://the-uncensored-wiki.com:20072/d/o/u/Doublemint.html (ursprünglicher Jingle „Double your pleasure, double your fun, With Doublemint …“)",en-US
karte-en-082,2,apply-directly-to-the-forehead,Apply directly to the forehead.,Tiger Balm,Vicks VapoRub,HeadOn,Deep Heat,3,false,"HeadOn-Werbespot (USA, 2006); vgl. https://www.latimes.com/archives/la-xpm-2006-jul-23-tm-neil30-story.html („HeadOn, apply DIRECTLY to the FOREHEAD!“)",en-US
karte-en-092,1,i-ve-fallen-and-i-can-t-get-up,I've fallen and I can't get up!,ADT,LifeCall,Philips Lifeline,Medical Guardian,2,false,"LifeCall-Werbespot mit „Mrs. Fletcher“ (USA, ab 1989); vgl. http://www.fact-index.com/i/i_/i_ve_fallen_and_i_can_t_get_up.html (LifeCall-Spot: „I’ve fallen...and I can’t get up!“)",en-US
karte-en-092,2,this-is-your-brain-on-drugs-any-questions,This is your brain on drugs. Any questions?,D.A.R.E.,MADD,American Cancer Society,Partnership for a Drug-Free America,4,false,"Kampagne der Partnership for a Drug-Free America (USA, 1987); vgl. https://boingboing.net/2022/10/20/the-story-behind-the-classic-1980s-this-is-your-brain-on-drugs-tv-psa.html („This is your brain on drugs. Any questions?“)",en-US
karte-036,1,mit-felsquellwasser-gebraut,Mit Felsquellwasser gebraut.,Warsteiner,Veltins,Krombacher,Bitburger,3,true,"Krombacher-Werbung; vgl. jungle.world „Und was machst du so?“ (1998, https://jungle.world/artikel/1998/42/und-was-machst-du-so: „‚Mit Felsquellwasser gebraut‘, wirbt Krombacher.“)",de
karte-036,2,er-laeuft-und-laeuft-und-laeuft,Er läuft und läuft und läuft …,Opel Kadett,Ford Taunus,Borgward Isabella,VW Käfer,4,true,"VW-Käfer-Werbung der 1960er-Jahre; vgl. spiesser-alfons.de „Mit läufiger Werbung auf den Hund gekommen“ (2020), retromotion.com „Käfer-Stories Teil 1: Er läuft und läuft und läuft“",de
karte-097,1,die-gesundheitskasse,Die Gesundheitskasse.,Barmer,DAK,Techniker Krankenkasse,AOK,4,true,Claim der AOK; vgl. jolinchen.de (AOK-Kinderseite) „AOK – Die Gesundheitskasse“,de
karte-097,2,die-nacht-wird-hell,Die Nacht wird Hell!,Warsteiner,Veltins,Krombacher,Bitburger,3,true,"Krombacher-Kampagne zur Einführung von Krombacher Hell mit Matthias Schweighöfer; vgl. mixology.eu „Hell, aber nicht einleuchtend, das neue Krombacher“ (https://mixology.eu/drinks/krombacher-hell-neu/)",de
karte-052,1,eine-filterzigarette-die-schmeckt,"Eine Filterzigarette, die schmeckt.",Ernte 23,Reval,Camel,HB,4,true,Erster HB-Slogan nach der Markteinführung 1955; vgl. werbeforum24.de „HB Männchen“,de
karte-052,2,zoom-zoom,Zoom-Zoom.,Honda,Mazda,Nissan,Subaru,2,false,"Mazda-Claim seit 2000 (Doner, Nordamerika), danach weltweit; vgl. adweek.com „Mazda Debuts a Playful Battle Cry: ‚Zoom, Zoom‘“ (2000), mx5clubchch.co.nz","de,en"
karte-061,1,wer-wird-denn-gleich-in-die-luft-gehen-greife-lieber-zur,Wer wird denn gleich in die Luft gehen? Greife lieber zur …,Ernte 23,Reval,Camel,HB,4,true,"HB-Männchen-Spots 1957–1984 („Halt, mein Freund! Wer wird denn gleich in die Luft gehen? Greife lieber zur HB!“); vgl. barfi.ch „Das HB-Männchen“, werbeforum24.de",de
karte-061,2,man-goennt-sich-ja-sonst-nichts,Man gönnt sich ja sonst nichts.,Bommerlunder,Linie Aquavit,Malteserkreuz Aquavit,Jägermeister,3,true,"Anzeigen-Serie für Malteserkreuz Aquavit mit Prominenten; vgl. ludwig-von-kapff.de „Malteserkreuz Aquavit“ (https://ludwig-von-kapff.de/malteserkreuz-aquavit-deutschlands-beliebtester-aquavit)",de
karte-132,1,macht-muede-maenner-munter,… macht müde Männer munter.,Milch,Kaffee,Kakao,Malzbier,1,true,Werbeslogan der westdeutschen Milchwirtschaft (1950er-Jahre); vgl. weser-kurier.de Kolumne zum Tag der Milch (2019),de
karte-132,2,keine-experimente,Keine Experimente!,SPD,FDP,DP,CDU,4,true,CDU-Wahlplakat zur Bundestagswahl 1957; vgl. hdg.de LeMO „Wahlplakat ‚Keine Experimente!‘“; vgl. Wikipedia (de) Keine Experimente,de
karte-152,1,red-means-go,Red means go.,Hugo Boss,Joop!,Davidoff,Calvin Klein,1,true,"Duftwerbung für Boss Hugo Red, englisch auch in Deutschland; vgl. pressesprecher.com „Englische Claims sind vielen Deutschen ein Rätsel“ (Endmark-Claimstudie 2016)",de
karte-152,2,wohlstand-fuer-alle,Wohlstand für alle.,SPD,FDP,DP,CDU,4,true,CDU-Wahlplakat mit Ludwig Erhard zur Bundestagswahl 1957; vgl. welt.de „Die besten Wahlplakate aus 70 Jahren CDU“ (2015),de
karte-100,1,don-t-leave-home-without-it,Don't leave home without it.,Visa,Mastercard,Diners Club,American Express,4,false,American-Express-Tagline mit Karl Malden (1973–1994); vgl. adage.com „Karl Malden Delivered Famous AmEx Ad Tagline“,"de,en-US"
karte-100,2,das-beste-oder-nichts,Das Beste oder nichts.,BMW,Audi,Mercedes-Benz,Porsche,3,false,Mercedes-Benz-Markenclaim seit 2010 (engl. „The best or nothing“); vgl. mercedes-fans.de „Das Beste oder nichts: Mercedes-Benz startet globale Kommunikationsoffensive“,"de,en"
karte-en-020,1,membership-has-its-privileges,Membership has its privileges.,Visa,Mastercard,Diners Club,American Express,4,false,"American-Express-Slogan (USA, 1987–1996, Ogilvy & Mather); vgl. mediapost.com „American Express Kills 'My Life' Campaign“ (Chronologie der NYT)",en-US
karte-en-020,2,like-a-good-neighbor-is-there,"Like a good neighbor, … is there.",Allstate,Geico,State Farm,Progressive,3,false,"State-Farm-Jingle von Barry Manilow (USA, ab 1971); vgl. pantagraph.com „Flick Fact: The actual lyrics to that State Farm 'Good Neighbor' tune?“, saturdayeveningpost.com (2018)",en-US
"""


def old_sides() -> dict[tuple[str, int], Side]:
    sides = {}
    for r in csv.DictReader(io.StringIO(OLD_ROWS)):
        sides[(r["card"], int(r["side"]))] = Side(
            r["key"], r["text"], [r[f"option_{i}"] for i in range(1, 5)], int(r["correct"]),
            english=r["text"] if r["keep_german"] == "false" else "", year=year_of(r["source"]))
    return sides


def brand_table() -> BrandTable:
    with (STARTER / "slogan/brands.csv").open(encoding="utf-8", newline="") as handle:
        return BrandTable((r["brand"], r["group"], int(r["since"]) if r["since"] else None,
                           int(r["until"]) if r["until"] else None)
                          for r in csv.DictReader(handle))


def test_the_owner_rows_let_same_group_find_the_audits_pairs():
    sides, table = old_sides(), brand_table()
    found = {(card, side, f.option) for (card, side), s in sides.items()
             for f in check_same_group(s, table)}
    assert {("karte-130", 1, "Nissan"), ("karte-153", 2, "Shell"),
            ("karte-en-014", 2, "Foster's"), ("karte-en-123", 1, "Heineken"),
            ("karte-en-105", 2, "The Chia Pet")} <= found
    # Winston and Pall Mall shared R. J. Reynolds only from 2004 to 2014 (Winston is ITG
    # Brands' since 2015): neither today nor in 1954, so the table holds the rows and the
    # card was fixed by hand.
    assert table.groups("Pall Mall", 2010) & table.groups("Winston", 2010)


def test_name_in_text_finds_a_names_stem_across_compounds_and_spellings():
    sides = old_sides()
    for card, side, option in [("karte-130", 2, "Deutsches Schuhinstitut"),
                               ("karte-156", 1, "Yogurette"),
                               ("karte-en-082", 1, "Doublemint"),
                               ("karte-en-092", 2, "Partnership for a Drug-Free America")]:
        assert option in {f.option for f in check_name_in_text(sides[(card, side)])}, card
    assert words_in_text("Himmlisch joghurt-leicht.", "Yogurette") == ["yogurette"]
    assert words_in_text("Alte Schuhe wirken ärmlich.", "Deutsches Schuhinstitut") == ["schuhinstitut"]
    assert words_in_text("Fußball", "Fussballwelt") == ["fussballwelt"]


def test_name_in_text_leaves_unrelated_words_alone():
    assert words_in_text("Die Nacht wird Hell!", "Warsteiner") == []
    assert words_in_text("Hier tanken Sie auf.", "Aral") == []
    assert words_in_text("Mit Felsquellwasser gebraut.", "Krombacher") == []


def test_repeated_option_sets_are_found_and_a_new_order_passes():
    sides = old_sides()
    slogans = [(s.key, s.options, s.correct) for s in sides.values()]
    groups = repeated_option_sets(slogans)
    for a, b in [(("karte-036", 1), ("karte-097", 2)), (("karte-052", 1), ("karte-061", 1)),
                 (("karte-132", 2), ("karte-152", 2)), (("karte-100", 1), ("karte-en-020", 1))]:
        assert sorted([sides[a].key, sides[b].key]) in groups
    assert len(groups) == 4
    assert repeated_option_sets([("a", ["X", "Y", "Z", "W"], 1), ("b", ["Y", "X", "Z", "W"], 2)]) == []


def test_the_shipped_slogans_repeat_no_option_set():
    with (STARTER / "slogan/slogans.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert repeated_option_sets(
        [(r["key"], [r[f"option_{i}"] for i in range(1, 5)], int(r["correct"])) for r in rows]) == []


# --- Sauschwer: a composite's weight against its parts -----------------------------------------

BOTTLE = "eine-volle-bierflasche-0-5-l-nrw-mehrwegflasche"
CRATE = "ein-voller-kasten-bier-20-0-5-l-in-glasflaschen"


def objects() -> dict[str, tuple[int, str]]:
    with (STARTER / "sauschwer/objects.csv").open(encoding="utf-8", newline="") as handle:
        return {r["key"]: (int(r["weight_g"]), r["source"]) for r in csv.DictReader(handle)}


def test_the_shipped_composites_agree_with_their_parts():
    rows = objects()
    assert composite_weight_problems(rows) == []
    assert "Teile:" in rows[CRATE][1]
    assert rows[CRATE][0] == 20 * rows[BOTTLE][0] + 1500


def test_the_pre_audit_crate_is_found():
    rows = objects()
    rows[CRATE] = (17000, rows[CRATE][1])  # the weight before the audit (e7bed78)
    (problem,) = composite_weight_problems(rows)
    assert problem[0] == CRATE and "19100 g" in problem[1]


def test_unreadable_or_unknown_parts_are_named():
    rows = {"a": (100, "x; Teile: 2 × b + zehn g"), "b": (50, ""), "c": (100, "Teile: 2 × d")}
    found = dict(composite_weight_problems(rows))
    assert "cannot read the part “zehn g”" in found["a"]
    assert "“d”, which is no row" in found["c"]
    assert composite_weight_problems({"a": (101, "Teile: 2 × b"), "b": (50, "")}) == []


def test_validate_content_reports_a_crate_lighter_than_its_parts_and_a_repeated_option_set(db):
    from cards.catalogue import import_catalogue
    from cards.models import SauschwerObject, Slogan, SloganOption
    from cards.validation import find_problems

    assert not import_catalogue(STARTER).errors
    SauschwerObject.objects.filter(key=CRATE).update(weight_g=17000)
    # karte-061/1 as it was: the same four options as karte-052/1, HB fourth
    hb = Slogan.objects.get(key="wer-wird-denn-gleich-in-die-luft-gehen-greife-lieber-zur")
    SloganOption.objects.filter(slogan=hb, position=3).update(text="Camel")
    problems = [str(p) for p in find_problems()]
    assert any(p.startswith(f"sauschwer object '{CRATE}'") and "19100 g" in p for p in problems)
    assert any("'eine-filterzigarette-die-schmeckt', 'wer-wird-denn" in p
               and "same four options" in p for p in problems)
