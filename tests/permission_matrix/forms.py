"""Reading a page's form the way a browser sends it, and changing it the way a user would."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.test import Client

# --- reading a page's form the way a browser sends it -------------------------------------


class FormReader(HTMLParser):
    """The fields of each POST form on a page, as a browser would submit them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[list[tuple[str, str]]] = []
        self._form: list[tuple[str, str]] | None = None
        self._select: tuple[str, bool, list[tuple[str, bool]]] | None = None
        self._textarea: str | None = None
        self._text = ""
        self._option: list[str] | None = None
        self.labels: dict[str, list[tuple[str, str]]] = {}  # select name -> (value, label)
        # what a person can change of each field: its input type ("text", "number", "hidden",
        # "checkbox", …, "textarea", "select", "select-multiple", "readonly")
        self.kinds: dict[str, str] = {}
        self.choices: dict[str, list[str]] = {}  # checkbox/radio name -> their values

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._form = []
            self.forms.append(self._form)
        if self._form is None:
            return
        name = a.get("name", "")
        if tag == "input" and name:
            kind = a.get("type", "text").lower()
            if kind in ("submit", "button", "image", "reset", "file"):
                return
            editable = "readonly" not in a and "disabled" not in a
            self.kinds.setdefault(name, kind if editable else "readonly")
            if kind in ("checkbox", "radio"):  # the values ticking a box would send
                self.choices.setdefault(name, []).append(a.get("value", "on"))
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self._form.append((name, a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select" and name:
            self._select = (name, "multiple" in a, [])
            self.kinds.setdefault(name, "select-multiple" if "multiple" in a else "select")
        elif tag == "option" and self._select is not None:
            self._select[2].append((a.get("value", ""), "selected" in a))
            self._option = [a.get("value", ""), ""]
            self.labels.setdefault(self._select[0], []).append(("", ""))
        elif tag == "textarea" and name:
            self._textarea, self._text = name, ""
            self.kinds.setdefault(name, "textarea" if "readonly" not in a else "readonly")

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text += data
        if self._option is not None and self._select is not None:
            self._option[1] += data
            self.labels[self._select[0]][-1] = (self._option[0], self._option[1].strip())

    def handle_endtag(self, tag: str) -> None:
        if self._form is None:
            return
        if tag == "option":
            self._option = None
        if tag == "select" and self._select is not None:
            name, multiple, options = self._select
            chosen = [value for value, selected in options if selected]
            if not chosen and not multiple and options:
                chosen = [options[0][0]]
            self._form.extend((name, value) for value in chosen)
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self._form.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None
        elif tag == "form":
            self._form = None


_PAGES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # url -> form, labels; per test


def page_form(client: Client, url: str, labels: dict[str, Any] | None = None) -> dict[str, Any]:
    """The biggest POST form of a page (not the header's logout form), as POST data; the
    options of its selects (value, label) go into ``labels`` when given."""
    if url in _PAGES:  # the same page in every case of a test (each case is rolled back)
        data, seen = _PAGES[url]
        if labels is not None:
            labels.update(seen)
        return dict(data)
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    reader = FormReader()
    reader.feed(response.content.decode())
    fields = max(reader.forms, key=len)
    if labels is not None:
        labels.update(reader.labels)
    data: dict[str, Any] = {}
    for name, value in fields:
        if "__prefix__" in name or name == "csrfmiddlewaretoken":
            continue
        data.setdefault(name, []).append(value)
    form = {name: values if len(values) > 1 else values[0] for name, values in data.items()}
    _PAGES[url] = (form, reader.labels)
    return dict(form)


def changed(data: dict[str, Any]) -> dict[str, Any]:
    """The same form with one real change in it (a saved card's key is read-only, so not
    the key); a form with no text to change (a Sign card) is saved as it is, which still
    writes the card's history."""
    for name, suffix in (("key", "-neu"), ("text", " neu"), ("first_name", "Neu"),
                         ("name", " neu"), ("slogans-0-text", " neu"), ("term", " neu"),
                         ("reason", " neu"), ("group", " neu")):
        if name in data:
            return {**data, name: f"{data[name]}{suffix}"}
    if "symbol" in data and "colour" in data:
        return data
    raise AssertionError(f"no field to change in {sorted(data)}")


def as_new(data: dict[str, Any], model_admin: admin.ModelAdmin, obj: Model,
           request: Any) -> dict[str, Any]:
    """A change form's data turned into an add form's: its inline rows become new rows."""
    data = dict(data)
    for formset, _inline in model_admin.get_formsets_with_inlines(request, obj):
        prefix = formset.get_default_prefix()
        fk = getattr(formset, "fk", None)
        data[f"{prefix}-INITIAL_FORMS"] = "0"
        for name in list(data):
            match = re.fullmatch(rf"{re.escape(prefix)}-\d+-(\w+)", name)
            if match and match.group(1) in ("id", "DELETE", *([fk.name] if fk else [])):
                del data[name]
    return data
