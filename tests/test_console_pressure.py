"""Issue 12 (server side): what the console and the public pages say under pressure.

The browser tests (tests/browser/test_console_safety.py) drive the page; these
check the words and data the server renders for it.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.console import protocol_text as pt
from games.models import GameSeat
from games.rules import apply_in_place, new_state

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def client_host(host):
    c = Client()
    c.force_login(host)
    return c


def running(host, *extra):
    game = services.game_create(host=host, players=PLAYERS)
    for a in (
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "next"},
        *extra,
    ):
        game.refresh_from_db()
        services.game_record_action(game=game, action=a, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    return game


def post(client, game, data):
    game.refresh_from_db()
    return client.post(reverse("games:act", args=[game.pk]), {"expected_seq": game.seq, **data}, **HX)


@pytest.mark.django_db
def test_a_malformed_field_is_named_in_the_hosts_words(client_host, host):
    game = running(host)
    r = post(client_host, game, {"do": "foul", "seat": "11"})
    assert r.status_code == 422
    html = r.content.decode()
    assert "Место: нужен номер места 1..10" in html
    assert "«seat»" not in html and "Поле «" not in html


@pytest.mark.django_db
def test_the_miss_is_a_deliberate_control_and_the_primary_key_is_not(client_host, host):
    # The last speech of Day 1 ends: the Night's shot step.
    game = running(host, *[{"do": "next"}] * 10)
    html = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert 'data-deliberate="1"' in html
    assert 'id="next-btn"' not in html  # Space has nothing to press …
    assert 'id="skip-btn"' in html and "hx-confirm=" in html  # … the miss is Shift+Space, confirmed
    # «никого» is never pre-selected: the host enters each black's choice.
    assert re.search(r'name="shot-\d+" value=""[^>]*checked', html) is None


@pytest.mark.django_db
def test_a_fourth_foul_puts_the_cancelled_vote_in_the_banner_and_on_the_board(client_host, host):
    game = running(host, {"do": "nominate", "by": 1, "target": 6}, *[{"do": "foul", "seat": 5}] * 3)
    assert post(client_host, game, {"do": "foul", "seat": "5"}).status_code == 200
    html = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert "Голосование дня 1 не проводится (F7)" in html
    game.refresh_from_db()
    assert game.public_state["votes_cancelled"] == [1]
    board = Client().get(reverse("board:board", args=[game.pk])).content.decode()
    assert "Голосование дня 1 не проводится" in board


def test_the_fouls_line_lists_only_players_at_the_table():
    s = new_state()
    for a in (
        {"do": "seat", "players": PLAYERS},
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "next"},
        *[{"do": "foul", "seat": 5}] * 4,
        {"do": "foul", "seat": 6},
    ):
        apply_in_place(s, a)
    line = next(c for c in pt.chat_lines(s) if c.key == "fouls")
    assert line.text == "Фолы: 6 — 1"


def test_ghost_captains_after_the_shot_when_the_don_has_left():
    s = new_state()
    for a in (
        {"do": "seat", "players": PLAYERS},
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "next"},
        {"do": "disqualify", "seat": 2},
    ):
        apply_in_place(s, a)
    while s.step != "mafia_shot":
        assert pt.ghost_captains(s) == []
        apply_in_place(s, {"do": "next"})
    assert pt.ghost_captains(s) == []  # before the shot: nothing yet
    apply_in_place(s, {"do": "shots", "by": {"3": 7, "4": 7}})
    assert s.step == "sheriff_check"
    assert pt.ghost_captains(s) == ["don"]


@pytest.mark.django_db
def test_tournament_pages_name_tournaments_once_in_the_top_bar(client_host):
    html = client_host.get(reverse("tournaments:list")).content.decode()
    topbar = html[html.index('<header class="topbar">') : html.index("</header>")]
    assert topbar.count(">Турниры</a>") == 1


@pytest.mark.django_db
def test_nickname_chips_sort_as_russian_text(client_host, host):
    for nicks in (["Ёжик", "Жук", "Евгений", *PLAYERS[3:]],):
        services.game_create(host=host, players=nicks)
    html = client_host.get(reverse("games:create")).content.decode()
    chips = re.findall(r'data-add-nick="([^"]+)"', html)
    assert chips.index("Евгений") < chips.index("Ёжик") < chips.index("Жук")
    assert GameSeat.objects.filter(nickname="Ёжик").exists()
