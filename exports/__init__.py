"""Packs, print and previews, above the content model: content packs and releases (signed,
with deltas and webhooks), the packs API, PDF decks and print-shop files, card previews."""
