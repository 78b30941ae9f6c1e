"""The play mode, above packs: the game engines (pure Python), bots, rooms and their pages,
played from published packs."""
