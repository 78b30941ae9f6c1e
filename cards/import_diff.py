"""The import preview's diff: a changed value as old → new, in the unit the admin shows.

The resources' diff class (``cards.resources.KeyedResource.get_diff_class``)."""

from __future__ import annotations

from typing import Any

from django.utils.encoding import force_str
from django.utils.html import format_html
from import_export.resources import Diff


class ReadableDiff(Diff):
    """The import preview's cells: the new value where nothing was stored, the value where it
    stays, and ``old → new`` where it changes (never a character-wise strike-through, which
    turns 55000 → 60000 into "5̶5̶6̶0̶000")."""

    def __init__(self, resource: Any, instance: Any, new: bool) -> None:
        super().__init__(resource, instance, new)
        self.left = self._shown(resource, self.left)

    def compare_with(self, resource: Any, instance: Any) -> None:
        super().compare_with(resource, instance)
        self.right = self._shown(resource, self.right)

    @staticmethod
    def _shown(resource: Any, values: list[Any]) -> list[str]:
        fields = resource.get_import_fields()
        shown = []
        for field, value in zip(fields, values, strict=False):
            show = getattr(field.widget, "show", None)
            shown.append(force_str(show(value) if show is not None and value not in (None, "")
                                   else value if value is not None else ""))
        return shown

    def as_html(self) -> list[str]:
        cells = []
        for old, new in zip(self.left, self.right, strict=False):
            if self.new or old == new:
                cells.append(format_html('<span class="diff-same">{}</span>', new))
            else:
                cells.append(format_html(
                    '<span class="diff-change"><del><span class="visually-hidden">was </span>{}'
                    '</del> <span aria-hidden="true">→</span><span class="visually-hidden"> now'
                    '</span> <ins>{}</ins></span>', old or "—", new or "—"))
        return cells
