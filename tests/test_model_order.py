"""The content models register in one fixed order: the order the content types of a fresh or
flushed database are made in, which orders translations (by content type) everywhere."""

from django.apps import apps


def test_the_content_models_register_in_the_catalogues_order():
    names = [m.__name__ for m in apps.get_app_config("cards").get_models()
             if not m.__name__.startswith("Historical")]
    assert names == [
        "Translation", "ConceptCard", "SymbolTile", "SignSymbol", "SignColour", "SignCard",
        "SloganCard", "Slogan", "SloganOption", "AlfonsCard", "SauschwerObject", "BrandOwnership",
        "GlossaryTerm", "CheckDismissal", "TranslationFinding", "StaleFindings", "TranslationCount",
    ]
