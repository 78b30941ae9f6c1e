"""Releases in the admin: read-only, and a page to publish the current content."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from cards.models import Game
from exports.models import Release
from exports.packs import PackError, build_pack, publish
from kartothek.permissions import WriteChecks, requires


def publish_and_report(request: HttpRequest, game: str, language: str) -> None:
    try:
        result = publish(game, language, user=request.user)
    except PackError as exc:
        messages.error(request, f"{game} ({language}): {exc}")
        return
    if result.created:
        messages.success(request, f"Published {result.release}.")
    else:
        messages.info(request, f"No change: {result.release} already holds this content.")


@admin.register(Release)
class ReleaseAdmin(WriteChecks, admin.ModelAdmin):
    list_display = ("game", "language", "version", "size", "short_sha", "published_at",
                    "published_by", "download")
    list_filter = ("game", "language")
    list_select_related = ("published_by",)
    fields = ("game", "language", "version", "size", "sha256", "body_sha256", "published_at",
              "published_by", "download")
    readonly_fields = fields
    actions = ["publish_again"]

    def get_queryset(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).defer("data", "data_gzip")

    # A release never changes: no adding here (publish instead), no editing, no deleting.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="sha256")
    def short_sha(self, release: Release) -> str:
        return release.sha256[:12] + "…"

    @admin.display(description="file")
    def download(self, release: Release):  # type: ignore[no-untyped-def]
        url = reverse("api:release", args=[release.game, release.language, release.version])
        return format_html('<a href="{}">{}</a>', url, release.filename)

    def has_publish_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("exports.add_release")

    @admin.action(description="Publish the current content of the selected packs' game and language",
                  permissions=["publish"])
    def publish_again(self, request: HttpRequest, queryset) -> None:  # type: ignore[no-untyped-def]
        if not request.user.has_perm("exports.add_release"):
            raise PermissionDenied
        for game, language in sorted(set(queryset.values_list("game", "language"))):
            publish_and_report(request, game, language)

    def changelist_view(self, request, extra_context=None):  # type: ignore[no-untyped-def]
        extra_context = {**(extra_context or {}),
                         "publish_url": reverse("admin:exports_publish")}
        return super().changelist_view(request, extra_context)


@requires(get=["exports.add_release"])
def publish_view(site, request: HttpRequest) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Every game and language: its newest release, whether the content changed since, and
    a button that publishes the next release."""
    if request.method == "POST":
        game, language = request.POST.get("game", ""), request.POST.get("language", "")
        if game not in Game.values or language not in settings.KARTOTHEK_LANGUAGES:
            messages.error(request, "Choose a game and a language.")
        else:
            publish_and_report(request, game, language)
        return HttpResponseRedirect(request.path)
    rows = []
    for game, label in Game.choices:
        for language in settings.KARTOTHEK_LANGUAGES:
            latest = Release.objects.defer("data", "data_gzip").latest_of(game, language)
            draft_sha = build_pack(game, language)["sha256"]
            rows.append({
                "game": game, "label": label, "language": language, "latest": latest,
                "changed": latest is None or latest.body_sha256 != draft_sha,
            })
    context = {**site.each_context(request), "title": "Publish content packs", "rows": rows}
    return TemplateResponse(request, "admin/exports/publish.html", context)
