"""Spreadsheet formula escaping (CSV injection) for exported cells, and its exact inverse.

A spreadsheet program runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula,
and some also after a leading tab or carriage return. Following the OWASP recommendation, an
exported text that starts with one of these gets a single quote ``'`` in front, which makes
the spreadsheet show it as text. So that importing gives back exactly the text that was
exported, a text that itself starts with ``'`` gets a second quote as well:

====================  ===================
text                  exported cell
====================  ===================
``=SUM(A1)``          ``'=SUM(A1)``
``-3 Felder``         ``'-3 Felder``
``'quoted``           ``''quoted``
``-3`` ``+49`` ``1.5`` unchanged (plain numbers are values, not formulas)
``Oma``               unchanged
====================  ===================

``unescape_formula(escape_formula(text)) == text`` for every text. ``unescape_formula`` only
removes a quote that ``escape_formula`` would have written (a quote followed by a trigger
character or by another quote); any other text comes back unchanged.

A plain number (an optional sign, digits, an optional decimal part) is left alone: a
spreadsheet reads it as a number, it cannot call anything, and numeric columns such as the
Spießer Alfons ``amount`` (``-3``) stay numbers for the curator.
"""

from __future__ import annotations

import re

#: Characters that make a spreadsheet treat the start of a cell as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"

_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(?:[.,][0-9]+)?")


def _needs_quote(value: str) -> bool:
    if value.startswith(QUOTE):
        return True
    if not value.startswith(FORMULA_TRIGGERS):
        return False
    return _PLAIN_NUMBER.fullmatch(value) is None


def escape_formula(value: str) -> str:
    """The cell text for ``value`` that a spreadsheet cannot run as a formula."""
    return QUOTE + value if _needs_quote(value) else value


def unescape_formula(value: str) -> str:
    """The original text of a cell written by :func:`escape_formula`."""
    if value.startswith(QUOTE) and _needs_quote(value[1:]):
        return value[1:]
    return value


def escape_cell(value: object) -> object:
    """:func:`escape_formula` for a text; any other value (number, date, None) as it is."""
    return escape_formula(value) if isinstance(value, str) else value


def unescape_cell(value: object) -> object:
    """:func:`unescape_formula` for a text; any other value as it is."""
    return unescape_formula(value) if isinstance(value, str) else value
