"""Template tags of the curators' screens."""
