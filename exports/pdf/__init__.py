"""Printable decks: PDF card sheets (and print-shop files) rendered from content packs.

    from exports.pdf import DeckOptions, render_deck
    report = render_deck(pack, DeckOptions(duplex="long", crop_marks=True), out)

Modules by concern: ``options`` (what can be chosen), ``layouts`` (the card designs as data
in mm), ``cards`` (a pack's cards as the layouts see them), ``imposition`` (where cards go on
the paper), ``text`` (fitting), ``fonts``, ``render`` (walks layouts over sheets), ``pages``
(contents and calibration pages), ``streaming`` (writes pages as they are finished),
``raster`` / ``printshop`` (PNGs through PDFium), ``source`` (which pack to render; it
imports Django models, so it is not re-exported here).
"""

from exports.pdf.options import DeckOptions, OptionError, Selection, apply_profile, parse_offset, parse_size
from exports.pdf.render import DeckError, DeckRenderer, RenderReport, render_deck

__all__ = [
    "DeckError", "DeckOptions", "DeckRenderer", "OptionError", "RenderReport", "Selection",
    "apply_profile", "parse_offset", "parse_size", "render_deck",
]
