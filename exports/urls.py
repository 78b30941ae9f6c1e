"""The pack API's URLs (mounted under /api/)."""

from django.urls import path, re_path

from exports import api

app_name = "api"

urlpatterns = [
    path("packs", api.index, name="index"),
    # The index's URL until the API was described without trailing slashes: it answers the
    # same, for the clients written against it.
    path("packs/", api.index, name="index-slash"),
    path("packs/<str:game>/<str:language>/latest", api.latest, name="latest"),
    path("packs/<str:game>/<str:language>/draft.json", api.draft, name="draft"),
    path("packs/<str:game>/<str:language>/<int:version>.json", api.release, name="release"),
    path("packs/<str:game>/<str:language>/<int:version>.json.sig", api.release_signature,
         name="release-signature"),
    path("packs/<str:game>/<str:language>/<int:since>..<int:version>.delta.json", api.delta,
         name="delta"),
    path("keys", api.keys, name="keys"),
    path("timestamp", api.timestamp, name="timestamp"),
    path("schema/content-pack.json", api.pack_schema, name="schema"),
    path("schema/content-pack-delta.json", api.delta_schema, name="delta-schema"),
    path("openapi.json", api.openapi, name="openapi"),
    re_path(r"^pictures/(?P<digest>[0-9a-f]{64})\.png$", api.picture, name="picture"),
    re_path(r"^(?P<path>.*)$", api.not_found),
]
