"""Issue 26-4: a clock starts after the host has spoken, not before.

The Night's first step (after «В городе ночь») and the morning's first step
(after «Доброе утро»: the first speech after a miss, the player shot's last
word after a kill, Day 1's first speech after N0) store their clock full and
paused; the host's Space (the clock's "start") runs it. The public board holds
the Night until the morning's clock runs, and shows a Day's clock paused while
the host's waits: nothing public depends on the roles.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games import services
from games.board.public import public_facts
from games.rules import apply_in_place, new_state, script

SETUP = [
    {"do": "seat", "players": [f"P{i}" for i in range(1, 11)]},
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
]


class Log:
    def __init__(self) -> None:
        self.state = new_state()
        self.actions: list[dict[str, Any]] = []

    def do(self, action: dict[str, Any]) -> Log:
        apply_in_place(self.state, action)
        self.actions.append(action)
        return self

    def until(self, step: str) -> Log:
        while self.state.step != step:
            self.do({"do": "next"})
        return self


def setup() -> Log:
    g = Log()
    for a in SETUP:
        g.do(a)
    return g


def test_the_steps_after_the_hosts_announcements_wait_and_no_others():
    g = setup()
    assert g.state.step == "dogovorka" and script.clock_waits_for_host(g.state)  # «В городе ночь» (N0.1)
    g.do({"do": "next"})
    assert g.state.step == "free_seating" and not script.clock_waits_for_host(g.state)
    g.do({"do": "next"})
    assert (g.state.day, g.state.step, g.state.speaker) == (1, "speech", 1)
    assert script.clock_waits_for_host(g.state)  # «Доброе утро»: Day 1's first speech
    g.do({"do": "next"})
    assert g.state.speaker == 2 and not script.clock_waits_for_host(g.state)
    g.until("mafia_shot")
    assert script.clock_waits_for_host(g.state)  # «В городе ночь»: the Night's first step
    g.do({"do": "shots", "by": {"2": 7, "3": 7, "4": 7}})
    assert g.state.step == "don_check" and not script.clock_waits_for_host(g.state)
    g.do({"do": "next"}).do({"do": "next"})
    assert g.state.step == "best_move" and not script.clock_waits_for_host(g.state)
    g.do({"do": "best_move", "pass": True})
    assert (g.state.phase, g.state.step, g.state.speaker) == ("night", "last_word", 7)
    assert script.clock_waits_for_host(g.state)  # «Доброе утро», then the player shot's last word
    g.do({"do": "next"})
    assert (g.state.day, g.state.step) == (2, "speech")
    assert not script.clock_waits_for_host(g.state)  # the Day goes on from his last word
    g.until("mafia_shot").do({"do": "next"}).do({"do": "next"}).do({"do": "next"})  # Night 2: a miss, no checks
    assert (g.state.day, g.state.phase, g.state.step) == (3, "day", "speech")
    assert script.clock_waits_for_host(g.state)  # after a miss the morning is the first speech


@pytest.mark.django_db
def test_the_nights_first_step_stores_its_clock_full_and_paused_until_start(host):
    game = services.game_import_log(host=host, data={"format": "mafia-protocol-log/1", "actions": SETUP}, title="t")
    assert game.clock_duration_ms == 60_000
    assert game.clock_started_at is None and game.clock_elapsed_ms == 0
    c = Client()
    c.force_login(host)
    page = c.get(f"/games/{game.pk}/").content.decode()
    assert 'data-clock-waits="1"' in page and 'data-running="0"' in page and ">1:00<" in page
    r = c.post(f"/games/{game.pk}/clock/", {"command": "start"}, HTTP_HX_REQUEST="true")
    html = r.content.decode()
    assert r.status_code == 200 and html.lstrip().startswith('<div id="console"')
    assert "data-clock-waits" not in html and 'data-running="1"' in html
    game.refresh_from_db()
    assert game.clock_started_at is not None
    # The next step (N0.4) is an ordinary one: its clock runs at once.
    services.game_record_action(game=game, action={"do": "next"}, expected_seq=game.seq, by=host)
    assert game.clock_started_at is not None


@pytest.mark.django_db
def test_the_board_holds_the_night_until_the_mornings_clock_runs(host):
    g = setup().until("mafia_shot").do({"do": "next"}).do({"do": "next"}).do({"do": "next"})  # Night 1: a miss
    assert (g.state.day, g.state.step) == (2, "speech")
    actions = g.actions[:-1]
    game = services.game_import_log(host=host, data={"format": "mafia-protocol-log/1", "actions": actions}, title="t")
    assert game.public_facts["night"] and game.public_facts["day"] == 1
    rev = game.public_rev
    services.game_record_action(game=game, action=g.actions[-1], expected_seq=game.seq, by=host)
    # The engine is at the morning; the host has not spoken yet: the board is still in the Night.
    assert game.public_rev == rev and game.public_facts["night"] and game.public_facts["clock"] is None
    services.game_clock_control(game=game, command="start", by=host)
    facts = game.public_facts
    assert game.public_rev == rev + 1
    assert not facts["night"] and (facts["day"], facts["step"], facts["speaker"]) == (
        2,
        "speech",
        2,
    )  # D2: Day 2 opens with seat 2
    assert facts["clock"]["started_at"] is not None and facts["clock"]["duration_ms"] == 60_000


@pytest.mark.django_db
def test_the_boards_day_clock_is_paused_while_the_hosts_waits(host):
    actions = setup().until("speech").actions
    game = services.game_import_log(host=host, data={"format": "mafia-protocol-log/1", "actions": actions}, title="t")
    facts = public_facts(game, previous=game.public_facts)
    assert (facts["step"], facts["speaker"]) == ("speech", 1)
    assert facts["clock"] == {"duration_ms": 60_000, "elapsed_ms": 0, "started_at": None, "timeout_since": None}
    services.game_clock_control(game=game, command="start", by=host)
    assert game.public_facts["clock"]["started_at"] is not None


def test_favicon_ico_sends_the_browser_to_the_sites_icon(client):
    """Issue 26-9: /favicon.ico was a 404 on every page."""
    r = client.get("/favicon.ico")
    assert r.status_code == 302 and r["Location"].endswith("favicon.svg")
    assert "max-age" in r["Cache-Control"]
    # The icon itself is served by WhiteNoise (tests/browser/test_console_items26.py fetches it).
