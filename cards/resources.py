"""django-import-export resources: one per content type, matched on the stable ``key``.

The admin, ``import_catalogue`` / ``export_catalogue`` and the fixtures all go through these
classes, so a rule checked here (or in the models they clean) holds for every path in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import models
from import_export import fields, widgets

from cards.models import (
    AlfonsCard,
    ConceptCard,
    Content,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    markets_or_source,
    option_problems,
)
from cards.pictures import icon_credit, render_icon, stored_file_exists, validate_picture
from cards.resource_base import (
    FileRejected,
    KeyedResource,
    KeyWidget,
    StrictBooleanWidget,
    WeightWidget,
    WholeNumberWidget,
)
from cards.text import validate_key


class ConceptCardResource(KeyedResource):
    class Meta(KeyedResource.Meta):
        model = ConceptCard
        fields = ("key", "text")


class SymbolTileResource(KeyedResource):
    """Symbol tiles; the picture is drawn from a Tabler icon, or read from a catalogue folder."""

    is_extra = fields.Field(attribute="is_extra", column_name="is_extra", widget=StrictBooleanWidget())
    position = fields.Field(attribute="position", column_name="position", widget=WholeNumberWidget())
    picture = fields.Field(column_name="picture", attribute=None)

    class Meta(KeyedResource.Meta):
        use_bulk = False  # each row also writes a picture file
        model = SymbolTile
        fields = (
            "key", "name", "icon", "is_extra", "position", "picture", "image_source", "image_licence",
        )

    def __init__(self, catalogue_dir: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.catalogue_dir = catalogue_dir

    def dehydrate_picture(self, tile: SymbolTile) -> str:
        return f"symbols/pictures/{tile.key}.png" if tile.image else ""

    def import_instance(self, instance: SymbolTile, row: dict, **kwargs: Any) -> None:
        previous_icon = instance.icon if instance.pk else None
        super().import_instance(instance, row, **kwargs)
        picture = (row.get("picture") or "").strip()
        if picture:
            instance._picture_bytes = self._read_picture(picture)  # type: ignore[attr-defined]
        elif instance.icon and (
            not instance.image or instance.icon != previous_icon or not stored_file_exists(instance.image)
        ):
            try:
                instance._picture_bytes = render_icon(instance.icon)  # type: ignore[attr-defined]
            except ValidationError as exc:
                raise ValidationError({"icon": exc.messages}) from None
            source, licence = icon_credit(instance.icon)
            if instance.icon != previous_icon:  # a new drawing brings its own credit
                instance.image_source = instance.image_licence = ""
            instance.image_source = instance.image_source or source
            instance.image_licence = instance.image_licence or licence
        data = getattr(instance, "_picture_bytes", None)
        if data is not None:
            # An uncommitted file: full_clean checks it, and saving the tile stores it
            # under symbols/<key>.png.
            instance.image = ContentFile(data, name=f"{instance.key}.png")

    def _read_picture(self, relative: str) -> bytes:
        if self.catalogue_dir is None:
            raise ValidationError({"picture": "Pictures can only be read from a catalogue folder."})
        base = self.catalogue_dir.resolve()
        path = (base / relative).resolve()
        if base not in path.parents or not path.is_file():
            raise ValidationError({"picture": f"The picture file “{relative}” is not in the folder."})
        data = path.read_bytes()
        upload = ContentFile(data, name=path.name)
        try:
            validate_picture(upload)
        except ValidationError as exc:
            raise ValidationError({"picture": exc.messages}) from None
        return data

    def skip_row(  # type: ignore[no-untyped-def]
        self, instance: SymbolTile, original: SymbolTile, row: dict, import_validation_errors=None
    ) -> bool:
        data = getattr(instance, "_picture_bytes", None)
        if data is not None and _file_bytes(original.image) != data:
            return False
        return super().skip_row(instance, original, row, import_validation_errors)


def _file_bytes(image: Any) -> bytes | None:
    if not stored_file_exists(image):
        return None
    with image.storage.open(image.name, "rb") as handle:
        return handle.read()




class SignSymbolResource(KeyedResource):
    position = fields.Field(attribute="position", column_name="position", widget=WholeNumberWidget())

    class Meta(KeyedResource.Meta):
        model = SignSymbol
        fields = ("key", "name", "icon", "position")


class SignColourResource(KeyedResource):
    position = fields.Field(attribute="position", column_name="position", widget=WholeNumberWidget())

    class Meta(KeyedResource.Meta):
        model = SignColour
        fields = ("key", "name", "hex", "mark", "position")


class SignCardResource(KeyedResource):
    symbol = fields.Field(attribute="symbol", column_name="symbol", widget=KeyWidget(SignSymbol, "key"))
    colour = fields.Field(attribute="colour", column_name="colour", widget=KeyWidget(SignColour, "key"))

    class Meta(KeyedResource.Meta):
        model = SignCard
        fields = ("key", "symbol", "colour")

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().select_related("symbol", "colour")


class SloganCardWidget(widgets.ForeignKeyWidget):
    """The card a slogan is printed on; a card that does not exist yet is created."""

    def __init__(self) -> None:
        super().__init__(SloganCard, "key")

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> SloganCard | None:
        key = "" if value is None else str(value).strip()
        if not key:
            return None
        card = SloganCard.objects.filter(key=key).first()
        if card is None:
            card = SloganCard(key=key)
            try:
                validate_key(key)
            except ValidationError as exc:
                raise ValueError(exc.messages[0]) from None
            card.save()
        return card


OPTION_COLUMNS = ("option_1", "option_2", "option_3", "option_4")


class MarketsWidget(widgets.CharWidget):
    """A slogan's markets, written one way ("de,en") whatever order or spacing the file has."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> str:
        return markets_or_source("" if value is None else str(value))


class SloganResource(KeyedResource):
    """One row per slogan: its card and side, its text, its four options and the correct one."""

    card = fields.Field(attribute="card", column_name="card", widget=SloganCardWidget())
    side = fields.Field(attribute="side", column_name="side", widget=WholeNumberWidget())
    option_1 = fields.Field(column_name="option_1", attribute=None)
    option_2 = fields.Field(column_name="option_2", attribute=None)
    option_3 = fields.Field(column_name="option_3", attribute=None)
    option_4 = fields.Field(column_name="option_4", attribute=None)
    correct = fields.Field(column_name="correct", attribute=None)
    keep_german = fields.Field(
        attribute="keep_german", column_name="keep_german", widget=StrictBooleanWidget()
    )
    markets = fields.Field(attribute="markets", column_name="markets", widget=MarketsWidget())

    class Meta(KeyedResource.Meta):
        use_bulk = False  # each row also writes its four options
        model = Slogan
        # markets last: spreadsheets written before the column existed keep their positions
        fields = ("card", "side", "key", "text", *OPTION_COLUMNS, "correct", "keep_german",
                  "source", "markets")

    def get_queryset(self) -> models.QuerySet:
        return (
            Slogan.objects.select_related("card")
            .prefetch_related("options")
            .order_by("card__key", "side")
        )

    def _options(self, slogan: Slogan) -> list[SloganOption]:
        return sorted(slogan.options.all(), key=lambda o: o.position)

    def dehydrate_option_1(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 1)

    def dehydrate_option_2(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 2)

    def dehydrate_option_3(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 3)

    def dehydrate_option_4(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 4)

    def _option_text(self, slogan: Slogan, position: int) -> str:
        return next((o.text for o in self._options(slogan) if o.position == position), "")

    def dehydrate_correct(self, slogan: Slogan) -> str:
        return next((str(o.position) for o in self._options(slogan) if o.is_correct), "")

    def import_instance(self, instance: Slogan, row: dict, **kwargs: Any) -> None:
        errors: dict[str, Any] = {}
        try:
            super().import_instance(instance, row, **kwargs)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        missing = [c for c in (*OPTION_COLUMNS, "correct") if c not in row]
        if missing:
            errors["correct"] = f"The columns {', '.join(missing)} are missing."
        else:
            texts = [str(row[c] or "").strip() for c in OPTION_COLUMNS]
            correct = str(row["correct"] or "").strip()
            if correct.endswith(".0"):
                correct = correct[:-2]
            if correct not in {"1", "2", "3", "4"}:
                errors["correct"] = f"“{row['correct']}” is not the number (1–4) of the correct option."
            else:
                flags = [str(i) == correct for i in range(1, 5)]
                for message in option_problems(texts, flags):
                    errors.setdefault("option_1", []).append(message)
                instance._pending_options = list(zip(texts, flags, strict=True))  # type: ignore[attr-defined]
        if errors:
            raise ValidationError(errors)

    def skip_row(  # type: ignore[no-untyped-def]
        self, instance: Slogan, original: Slogan, row: dict, import_validation_errors=None
    ) -> bool:
        pending = getattr(instance, "_pending_options", None)
        if pending is not None and original.pk:
            current = [(o.text, o.is_correct) for o in self._options(original)]
            if current != pending:
                return False
        elif pending is not None:
            return False
        return super().skip_row(instance, original, row, import_validation_errors)

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        self._cards_of_file: dict[str, list[int]] = {}  # card key -> file rows naming it
        self._cards_before: dict[int, int] = {}  # slogan pk -> its card before the file
        super().before_import(dataset, **kwargs)

    def import_row(self, row: Any, instance_loader: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        key = str(row.get("card") or "").strip()
        if key:
            number = kwargs.get("row_number")
            self._cards_of_file.setdefault(key, []).append(number + 1 if number else 0)
        return super().import_row(row, instance_loader, **kwargs)

    def after_init_instance(self, instance: Any, new: bool, row: Any, **kwargs: Any) -> None:
        super().after_init_instance(instance, new, row, **kwargs)
        if not new:
            self._cards_before[instance.pk] = instance.card_id  # a slogan moved leaves a gap

    def after_save_instance(self, instance: Slogan, row: dict, **kwargs: Any) -> None:
        pending = getattr(instance, "_pending_options", None)
        if pending is not None:
            write_options(instance, pending)

    def after_import(self, dataset: Any, result: Any, **kwargs: Any) -> None:
        """A slogan card is one unit: every card the file touches must be complete after it."""
        super().after_import(dataset, result, **kwargs)
        if result.has_errors() or result.has_validation_errors():
            return  # the rows' own errors say it; nothing is stored
        from cards.validation import incomplete_slogan_cards

        touched = set(self._cards_before.values())
        touched.update(
            SloganCard.objects.filter(key__in=list(self._cards_of_file)).values_list("pk", flat=True)
        )
        incomplete = incomplete_slogan_cards(touched)
        if incomplete:
            lines = []
            for key, problems in incomplete.items():
                rows = self._cards_of_file.get(key)
                where = f" (rows {', '.join(map(str, rows))})" if rows else ""
                lines.append(f"slogan card {key}{where}: {'; '.join(problems)}")
            raise IncompleteCards(
                "A slogan card is imported whole: both slogans, each with four options. "
                + " ".join(f"{line}." for line in lines)
            )


class IncompleteCards(ValueError):
    """A slogan file would leave a card without one of its slogans."""


def write_options(slogan: Slogan, pending: list[tuple[str, bool]]) -> None:
    """Store a slogan's four options (text, correct) in position order, changing only what
    differs. The admin and the spreadsheet import both write options through here."""
    existing = {o.position: o for o in slogan.options.all()}
    # Unmark the old correct option first: at most one option may be correct at a time.
    for position, (_text, is_correct) in enumerate(pending, start=1):
        option = existing.get(position)
        if option is not None and option.is_correct and not is_correct:
            option.is_correct = False
            option.save(update_fields=["is_correct"])
    for position, (text, is_correct) in enumerate(pending, start=1):
        option = existing.get(position) or SloganOption(slogan=slogan, position=position)
        if option.pk and option.text == text and option.is_correct == is_correct:
            continue
        option.text = text
        option.is_correct = is_correct
        option.full_clean(validate_unique=False, validate_constraints=False)
        option.save()
    for position, option in existing.items():
        if position > len(pending):
            option.delete()


class SloganCardResource(KeyedResource):
    """Slogan cards, for export: the key and both slogans. A card is imported with its
    slogans and their options (a slogans file), never on its own: a card without slogans
    would be incomplete, so this resource refuses every file."""

    slogan_1 = fields.Field(column_name="slogan_1", attribute=None, readonly=True)
    slogan_2 = fields.Field(column_name="slogan_2", attribute=None, readonly=True)

    class Meta(KeyedResource.Meta):
        model = SloganCard
        fields = ("key", "slogan_1", "slogan_2")

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().prefetch_related("slogans")

    def _text(self, card: SloganCard, side: int) -> str:
        return next((s.text for s in card.slogans.all() if s.side == side), "")

    def dehydrate_slogan_1(self, card: SloganCard) -> str:
        return self._text(card, 1)

    def dehydrate_slogan_2(self, card: SloganCard) -> str:
        return self._text(card, 2)

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        raise FileRejected(
            "Slogan cards are imported with their slogans: import a slogans file (columns "
            "card, side, key, text, option_1 … option_4, correct) on the Slogans page."
        )


class AlfonsCardResource(KeyedResource):
    amount = fields.Field(attribute="amount", column_name="amount", widget=WholeNumberWidget())

    class Meta(KeyedResource.Meta):
        model = AlfonsCard
        fields = ("key", "text", "effect", "amount", "target")


class SauschwerObjectResource(KeyedResource):
    weight_g = fields.Field(attribute="weight_g", column_name="weight_g", widget=WeightWidget())

    class Meta(KeyedResource.Meta):
        model = SauschwerObject
        fields = ("key", "name", "weight_g", "source")


#: Content model -> its resource.
RESOURCES: dict[type[Content], type[KeyedResource]] = {
    ConceptCard: ConceptCardResource,
    SymbolTile: SymbolTileResource,
    SignSymbol: SignSymbolResource,
    SignColour: SignColourResource,
    SignCard: SignCardResource,
    Slogan: SloganResource,
    AlfonsCard: AlfonsCardResource,
    SauschwerObject: SauschwerObjectResource,
}
