"""The catalogue rule over what was published: the newest Slogan release of each edition holds
only slogans known in that edition's markets. ``cards.validation`` runs it with its market
rules (the exports app registers it when Django starts: exports/apps.py), so
``manage.py validate_content`` also guards the releases.
"""

from __future__ import annotations

import json

from django.conf import settings

from cards.models import editions_of, in_edition, market_leaves
from cards.validation import Problem
from exports.models import Release


def released_market_problems(markets_of: dict[str, set[str]]) -> list[Problem]:
    """The newest Slogan release of each edition (de, en, en-GB, en-US) must hold only
    slogans known in its market(s)."""
    problems = []
    for language in settings.KARTOTHEK_LANGUAGES:
        for edition in editions_of(language):
            release = Release.objects.filter(game="slogan", language=edition).order_by(
                "-version").first()
            if release is None:
                continue
            try:
                pack = json.loads(bytes(release.data))
                keys = [s["key"] for c in pack["body"]["cards"] for s in c["slogans"]]
            except (ValueError, KeyError, TypeError):
                continue  # a damaged release is the release checks' business, not this one
            foreign = [k for k in keys
                       if not in_edition(markets_of.get(k, market_leaves(edition)), edition)]
            if foreign:
                shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more"
                                                  if len(foreign) > 5 else "")
                problems.append(Problem(
                    f"Slogan release {release.version} ({edition})",
                    f"holds {len(foreign)} slogans not known in market '{edition}' ({shown}); "
                    "publish the pack again to print only the cards of that edition."))
    return problems
