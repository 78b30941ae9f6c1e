"""The play mode's pages, mounted at ``/play/`` (the JSON API lives under ``/api/play/``)."""

from django.urls import path

from games import assets, lobby, pages, views

app_name = "play"

urlpatterns = [
    path("", lobby.lobby, name="lobby"),
    path("join", lobby.join_by_code, name="join_by_code"),
    path("language", pages.set_language, name="language"),
    path("assets/<str:name>", assets.asset, name="asset"),
    path("<str:code>/", views.room_page, name="room"),
    path("<str:code>/join", views.join, name="join"),
    path("<str:code>/table", views.table_page, name="table"),
    path("<str:code>/table/host", views.table_host, name="table_host"),
    path("<str:code>/fragment", views.fragment, name="fragment"),
    path("<str:code>/hand", views.hand_over, name="hand"),
    path("<str:code>/host/<str:control>", views.host_control, name="host"),
    # the seat's token travels in the fragment (#TOKEN) and a POST, never in the path
    path("<str:code>/rejoin", views.rejoin, name="rejoin"),
    path("<str:code>/replay", views.replay_page, name="replay"),
    path("<str:code>/seats", views.seats_page, name="seats"),
    path("<str:code>/colours.css", views.sign_colours, name="colours"),
]
