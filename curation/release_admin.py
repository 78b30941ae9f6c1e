"""Releases in the admin: read-only, each with its notes; publishing is in publish_views."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import F
from django.http import HttpRequest
from django.urls import reverse
from django.utils.dateformat import format as date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.timezone import localtime

from curation.filters import language_filter
from curation.publish_pages import changes_context, publish_view, review_view
from curation.write_checks import WriteChecks
from exports.changes import short_summary
from exports.models import Release

__all__ = ["ReleaseAdmin", "publish_view", "review_view"]


@admin.register(Release)
class ReleaseAdmin(WriteChecks, admin.ModelAdmin):
    # Few, narrow columns: at 1280 px beside the menu and the filters there are about 630 px.
    list_display = ("release", "content_sha", "published", "changes_summary", "api")
    list_filter = ("game", language_filter())
    list_select_related = ("published_by",)
    fields = ("game", "language", "version", "size", "content_sha256", "file_sha256",
              "published_at", "published_by", "api")
    readonly_fields = fields
    # No list actions: publishing happens only on the review page, after the changes are seen.
    actions = None

    def get_queryset(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        # The list needs only the counts of each release's changes (a first release lists
        # every card): read from inside the JSON, the whole of it only on a release's page.
        return super().get_queryset(request).defer("changes").annotate(
            changes_since=F("changes__since"), changes_counts=F("changes__counts"))

    # A release never changes: no adding here (publish instead), no editing, no deleting.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="release", ordering="game")
    def release(self, release: Release) -> str:
        return format_html('<a href="{}">{}</a>',
                           reverse("admin:exports_release_change", args=[release.pk]), release)

    # Two digests, named for what they cover: the content (the pack's own "sha256", printed on
    # a deck's contents page as "Content sha256", the same for a draft and the release holding
    # that content) and the release file (the API's ETag; it covers the version number too).
    @admin.display(description="content sha256", ordering="body_sha256")
    def content_sha(self, release: Release) -> str:
        return format_html('<code title="{}">{}…</code>', release.body_sha256,
                           release.body_sha256[:12])

    @admin.display(description="content sha256")
    def content_sha256(self, release: Release) -> str:
        return format_html('<code>{}</code><br><span class="sha-note">of the pack\'s body: the '
                           'pack\'s "sha256", printed on a deck\'s contents page as "Content '
                           'sha256"; the same for the draft that holds this content</span>',
                           release.body_sha256)

    @admin.display(description="file sha256")
    def file_sha256(self, release: Release) -> str:
        return format_html('<code>{}</code><br><span class="sha-note">of the release file ({}): '
                           'its ETag in the API, what its signature signs, and "Release file '
                           'sha256" on a deck printed from this release</span>', release.sha256,
                           release.filename)

    @admin.display(description="published", ordering="published_at")
    def published(self, release: Release) -> str:
        when = date_format(localtime(release.published_at), "Y-m-d H:i")
        if release.published_by is None:
            return when
        return format_html("{}<br>by {}", when, release.published_by)

    @admin.display(description="changes")
    def changes_summary(self, release: Release) -> str:
        counts = getattr(release, "changes_counts", None)
        return short_summary(None if counts is None else
                             {"since": getattr(release, "changes_since", None), "counts": counts})

    @admin.display(description="API")
    def api(self, release: Release):  # type: ignore[no-untyped-def]
        args = [release.game, release.language, release.version]
        links = [(reverse("api:release", args=args), release.filename),
                 (reverse("api:release-signature", args=args), "signature")]
        return format_html_join(mark_safe("<br>"), '<a href="{}">{}</a>', links)

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
