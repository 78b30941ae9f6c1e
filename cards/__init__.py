"""The content model and its rules, on the lowest floor of the apps: the cards of the four
games and their translations, checks, imports and exports of files. It imports no other app."""
