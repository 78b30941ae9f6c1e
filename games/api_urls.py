"""The play API's URLs (mounted under /api/play/)."""

from django.urls import path, re_path

from games import api

app_name = "play_api"

urlpatterns = [
    path("rooms", api.create_room, name="rooms"),
    path("rooms/<str:code>", api.room, name="room"),
    path("rooms/<str:code>/events", api.events, name="events"),
    path("rooms/<str:code>/stream-tickets", api.stream_tickets, name="stream_tickets"),
    path("rooms/<str:code>/seats", api.join, name="seats"),
    path("rooms/<str:code>/start", api.start, name="start"),
    path("rooms/<str:code>/actions", api.actions, name="actions"),
    path("rooms/<str:code>/bots", api.add_bot, name="add_bot"),
    path("rooms/<str:code>/teams", api.teams, name="teams"),
    path("rooms/<str:code>/again", api.again, name="again"),
    path("rooms/<str:code>/replay", api.replay, name="replay"),
    path("rooms/<str:code>/seats/<str:seat_id>/remove", api.remove_seat, name="remove_seat"),
    path("rooms/<str:code>/seats/<str:seat_id>/away", api.away, name="away"),
    path("rooms/<str:code>/seats/<str:seat_id>/host", api.give_host, name="give_host"),
    path("rooms/<str:code>/seats/<str:seat_id>/bot", api.seat_to_bot, name="seat_to_bot"),
    re_path(r"^(?P<path>.*)$", api.not_found),
]
