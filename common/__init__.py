"""Shared helpers on the ground floor: typed environment readers, permission checks, the
client's address, the deploy check of example secrets. They import Django and nothing of
the project's apps, so every app (and the settings) may use them."""
