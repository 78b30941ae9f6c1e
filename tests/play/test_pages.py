"""The play pages through Django's test client: opening, joining, host controls, secrets."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import rooms
from games.models import Room
from tests.engines.packs import EXAMPLE_BOARD
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import fresh_room_caches  # noqa: F401  (autouse)

pytestmark = pytest.mark.django_db


def open_by_form(client: Client, game: str = "sauschwer", **fields: str):
    data = {"game": game, "language": "en", "name": "Ada", "release": "latest", **fields}
    return client.post("/play/", data)


def code_of(response) -> str:
    match = re.match(r"/play/([A-Z0-9]+)/$", response["Location"])
    assert match, response["Location"]
    return match.group(1)


def join_by_form(code: str, name: str) -> Client:
    client = Client()
    response = client.post(f"/play/{code}/join", {"name": name})
    assert response.status_code == 302, response.content
    return client


def test_the_open_room_form_makes_a_room_with_the_chosen_options_and_a_seat_cookie():
    release_of("sauschwer")
    client = Client()
    response = open_by_form(client, sauschwer_rounds="2", sauschwer_target_points="9",
                            opening_side="red")
    code = code_of(response)
    room = Room.objects.get(code=code)
    assert room.options == {"rounds": 2, "target_points": 9, "opening_side": "red"}
    assert client.cookies[f"kt_seat_{code}"]["httponly"]
    page = client.get(f"/play/{code}/")
    assert page.status_code == 200
    assert "Start the game" in page.content.decode()  # the host's lobby


def test_a_bad_option_is_refused_with_a_message_and_no_room():
    release_of("sauschwer")
    response = open_by_form(Client(), sauschwer_rounds="zero")
    assert response.status_code == 400
    assert "Rounds must be a whole number." in response.content.decode()
    assert not Room.objects.exists()


def test_the_lobby_page_offers_every_game_and_its_variants():
    page = Client().get("/play/").content.decode()
    for name in ("Sag&#x27;s mit Symbolen", "Sign", "Slogan", "Sauschwer"):
        assert name in page
    assert 'name="grey_markers"' in page and 'name="opening_side"' in page
    assert 'name="sign_rounds"' in page and 'name="pass_and_play"' in page
    assert 'name="seed"' not in page  # playtest fields are for logged-in curators


def test_joining_by_code_leads_to_the_join_page_and_a_full_room_says_so():
    release_of("slogan")
    host = Client()
    code = code_of(open_by_form(host, "slogan"))
    assert Client().get(f"/play/join?code={code.lower()}")["Location"] == f"/play/{code}/join"
    for n in range(2, 7):
        join_by_form(code, f"P{n}")
    late = Client().post(f"/play/{code}/join", {"name": "Zoe"})
    assert late.status_code == 409
    assert "The room is full" in late.content.decode()
    assert Room.objects.get(code=code).seats.count() == 6


def test_the_join_page_of_a_started_room_says_it_has_started():
    release_of("sauschwer")
    host = Client()
    code = code_of(open_by_form(host))
    join_by_form(code, "Ben")
    assert host.post(f"/play/{code}/host/start").status_code == 302
    page = Client().get(f"/play/{code}/join")
    assert "already started" in page.content.decode()


def test_only_the_host_can_start_and_a_bot_fills_a_seat():
    release_of("symbols")
    host = Client()
    code = code_of(open_by_form(host, "symbols"))
    ben = join_by_form(code, "Ben")
    refused = ben.post(f"/play/{code}/host/start")
    assert refused.status_code == 403
    assert Room.objects.get(code=code).status == "lobby"
    host.post(f"/play/{code}/host/bot")
    host.post(f"/play/{code}/host/start")
    room = Room.objects.get(code=code)
    assert room.status == "playing"
    assert [s.bot for s in room.seats.order_by("position")] == [False, False, True]


def test_sign_teams_are_chosen_per_seat_from_the_rulebooks_divisions():
    release_of("sign")
    host = Client()
    code = code_of(open_by_form(host, "sign"))
    for name in ("Ben", "Cleo", "Dana"):
        join_by_form(code, name)
    lobby = host.get(f"/play/{code}/").content.decode()
    assert "2–2" in lobby and 'name="team_p4"' in lobby
    bad = host.post(f"/play/{code}/host/teams", {"team_p1": "0", "team_p2": "0", "team_p3": "0",
                                                  "team_p4": "1"})
    assert bad.status_code == 400
    assert "2-2" in bad.content.decode()
    host.post(f"/play/{code}/host/teams", {"team_p1": "0", "team_p2": "0", "team_p3": "1",
                                            "team_p4": "1"})
    assert Room.objects.get(code=code).options["teams"] == [["p1", "p2"], ["p3", "p4"]]


def test_a_seat_page_shows_the_secret_to_hint_givers_only_and_the_table_to_nobody():
    release_of("symbols")
    room, host = rooms.open_room(game="symbols", language="en", name="Ada", options={
        "first_candidate": "p1"})
    tokens = {"p1": host.token}
    for name in ("Ben", "Cleo"):
        seat = rooms.join(room, name=name)
        tokens[seat.seat] = seat.token
    rooms.start(room, rooms.seat_for_token(room, host.token))
    state = rooms.room_state(Room.objects.get(pk=room.pk))
    secret = state["secret"]
    pages = {}
    for seat, token in tokens.items():
        client = Client()
        client.cookies[f"kt_seat_{room.code}"] = token
        pages[seat] = client.get(f"/play/{room.code}/fragment").content.decode()
    pages["table"] = Client().get(f"/play/{room.code}/fragment?table=1").content.decode()
    marker = f"#{secret} ·"
    assert marker in pages["p2"] and marker in pages["p3"]
    assert "secret-note" not in pages["p1"] and "slot secret" not in pages["p1"]
    assert "secret-note" not in pages["table"] and "slot secret" not in pages["table"]


def test_a_fragment_without_a_seat_is_refused():
    release_of("sauschwer")
    code = code_of(open_by_form(Client()))
    assert Client().get(f"/play/{code}/fragment").status_code == 403


def test_an_unknown_room_is_a_404_with_a_message():
    response = Client().get("/play/QQQQQ/")
    assert response.status_code == 404


def test_the_qr_code_on_the_table_screen_encodes_the_join_link():
    release_of("sauschwer")
    code = code_of(open_by_form(Client()))
    page = Client().get(f"/play/{code}/table").content.decode()
    assert "<svg" in page and f"http://testserver/play/{code}/join" in page


def test_the_page_language_follows_the_switch_and_the_admin_keeps_its_own():
    client = Client()
    client.post("/play/language", {"language": "de", "next": "/play/"})
    page = client.get("/play/").content.decode()
    assert 'lang="de"' in page and "Raum eröffnen" in page
    client.post("/play/language", {"language": "en", "next": "/play/"})
    assert "Open the room" in client.get("/play/").content.decode()


def test_the_language_switch_never_redirects_to_another_site():
    response = Client().post("/play/language", {"language": "de", "next": "https://evil.example/"})
    assert response["Location"] == "/play/"


def test_pass_and_play_adds_players_on_one_device_and_hands_it_over():
    release_of("symbols")
    device = Client()
    code = code_of(open_by_form(device, "symbols", pass_and_play="1"))
    for name in ("Ben", "Cleo"):
        assert device.post(f"/play/{code}/join", {"name": name}).status_code == 302
    room = Room.objects.get(code=code)
    assert room.seats.count() == 3
    device.post(f"/play/{code}/host/start", {"first": "p1"})
    page = device.get(f"/play/{code}/").content.decode()
    assert "Hand the device to Ben" in page and "slot-number" not in page
    device.post(f"/play/{code}/hand", {"seat": "p2"})
    assert "secret-note" in device.get(f"/play/{code}/fragment").content.decode()
    # A device cannot take a seat whose token it does not hold.
    stranger = Client()
    assert stranger.post(f"/play/{code}/hand", {"seat": "p2"}).status_code == 403


def test_replay_steps_through_a_finished_game():
    release_of("symbols")
    from django.contrib.auth.models import Group, User

    carla = User.objects.create_user(username="carla", password="x", is_staff=True)
    carla.groups.add(Group.objects.get(name="Curators"))
    room, host = rooms.open_room(game="symbols", language="en", name="Ada", user=carla, seed="r",
                                 options={"goal": 3, "first_candidate": "p1",
                                          "stack": {"concepts": EXAMPLE_BOARD, "numbers": [4]}})
    ben = rooms.join(room, name="Ben")
    rooms.join(room, name="Cleo")
    rooms.start(room, rooms.seat_for_token(room, host.token))
    version = Room.objects.get(pk=room.pk).version
    rooms.act(room.code, ben, action_id="h1", version=version,
              action={"type": "hint", "symbol": "koffer", "marker": "green"})
    ada = rooms.seat_for_token(room, host.token)
    rooms.act(room.code, ada, action_id="g1", version=version + 1,
              action={"type": "guess", "slot": 4})
    first = Client().get(f"/play/{room.code}/replay").content.decode()
    assert "Step 0 of 2" in first
    last = Client().get(f"/play/{room.code}/replay?step=2").content.decode()
    assert "Step 2 of 2" in last and "slot 4, Italien: found" in last


def test_curators_see_every_seat_side_by_side_and_others_are_sent_to_log_in():
    release_of("sauschwer")
    code = code_of(open_by_form(Client()))
    assert Client().get(f"/play/{code}/seats").status_code == 302
    from django.contrib.auth.models import Group, User

    carla = User.objects.create_user(username="carla", password="x", is_staff=True)
    carla.groups.add(Group.objects.get(name="Curators"))
    client = Client()
    client.force_login(carla)
    page = client.get(f"/play/{code}/seats").content.decode()
    assert page.count('class="seat-panel"') == 1 and "inert" in page


def test_grey_markers_give_the_hint_giver_a_choice_of_marker():
    release_of("symbols")
    host = Client()
    code = code_of(open_by_form(host, "symbols", grey_markers="1"))
    ben = join_by_form(code, "Ben")
    join_by_form(code, "Cleo")
    host.post(f"/play/{code}/host/start", {"first": "p1"})
    page = ben.get(f"/play/{code}/fragment").content.decode()
    assert "data-marker-choice" in page and "data-action-grey" in page
    assert "grey: it does not fit" in page


def test_the_extra_tiles_variant_puts_the_chosen_tiles_on_the_board():
    release_of("symbols")
    code = code_of(open_by_form(Client(), "symbols", cover_anker="koffer", cover_rakete="sonne"))
    symbols = Room.objects.get(code=code).options["symbols"]
    assert symbols[:3] == ["handy", "anker", "rakete"]
    twice = open_by_form(Client(), "symbols", cover_anker="koffer", cover_rakete="koffer")
    assert twice.status_code == 400
    assert "Two extra tiles cannot cover the same tile." in twice.content.decode()


def test_a_slogan_duel_shows_the_options_to_its_reader_only():
    release_of("slogan")
    room, host = rooms.open_room(game="slogan", language="en", name="Ada",
                                 options={"first_player": "p1"})
    ben, cleo = rooms.join(room, name="Ben"), rooms.join(room, name="Cleo")
    rooms.start(room, rooms.seat_for_token(room, host.token))
    # Only a player behind the leader challenges (docs/engines.md): Ben answers Ada right first.
    for number, action in enumerate(({"type": "ask", "slogan": 0, "stake": 1},
                                     {"type": "judge", "correct": True})):
        version = Room.objects.get(pk=room.pk).version
        rooms.act(room.code, host, action_id=f"a{number}", version=version, action=action)
    version = Room.objects.get(pk=room.pk).version
    rooms.act(room.code, cleo, action_id="c1", version=version,
              action={"type": "challenge", "target": "p2"})
    pages = {}
    for seat, token in (("p1", host.token), ("p2", ben.token), ("p3", cleo.token)):
        client = Client()
        client.cookies[f"kt_seat_{room.code}"] = token
        pages[seat] = client.get(f"/play/{room.code}/fragment").content.decode()
    assert "Cleo challenges Ben to a duel!" in pages["p2"]
    # Ben is both questioner and challenged: Ada reads and judges, and only she sees the options.
    assert "Reading: Ada" in pages["p2"] and 'class="options"' not in pages["p2"]
    assert 'class="options"' not in pages["p3"]
    assert 'class="options"' in pages["p1"] and "Next: Ben answers slogan 1." in pages["p1"]
    assert pages["p1"].count('data-action="{&quot;correct&quot;') == 2


def test_the_pages_share_the_apis_rate_limit_on_rooms_and_joins(settings):
    release_of("sauschwer")
    settings.KARTOTHEK_PLAY_RATE_LIMIT = 2
    client = Client()
    assert open_by_form(client).status_code == 302
    assert open_by_form(client).status_code == 302
    refused = open_by_form(client)
    assert refused.status_code == 429
    assert "Too many rooms or joins" in refused.content.decode()
    assert Room.objects.count() == 2


def test_curators_may_open_a_draft_with_a_seed_and_others_are_told_no(mini_catalogue):
    from django.contrib.auth.models import Group, User

    anyone = open_by_form(Client(), release="draft", game="sauschwer")
    assert anyone.status_code == 403
    assert "Only logged-in curators may play the draft" in anyone.content.decode()
    carla = User.objects.create_user(username="carla", password="x", is_staff=True)
    carla.groups.add(Group.objects.get(name="Curators"))
    client = Client()
    client.force_login(carla)
    form = client.get("/play/").content.decode()
    assert 'value="draft"' in form and 'name="seed"' in form and 'name="stack"' in form
    code = code_of(open_by_form(client, release="draft", game="sauschwer", seed="abc"))
    room = Room.objects.get(code=code)
    assert room.release is None and room.draft_pack and room.seed == "abc"


def test_a_player_moves_to_another_device_with_their_rejoin_link():
    release_of("sauschwer")
    host = Client()
    code = code_of(open_by_form(host))
    ben = join_by_form(code, "Ben")
    page = ben.post(f"/play/{code}/host/rejoin", {"seat": "p2"})
    assert page.status_code == 200 and "<svg" in page.content.decode()
    link, token = re.search(rf"http://testserver(/play/{code}/rejoin)#([^<\"]+)",
                            page.content.decode()).groups()
    laptop = Client(enforce_csrf_checks=True)
    form = laptop.get(link)  # what the server sees of the link: no token
    assert form.status_code == 200 and 'data-rejoin' in form.content.decode()
    csrf = laptop.cookies["csrftoken"].value
    assert laptop.post(link, {"token": token, "csrfmiddlewaretoken": csrf})["Location"] == f"/play/{code}/"
    lobby = laptop.get(f"/play/{code}/").content.decode()
    assert 'class="seat-row you"' in lobby and "Ben" in lobby
    # Nobody but the host may ask for another seat's link.
    refused = ben.post(f"/play/{code}/host/rejoin", {"seat": "p1"})
    assert refused.status_code == 403
    assert Client().post(f"/play/{code}/rejoin", {"token": "not-a-token"}).status_code == 403
    assert Client().post(f"/play/{code}/rejoin", {}).status_code == 403


def test_the_host_shows_another_seats_rejoin_link_and_the_old_device_loses_the_seat():
    release_of("sauschwer")
    host = Client()
    code = code_of(open_by_form(host))
    ben = join_by_form(code, "Ben")
    page = host.post(f"/play/{code}/host/rejoin", {"seat": "p2"}).content.decode()
    link, token = re.search(rf"http://testserver(/play/{code}/rejoin)#([^<\"]+)", page).groups()
    new_phone = Client()
    new_phone.post(link, {"token": token})
    assert 'class="seat-row you"' in new_phone.get(f"/play/{code}/").content.decode()
    assert ben.get(f"/play/{code}/fragment").status_code == 403
