"""Webhook endpoints and their deliveries in the admin (Curators; README, *Roles*).

A secret is made by the server, shown once on the page after saving, and masked on every
other page; the deliveries are read-only, with a *Send again* action."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from cards.models import Game
from curation.filters import SentenceChoicesFilter
from curation.write_checks import WriteChecks
from exports.models import WebhookDelivery, WebhookEndpoint
from exports.webhooks import STUCK_AFTER, UnsafeTarget, check_url, masked, new_secret, send_again

RESEND = "exports.change_webhookendpoint"


def _languages() -> list[tuple[str, str]]:
    return [(code, code) for code in settings.KARTOTHEK_LANGUAGES]


class WebhookEndpointForm(forms.ModelForm):
    url = forms.URLField(max_length=500, assume_scheme="https",
                         help_text="https://… — receives a POST for each release")
    games = forms.MultipleChoiceField(choices=Game.choices, required=False,
                                      widget=forms.CheckboxSelectMultiple,
                                      help_text="none chosen: every game")
    languages = forms.MultipleChoiceField(choices=_languages, required=False,
                                          widget=forms.CheckboxSelectMultiple,
                                          help_text="none chosen: every language")
    new_secret = forms.BooleanField(required=False, label="Make a new secret",
                                    help_text="the old one stops working; the new one is "
                                              "shown once, after saving")

    class Meta:
        model = WebhookEndpoint
        fields = ["name", "url", "games", "languages", "active"]

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        try:
            check_url(url)
        except UnsafeTarget as exc:
            raise forms.ValidationError(str(exc)) from None
        return url


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(WriteChecks, admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = ("name", "url", "game_list", "language_list", "active", "secret_hint",
                    "last_delivery")
    list_filter = ("active",)
    readonly_fields = ("secret_hint", "created_at", "created_by")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = ["name", "url", "games", "languages", "active"]
        return fields if obj is None else [*fields, "secret_hint", "new_secret", "created_at",
                                           "created_by"]

    @admin.display(description="secret")
    def secret_hint(self, endpoint: WebhookEndpoint) -> str:
        return masked(endpoint.secret)

    @admin.display(description="games")
    def game_list(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.games) or "all"

    @admin.display(description="languages")
    def language_list(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.languages) or "all"

    @admin.display(description="last delivery")
    def last_delivery(self, endpoint: WebhookEndpoint) -> str:
        last = endpoint.deliveries.order_by("-created_at", "-pk").first()
        if last is None:
            return "—"
        url = reverse("admin:exports_webhookdelivery_changelist") + f"?endpoint__id__exact={endpoint.pk}"
        return format_html('<a href="{}">{}</a>', url, last.get_status_display())

    def save_model(self, request: HttpRequest, obj: WebhookEndpoint, form: Any, change: bool) -> None:
        if not change or form.cleaned_data.get("new_secret"):
            obj.secret = new_secret()
            # on the request, not on this admin (one instance serves every request)
            request.webhook_secret = obj.secret  # type: ignore[attr-defined]
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def _secret_page(self, request: HttpRequest, obj: WebhookEndpoint) -> HttpResponse:
        context = {**self.admin_site.each_context(request), "title": "The endpoint's secret",
                   "endpoint": obj, "secret": request.webhook_secret}  # type: ignore[attr-defined]
        return TemplateResponse(request, "admin/exports/webhook_secret.html", context)

    def response_add(self, request: HttpRequest, obj: WebhookEndpoint,
                     post_url_continue: Any = None) -> HttpResponse:
        return self._secret_page(request, obj)

    def response_change(self, request: HttpRequest, obj: WebhookEndpoint) -> HttpResponse:
        if getattr(request, "webhook_secret", ""):
            return self._secret_page(request, obj)
        return super().response_change(request, obj)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(WriteChecks, admin.ModelAdmin):
    # narrow enough for a laptop: the URL, message id and times are on each delivery's page
    list_display = ("created_at", "endpoint", "release", "attempt", "status_shown",
                    "http_status", "error", "next_attempt_at")
    list_filter = (("status", SentenceChoicesFilter), "endpoint")
    list_select_related = ("endpoint", "release")
    fields = ("endpoint", "url", "release", "message_id", "attempt", "manual", "status_shown",
              "http_status",
              "error", "response_excerpt", "body", "created_at", "scheduled_for", "started_at",
              "finished_at", "next_attempt_at", "requested_by")
    readonly_fields = fields
    actions = ["send_again"]

    def get_queryset(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).defer("release__changes")

    # A delivery is a record of what happened: it is not added, changed or deleted here.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="status", ordering="status")
    def status_shown(self, delivery: WebhookDelivery) -> str:
        """A delivery "sending" for too long is named stuck: its worker stopped, and the
        worker's next run fails and retries it (exports/webhooks.py)."""
        shown = delivery.get_status_display()
        started = delivery.started_at
        if delivery.status == WebhookDelivery.Status.SENDING and started is not None:
            age = timezone.now() - started
            if age > STUCK_AFTER:
                return (f"stuck: sending for {age.total_seconds() / 60:.0f} min (its worker "
                        "stopped); the worker's next run retries it")
        return shown

    @admin.display(description="body sent")
    def body(self, delivery: WebhookDelivery) -> str:
        try:  # shown indented; the bytes sent are the stored compact ones
            shown = json.dumps(json.loads(delivery.payload), indent=2, ensure_ascii=False)
        except ValueError:
            shown = delivery.payload or "—"
        return format_html("<pre>{}</pre>", shown)

    def has_resend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RESEND)

    @admin.action(description="Send the selected deliveries' messages again", permissions=["resend"])
    def send_again(self, request: HttpRequest, queryset) -> None:  # type: ignore[no-untyped-def]
        if not request.user.has_perm(RESEND):
            raise PermissionDenied
        sent = 0
        for delivery in queryset.select_related("endpoint"):
            if delivery.endpoint is None or not delivery.endpoint.active:
                messages.warning(request, f"{delivery.endpoint or delivery.url} is switched off "
                                          "or deleted: not sent.")
                continue
            send_again(delivery, request.user)
            sent += 1
        if sent:
            messages.success(request, f"{sent} message(s) queued to be sent again.")
