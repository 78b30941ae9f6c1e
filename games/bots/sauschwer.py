"""A Sauschwer bot that judges weights from the objects' names, as a player at the table does.

It never sees a weight before the reveal: it guesses from words in the name (German or English:
"Elefant", "coin", "Liter" …), and each bot's guess of each object is off by its own factor, so
bots disagree. It sets Helmut on the side it believes heavier, places the card that leaves the
clearest scale, calls "Stop!" when it believes Helmut is on the lighter side by a good margin,
and shows its marker for the side it believes heavier.

It plays fair: it decides from its seat's view and legal actions only (see ``games.bots``).
"""

from __future__ import annotations

import math
import random
import re
import zlib
from collections import Counter
from functools import lru_cache
from typing import Any

from games.bots import ending_lines
from games.engines import sauschwer as engine

DOUBT_RATIO = 2.0  # "Stop!" when the other side looks at least this much heavier
MISJUDGEMENT = 0.7  # spread of a bot's own misjudgement, in powers of ten
CARELESS = 0.1  # now and then a bot places a card without thinking
OBVIOUS_RATIO = 10
DEFAULT_LOG_GRAMS = 3.5  # about 3 kg: an object the bot knows nothing about

# Words in a name and the weight (powers of ten of grams) they suggest; the longest match wins.
WORDS: dict[float, tuple[str, ...]] = {
    0.5: ("münze", "muenze", "coin", "cent", "gummibär", "gummy", "teebeutel", "tea bag", "feder",
          "feather", "blatt", "sheet", "zuckerwürfel", "sugar cube", "knopfzelle", "kreditkarte",
          "credit card", "fledermaus", "büroklammer", "paper clip"),
    1.3: ("batterie", "battery", "meise", "tit", "rotkehlchen", "robin", "sperling", "sparrow",
          "maus", "mouse", "airtag", "marshmallow", "cd", "überraschungsei", "waffel", "unze",
          "ounce", "squashball", "toast"),
    2.0: ("ei", "egg", "ball", "riegel", "bar", "brötchen", "roll", "apfel", "apple", "kiwi",
          "schokolade", "chocolate", "hamster", "iphone", "smartphone", "medaille", "medal",
          "puck", "frisbee", "falke", "falcon", "elster", "magpie", "butter", "dose", "can",
          "sittich", "budgie", "vogel", "bird", "herz", "heart"),
    2.6: ("eichhörnchen", "squirrel", "ratte", "rat", "switch", "ipad", "tablet", "spaghetti",
          "taube", "pigeon", "kokosnuss", "coconut", "igel", "hedgehog", "speer", "javelin",
          "meerschweinchen", "guinea pig"),
    3.0: ("liter", "litre", "kilogramm", "kilogram", "milch", "milk", "honig", "honey", "gehirn",
          "brain", "leber", "liver", "kaninchen", "rabbit", "macbook", "laptop", "flasche", "bottle",
          "pin", "straußenei", "huhn", "chicken", "diskus", "discus", "chihuahua"),
    3.5: ("bier", "beer", "paket", "uhu", "owl", "pinguin", "penguin", "baby", "ziegel", "brick",
          "oscar", "hase", "hare", "katze", "cat", "kugel", "adler", "eagle", "playstation",
          "melone", "melon", "fuchs", "fox"),
    4.0: ("pokal", "trophy", "cup", "mops", "pug", "dackel", "dachshund", "reifen", "tyre", "tire",
          "sechserpack", "six-pack", "schale", "schwan", "swan", "mikrowelle", "microwave",
          "goldbarren", "gold bar", "quecksilber", "mercury", "kind", "child", "fahrrad", "rad",
          "bike", "reh", "deer", "koffer", "suitcase", "palette", "pallet", "hantel", "barbell"),
    4.6: ("retriever", "hund", "dog", "harfe", "harp", "wolf", "spülmaschine", "dishwasher",
          "gepard", "cheetah", "alpaka", "alpaca", "frau", "woman", "waschmaschine",
          "washing machine", "schaf", "sheep", "sputnik", "mann", "man", "ruder", "rowing"),
    5.2: ("elefantenbaby", "baby elephant", "strauß", "ostrich", "schwein", "pig", "barrel",
          "lama", "llama", "sumo", "gorilla", "bob", "löwe", "lion", "tümmler", "dolphin",
          "tiger", "klavier", "piano", "motorrad", "motorcycle", "schildkröte", "tortoise",
          "satellit", "satellite"),
    5.8: ("eisbär", "polar bear", "kubikmeter", "cubic metre", "flügel", "grand piano", "pferd",
          "horse", "trabant", "kuh", "cow", "formel", "formula", "smart", "rover", "glocke",
          "bell", "giraffe", "kürbis", "pumpkin"),
    6.3: ("auto", "car", "golf", "porsche", "tesla", "flusspferd", "hippo", "container",
          "nashorn", "rhino", "beton", "concrete", "see-elefant", "seal", "wohnmobil",
          "motorhome", "elefant", "elephant", "schwertwal", "orca"),
    7.3: ("teleskop", "telescope", "big ben", "mondfähre", "lunar module", "pummerin",
          "stein", "stone", "wal", "whale", "kanone", "cannon", "sattelzug", "lorry", "truck",
          "airbus", "panzer", "tank"),
    8.6: ("statue", "boeing", "ice", "raumstation", "space station", "u-boot", "submarine",
          "shuttle", "london eye", "crawler", "rakete", "rocket", "fregatte", "frigate"),
    10.2: ("eiffelturm", "eiffel tower", "bagger", "excavator", "turm", "tower", "titanic",
           "flugzeugträger", "aircraft carrier", "pyramide", "pyramid"),
}  # fmt: skip
_BY_LENGTH = sorted(
    ((word, grams) for grams, words in WORDS.items() for word in words),
    key=lambda item: -len(item[0]),
)


@lru_cache(maxsize=4096)
def guess_log_grams(name: str) -> float:
    """The powers of ten of grams a name suggests: the longest known word in it decides.

    A word counts as a whole word, or as the end of a compound ("Hühner-ei", "Schwert-wal"),
    or (four letters or more) as its start ("Elefanten-bulle").
    """
    text = name.lower()
    tokens = set(re.findall(r"[^\W_]+", text)) | set(re.findall(r"[^\W_][\w-]*", text))
    for word, log_grams in _BY_LENGTH:
        if " " in word:
            if word in text:
                return log_grams
        elif any(token.endswith(word) or (len(word) >= 4 and token.startswith(word)) for token in tokens):
            return log_grams
    return DEFAULT_LOG_GRAMS


@lru_cache(maxsize=65536)
def estimate(player: str, card: str, name: str) -> float:
    """This player's guess of a card's weight in grams: the name's suggestion, off by a factor
    of the player's own (the same every time they look at that card)."""
    spread = zlib.crc32(f"{player}|{card}".encode()) / 2**32 - 0.5  # uniform in [-0.5, 0.5)
    return 10 ** (guess_log_grams(name) + MISJUDGEMENT * 2 * math.sqrt(3) * spread)


def believed_totals(
    seen: dict[str, Any], player: str, extra: dict[str, Any] | None = None
) -> dict[str, float]:
    totals = dict.fromkeys(engine.SIDES, 0.0)
    for placed in [*seen["scale"], *([extra] if extra else [])]:
        totals[placed["side"]] += estimate(player, placed["card"], placed["name"])
    return totals


def choose(seen: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    player = seen["you"]
    if seen["phase"] == "markers":
        markers = [action for action in legal if action["type"] == "marker"]
        if not markers:
            return None
        if len(markers) == 1:  # the last placer's and the doubter's markers are forced
            return markers[0]
        totals = believed_totals(seen, player)
        return {"type": "marker", "side": max(totals, key=totals.__getitem__)}
    if seen["phase"] != "place":
        return None
    if {"type": "stop"} in legal:
        totals = believed_totals(seen, player)
        helmut = seen["helmut"]
        if totals[engine.other_side(helmut)] >= DOUBT_RATIO * totals[helmut]:
            return {"type": "stop"}
    if player == seen["active"]:
        return _place(seen, player, rng)
    return None


def _place(seen: dict[str, Any], player: str, rng: random.Random) -> dict[str, Any]:
    """Place the card that leaves the clearest scale; Helmut goes to the heavier side."""
    side = engine.other_side(seen["helmut"])
    options = []
    for card in seen["hands"][player]:
        totals = believed_totals(seen, player, {**card, "side": side})
        heavier = max(totals, key=totals.__getitem__)
        clarity = abs(math.log(totals["red"] / totals["violet"]))
        options.append((clarity, card["card"], heavier))
    clarity, card, heavier = rng.choice(options) if rng.random() < CARELESS else max(options)
    return {"type": "place", "card": card, "helmut": heavier}


def tally(final: dict[str, Any]) -> Counter[Any]:
    """One finished game's counts for the balance report; tallies of games add up."""
    counts: Counter[Any] = Counter(games=1)
    for event in final["log"]:
        if event["type"] == "revealed":
            totals = event["totals"]
            counts["reveals"] += 1
            counts["obvious"] += max(totals.values()) >= OBVIOUS_RATIO * min(totals.values())
            counts["equal"] += event["heavier"] is None
            counts["helmut_right"] += event["heavier"] == event["helmut"]
            counts["cards"] += len(event["weights"])
            if event["doubter"] is not None:
                counts["stops"] += 1
                counts["doubter_right"] += event["heavier"] not in (None, event["helmut"])
        elif event["type"] == "game_ended":
            counts["ending", event["reason"]] += 1
    return counts


def stats_of(counts: Counter[Any]) -> dict[str, str]:
    """The report's lines from the tallies of all games: how often the heavier side was
    obvious at the reveal, and how rounds ended."""
    reveals, stops = counts["reveals"], counts["stops"]
    if not reveals:
        return {}
    stats = {
        "heavier side obvious (≥10×) at reveal": f"{counts['obvious'] / reveals:.1%}",
        "rounds ended by a stop": f"{stops / reveals:.1%}",
        "doubter right": f"{counts['doubter_right'] / stops:.1%}" if stops else "n/a",
        "Helmut on the heavier side at reveal": f"{counts['helmut_right'] / reveals:.1%}",
        "equal weights": str(counts["equal"]),
        "cards on the scale at reveal": f"{counts['cards'] / reveals:.2f}",
    }
    return {**stats, **ending_lines(counts)}


def extra_stats(final_states: list[dict[str, Any]]) -> dict[str, str]:
    return stats_of(sum((tally(state) for state in final_states), Counter()))
