"""D7 technical pause (issue 12-9): its countdown on the board and the console, its early end.

The pause is clock state: it runs from its `tech_pause` action for the
regulations' 120 s unless the host ends it early; the early end is stored on
the game (services.game_end_tech_pause), never written to the log.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Game

PLAYERS = [f"Игрок{i}" for i in range(1, 11)]
HX = {"HTTP_HX_REQUEST": "true"}
PAUSE_RE = re.compile(r'<section id="board-pause"[^>]*>.*?</section>', re.S)


@pytest.fixture
def game(host):
    game = services.game_create(host=host, title="Финал", players=PLAYERS)
    for action in (
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "next"},
    ):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    return game  # Day 1, speech of seat 1


@pytest.fixture
def client_host(host):
    c = Client()
    c.force_login(host)
    return c


def board_pause(client, game) -> str:
    html = client.get(reverse("board:snapshot", args=[game.pk])).content.decode()
    match = PAUSE_RE.search(html)
    assert match, "the board frame always carries #board-pause (so that frames can replace it)"
    return match.group(0)


def take_pause(client_host, game, seat=6):
    game.refresh_from_db()
    r = client_host.post(
        reverse("games:act", args=[game.pk]), {"do": "tech_pause", "seat": seat, "expected_seq": game.seq}, **HX
    )
    assert r.status_code == 200
    game.refresh_from_db()
    return r.content.decode()


def end_pause(client, game, expected_seq=None):
    game.refresh_from_db()
    seq = game.seq if expected_seq is None else expected_seq
    return client.post(reverse("games:tech_pause_end", args=[game.pk]), {"expected_seq": seq}, **HX)


@pytest.mark.django_db
def test_the_board_counts_the_pause_down_and_drops_it_when_its_time_is_up(client, client_host, game):
    assert "hidden" in board_pause(client, game) and "Технический перерыв" not in board_pause(client, game)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        console = take_pause(client_host, game, seat=6)
        assert "Тех. перерыв" in console and 'id="tech-pause-end"' in console
        pause = board_pause(client, game)
        assert "Технический перерыв: №6" in pause and "hidden" not in pause
        assert 'data-remaining-ms="120000"' in pause and 'data-running="1"' in pause
        deadline = re.search(r'data-deadline="([^"]+)"', pause).group(1)
        assert deadline == (start + timedelta(seconds=120)).isoformat()
        assert ">2:00<" in pause
    with time_machine.travel(start + timedelta(seconds=45), tick=False):
        pause = board_pause(client, game)
        assert 'data-remaining-ms="75000"' in pause and ">1:15<" in pause
    with time_machine.travel(start + timedelta(seconds=120, milliseconds=1), tick=False):
        pause = board_pause(client, game)
        assert "hidden" in pause and "Технический перерыв" not in pause
        console = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
        assert 'id="tech-pause-end"' not in console


@pytest.mark.django_db
def test_the_host_ends_the_pause_early_and_the_board_drops_it_at_once(
    client, client_host, game, django_capture_on_commit_callbacks, monkeypatch
):
    take_pause(client_host, game, seat=6)
    log_before = game.action_payloads()
    seq_before = game.seq
    sent = []
    monkeypatch.setattr("games.board.frames._publish", lambda game_id, public=True: sent.append((game_id, public)))
    with django_capture_on_commit_callbacks(execute=True):
        r = end_pause(client_host, game)
    assert r.status_code == 200
    html = r.content.decode()
    assert "Технический перерыв окончен досрочно." in html and 'id="tech-pause-end"' not in html
    assert sent == [(game.pk, True)]  # a frame goes to the board at once (a public change)
    game.refresh_from_db()
    assert game.tech_pause_ended_at is not None
    # Clock state, not a log action: the log and the revision are as they were.
    assert game.action_payloads() == log_before and game.seq == seq_before
    pause = board_pause(client, game)
    assert "hidden" in pause and "Технический перерыв" not in pause
    # Ending it twice is refused: no pause runs any more.
    again = end_pause(client_host, game)
    assert again.status_code == 422 and "Правило D7" in again.content.decode()


@pytest.mark.django_db
def test_a_later_pause_runs_after_an_earlier_one_was_ended_early(client, client_host, game):
    take_pause(client_host, game, seat=6)
    assert end_pause(client_host, game).status_code == 200
    take_pause(client_host, game, seat=7)  # D7: two per round
    assert "Технический перерыв: №7" in board_pause(client, game)


@pytest.mark.django_db
def test_ending_a_pause_when_none_runs_is_refused_with_its_rule(client_host, game):
    r = end_pause(client_host, game)
    assert r.status_code == 422
    html = r.content.decode()
    assert "Правило D7" in html and "Технический перерыв сейчас не идёт" in html
    game.refresh_from_db()
    assert game.tech_pause_ended_at is None


@pytest.mark.django_db
def test_ending_a_pause_is_the_hosts_and_needs_the_current_revision(client_host, game, other_user):
    take_pause(client_host, game, seat=6)
    stranger = Client()
    stranger.force_login(other_user)
    assert end_pause(stranger, game).status_code == 403
    anonymous = end_pause(Client(), game)
    assert anonymous.status_code == 401
    stale = end_pause(client_host, game, expected_seq=game.seq - 1)
    assert stale.status_code == 409
    assert Game.objects.get(pk=game.pk).tech_pause_ended_at is None
    assert client_host.get(reverse("games:tech_pause_end", args=[game.pk])).status_code == 405


@pytest.mark.django_db
def test_an_undone_pause_is_gone_from_the_board(client, client_host, game):
    take_pause(client_host, game, seat=6)
    services.game_undo_last_action(game=game, expected_seq=game.seq, by=None)
    assert "Технический перерыв" not in board_pause(client, game)


@pytest.mark.django_db
def test_the_board_pause_is_translated(client, client_host, game):
    take_pause(client_host, game, seat=6)
    html = client.get(reverse("board:snapshot", args=[game.pk]), {"lang": "en"}).content.decode()
    assert "Technical pause: #6" in PAUSE_RE.search(html).group(0)
