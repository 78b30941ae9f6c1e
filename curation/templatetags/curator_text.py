"""Template filters for the curator's messages: ``code_spans`` shows a `column` named between
backticks (as the commands print it) as a code span in the admin, not as literal backticks."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_TICKED = re.compile(r"`([^`\n]+)`")


@register.filter
def code_spans(text: object) -> SafeString:
    return mark_safe(_TICKED.sub(r"<code>\1</code>", escape(str(text))))  # escaped first
