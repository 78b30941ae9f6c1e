"""Releases in the admin: read-only, each with its notes; publishing is in publish_views."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from exports.changes import summary
from exports.models import Release
from exports.publish_views import changes_context, publish_view, review_view
from kartothek.permissions import WriteChecks

__all__ = ["ReleaseAdmin", "publish_view", "review_view"]


@admin.register(Release)
class ReleaseAdmin(WriteChecks, admin.ModelAdmin):
    list_display = ("game", "language", "version", "size", "content_sha", "file_sha",
                    "published_at", "published_by", "changes_summary", "api")
    list_filter = ("game", "language")
    list_select_related = ("published_by",)
    fields = ("game", "language", "version", "size", "body_sha256", "sha256", "published_at",
              "published_by", "api")
    readonly_fields = fields
    actions = ["review_and_publish"]

    def get_queryset(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).defer("data", "data_gzip")

    # A release never changes: no adding here (publish instead), no editing, no deleting.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    # Two digests, named for what they cover: the content (the pack's own "sha256", printed on
    # a deck's contents page, the same for a draft and the release holding that content) and
    # the release file (the API's ETag; it covers the version number too).
    @admin.display(description="content sha256", ordering="body_sha256")
    def content_sha(self, release: Release) -> str:
        return format_html('<code title="{}">{}…</code>', release.body_sha256,
                           release.body_sha256[:12])

    @admin.display(description="file sha256", ordering="sha256")
    def file_sha(self, release: Release) -> str:
        return format_html('<code title="{}">{}…</code>', release.sha256, release.sha256[:12])

    @admin.display(description="changes")
    def changes_summary(self, release: Release) -> str:
        return summary(release.changes)

    @admin.display(description="API")
    def api(self, release: Release):  # type: ignore[no-untyped-def]
        args = [release.game, release.language, release.version]
        links = [(reverse("api:release", args=args), release.filename),
                 (reverse("api:release-signature", args=args), "signature")]
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    def has_publish_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("exports.add_release")

    @admin.action(description="Review and publish the current content of the selected packs' "
                              "game and language", permissions=["publish"])
    def review_and_publish(self, request: HttpRequest, queryset) -> HttpResponseRedirect:  # type: ignore[no-untyped-def]
        # Publishing freezes content for good: never in one click from a list, always after
        # the review page has shown what changes.
        if not request.user.has_perm("exports.add_release"):
            raise PermissionDenied
        packs = sorted(set(queryset.values_list("game", "language")))
        if len(packs) == 1:
            return HttpResponseRedirect(reverse("admin:exports_publish_review", args=packs[0]))
        messages.info(request, "Review each pack's changes before publishing it.")
        return HttpResponseRedirect(reverse("admin:exports_publish"))

    def changelist_view(self, request, extra_context=None):  # type: ignore[no-untyped-def]
        extra_context = {**(extra_context or {}),
                         "publish_url": reverse("admin:exports_publish")}
        return super().changelist_view(request, extra_context)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
        release = self.get_object(request, object_id)
        notes: dict[str, Any] = {}
        if release is not None:
            notes = {"release": release, "note": release.note, "recorded": release.changes is not None}
            if release.changes is not None:
                notes.update(changes_context(release.changes))
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **notes})
