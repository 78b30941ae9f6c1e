"""Brand owners as a spreadsheet: ``fixtures/slogan/brands.csv`` in the admin (Import /
Export on *Brand owners*) and in ``import_catalogue`` / ``export_catalogue``."""

from __future__ import annotations

import re
from typing import Any

from import_export import fields, resources, widgets

from cards.brands import BRAND_COLUMNS
from cards.models import BrandOwnership
from cards.resource_base import check_columns, check_unique_rows


class YearWidget(widgets.IntegerWidget):
    """A year, or empty; "1998.0" from a spreadsheet number cell reads as 1998."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> int | None:
        if value is None or str(value).strip() == "":
            return None
        text = str(value).strip()
        if re.fullmatch(r"\d{4}(?:\.0+)?", text):
            return int(float(text))
        raise ValueError(f"“{text}” is not a year (write four digits, e.g. 1998, or leave it empty).")


class BrandOwnershipResource(resources.ModelResource):
    """Rows are matched on brand and ``since``; an unchanged row is reported as skipped."""

    since = fields.Field(attribute="since", column_name="since", widget=YearWidget())
    until = fields.Field(attribute="until", column_name="until", widget=YearWidget())

    class Meta:
        model = BrandOwnership
        fields = BRAND_COLUMNS
        export_order = BRAND_COLUMNS
        import_id_fields = ("brand", "since")
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("preview", None)
        kwargs.pop("change_reason", None)
        super().__init__(**kwargs)

    def get_queryset(self) -> Any:
        return BrandOwnership.objects.order_by("brand", "since", "pk")

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        check_columns(dataset, BRAND_COLUMNS, ())
        check_unique_rows(dataset, ("brand", "since"))

    def export(self, *args: Any, **kwargs: Any) -> Any:
        dataset = super().export(*args, **kwargs)
        dataset.title = "brand_owners"
        return dataset
