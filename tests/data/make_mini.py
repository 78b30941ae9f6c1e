"""Writes tests/data/mini/: the smallest catalogue that obeys every content rule.

Run once by hand when the format changes (python tests/data/make_mini.py); tests read the
written files, so the catalogue is also a worked example of every file of the format.
"""

import csv
from pathlib import Path

ROOT = Path(__file__).parent / "mini"


def write(relative, header, rows):
    path = ROOT / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def translations(relative, rows):
    write(f"translations/en/{relative}", ["key", "field", "language", "text", "state"],
          [(key, field, "en", text, "approved") for key, field, text in rows])


concepts = [("goethe", "Goethe", "Goethe"), ("liebe", "Liebe", "Love"), ("china", "China", "China"),
            ("italien", "Italien", "Italy"), ("ferien", "Ferien", "Vacation"),
            ("bauer", "Bauer", "Farmer"), ("dschungel", "Dschungel", "Jungle"),
            ("oma", "Oma", "Grandmother"), ("papst", "Papst", "Pope")]
write("symbols/concepts.csv", ["key", "text"], [(k, t) for k, t, _ in concepts])
translations("concepts.csv", [(k, "text", e) for k, _, e in concepts])

tiles = [("handy", "Handy", "device-mobile", "Cell phone"), ("koffer", "Koffer", "luggage", "Suitcase"),
         ("sonne", "Sonne", "sun", "Sun"), ("tiger", "Tiger", "cat", "Tiger"),
         ("fabrik", "Fabrik", "building-factory", "Factory"), ("wahlurne", "Wahlurne", "box", "Ballot box"),
         ("herz", "Herz", "heart", "Heart"), ("krone", "Krone", "crown", "Crown")]
extra = [("rakete", "Rakete", "rocket", "Rocket")]
write("symbols/symbol_tiles.csv", ["key", "name", "icon", "is_extra", "position"],
      [(k, n, i, "false", p) for p, (k, n, i, _) in enumerate(tiles, 1)]
      + [(k, n, i, "true", p) for p, (k, n, i, _) in enumerate(extra, len(tiles) + 1)])
translations("symbol_tiles.csv", [(k, "name", e) for k, _, _, e in tiles + extra])

symbols = [("anker", "Anker", "anchor", "Anchor"), ("schluessel", "Schlüssel", "key", "Key"),
           ("fisch", "Fisch", "fish", "Fish"), ("glocke", "Glocke", "bell", "Bell"),
           ("mond", "Mond", "moon", "Moon")]
colours = [("rot", "Rot", "#EB0045", "●", "Red"), ("grau", "Grau", "#58555B", "■", "Gray"),
           ("gruen", "Grün", "#3E855C", "◆", "Green"), ("blau", "Blau", "#1654FF", "★", "Blue"),
           ("schwarz", "Schwarz", "#140902", "♥", "Black")]
write("sign/sign_symbols.csv", ["key", "name", "icon", "position"],
      [(k, n, i, p) for p, (k, n, i, _) in enumerate(symbols, 1)])
write("sign/sign_colours.csv", ["key", "name", "hex", "mark", "position"],
      [(k, n, h, m, p) for p, (k, n, h, m, _) in enumerate(colours, 1)])
write("sign/sign_cards.csv", ["key", "symbol", "colour"],
      [(f"{s[0]}-{c[0]}", s[0], c[0]) for s in symbols for c in colours])
translations("sign_symbols.csv", [(k, "name", e) for k, _, _, e in symbols])
translations("sign_colours.csv", [(k, "name", e) for k, _, _, _, e in colours])

# karte-001 is German only (the German deck); karte-002 is known in both markets, so it is
# the whole English edition.
slogans = [
    ("karte-001", 1, "quadratisch-praktisch-gut", "Quadratisch. Praktisch. Gut.",
     ["Milka", "Ritter Sport", "Lindt", "Hachez"], 2, "false", "de", "Ritter Sport, seit 1970",
     "Quality. Chocolate. Squared."),
    ("karte-001", 2, "ich-bin-doch-nicht-bloed", "Ich bin doch nicht blöd!",
     ["Euronics", "Conrad", "Media Markt", "Expert"], 3, "true", "de", "Media Markt, seit 1996",
     None),
    ("karte-002", 1, "nichts-ist-unmoeglich", "Nichts ist unmöglich.",
     ["Toyota", "Nissan", "Honda", "Mazda"], 1, "false", "de,en", "Toyota, seit 1985",
     "Nothing is impossible."),
    ("karte-002", 2, "just-do-it", "Just do it.",
     ["Adidas", "Puma", "Reebok", "Nike"], 4, "false", "de,en", "Nike, seit 1988", "Just do it."),
]
write("slogan/slogans.csv",
      ["card", "side", "key", "text", "option_1", "option_2", "option_3", "option_4", "correct",
       "keep_german", "source", "markets"],
      [(c, s, k, t, *o, n, g, src, m) for c, s, k, t, o, n, g, m, src, _ in slogans])
translations("slogans.csv",
             [(k, "text", en) for _, _, k, _, _, _, _, _, _, en in slogans if en]
             + [(k, f"option_{i}", opt) for _, _, k, _, o, _, _, _, _, _ in slogans
                for i, opt in enumerate(o, 1)])

# The owner of every brand above (issue 26): Reebok changed hands, so "Just do it." (1988)
# beside Adidas is fine then and now; Saturn, Media Markt's sister, is not among the options.
REEBOK = "https://www.cityam.com/adidas-sells-reebok-to-authentic-brands-for-e2-1bn/"
owners = {"Media Markt": "Ceconomy", "Ritter Sport": "Alfred Ritter", "Lindt": "Lindt & Sprüngli",
          "Milka": "Mondelez", "Hachez": "Hachez", "Euronics": "Euronics", "Conrad": "Conrad",
          "Expert": "Expert", "Toyota": "Toyota", "Nissan": "Nissan", "Honda": "Honda",
          "Mazda": "Mazda", "Adidas": "Adidas", "Puma": "Puma", "Nike": "Nike"}
write("slogan/brands.csv", ["brand", "group", "since", "until", "source"],
      [(b, g, "", "", "https://de.wikipedia.org/wiki/" + b.replace(" ", "_"))
       for b, g in sorted(owners.items())]
      + [("Reebok", "Reebok", "", "2005", REEBOK), ("Reebok", "Adidas", "2006", "2021", REEBOK),
         ("Reebok", "Authentic Brands Group", "2022", "", REEBOK)])

alfons = [
    ("kopierer", "Du reparierst den Kopierer. Rücke 2 Felder vor.", "move", "2", "",
     "You fix the photocopier. Move forward 2 spaces."),
    ("kaffee", "Kaffee verschüttet. Gehe 3 Felder zurück.", "move", "-3", "",
     "Coffee spilled. Go back 3 spaces."),
    ("bonus", "Weihnachtsgeld! Nimm 4 Chips von der Bank.", "chips", "4", "",
     "Christmas bonus! Take 4 chips from the bank."),
    ("runde", "Du gibst eine Runde aus: zahle jedem Mitspieler 1 Chip.", "pay_each", "1", "",
     "You buy a round: pay every other player 1 chip."),
    ("geburtstag", "Geburtstag! Jeder Mitspieler zahlt dir 2 Chips.", "collect_each", "2", "",
     "Birthday! Every other player pays you 2 chips."),
    ("chefsessel", "Du tauschst den Platz mit dem Führenden.", "swap", "", "leader",
     "You swap places with the leader."),
    ("ueberholspur", "Überholspur: setze dich vor den nächsten Spieler.", "overtake", "", "",
     "Fast lane: move to the space in front of the next player."),
    ("kuendigung", "Kündigung! Zurück zum Start.", "to_start", "", "",
     "You're fired! Back to the start."),
    ("befoerderung", "Beförderung: ziehe auf das erste Feld der Stufe 3.", "to_level", "3", "",
     "Promotion: move to the first space of level 3."),
]
write("slogan/alfons_cards.csv", ["key", "text", "effect", "amount", "target"],
      [(k, t, e, a, g) for k, t, e, a, g, _ in alfons])
translations("alfons_cards.csv", [(k, "text", en) for k, _, _, _, _, en in alfons])

objects = [("ein-huehnerei", "Ein Hühnerei", 60, "Handelsklasse M: 53–63 g", "A hen's egg"),
           ("eine-bowlingkugel", "Eine Bowlingkugel", 7000, "Höchstgewicht 16 lb", "A bowling ball"),
           ("ein-smart-fortwo", "Ein Smart Fortwo", 890000, "Herstellerangabe Leergewicht",
            "A Smart Fortwo"),
           ("der-eiffelturm", "Der Eiffelturm", 10100000000, "Gesamtmasse ca. 10.100 t",
            "The Eiffel Tower"),
           ("ein-blauwal", "Ein Blauwal", 150000000, "ausgewachsen ca. 150 t", "A blue whale"),
           ("ein-liter-milch", "Ein Liter Milch", 1030, "Dichte 1,03 kg/l", "A litre of milk")]
write("sauschwer/objects.csv", ["key", "name", "weight_g", "source"],
      [(k, n, w, s) for k, n, w, s, _ in objects])
translations("objects.csv", [(k, "name", e) for k, _, _, _, e in objects])
