"""Issue 26: the server side of the console's fixes (no browser).

- 26-2: a step preceded by a departed captain's wake-up stores its clock full
  and paused; "start" (the console, when the wake-ups are passed) runs it.
- 26-6: a tournament table's game refuses a second seating (S1).
- 26-9: the favicon, a link to /players/, and a warning count that does not
  read as rule W1 in English.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils.translation import override

from games import services
from games.console import protocol_text as pt
from games.rules import apply_in_place, new_state

pytestmark = pytest.mark.django_db

SETUP = [
    {"do": "seat", "players": [f"P{i}" for i in range(1, 11)]},
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
]


def _game(host, actions):
    return services.game_import_log(host=host, data={"format": "mafia-protocol-log/1", "actions": actions}, title="t")


def _don_out_at_sheriff_check() -> list[dict]:
    state = new_state()
    out: list[dict] = []

    def do(a: dict) -> None:
        apply_in_place(state, a)
        out.append(a)

    for a in SETUP:
        do(a)
    while state.step != "speech":
        do({"do": "next"})
    do({"do": "disqualify", "seat": 2})
    while state.step != "mafia_shot":
        do({"do": "next"})
    do({"do": "shots", "by": {"3": 7, "4": 7}})
    assert state.step == "sheriff_check"
    return out


def test_the_sheriffs_clock_waits_for_the_dons_wake_up_and_starts_with_his_step(host):
    game = _game(host, _don_out_at_sheriff_check())
    assert game.clock_duration_ms == 15000
    assert game.clock_started_at is None and game.clock_elapsed_ms == 0  # waiting, full
    c = Client()
    c.force_login(host)
    page = c.get(f"/games/{game.pk}/").content.decode()
    assert 'data-ghosts="don"' in page
    r = c.post(f"/games/{game.pk}/clock/", {"command": "start"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and 'id="console"' in r.content.decode()
    game.refresh_from_db()
    assert game.clock_started_at is not None
    # Once the step's clock runs, the wake-up is over (on every device).
    assert "data-ghosts" not in c.get(f"/games/{game.pk}/").content.decode()


def test_an_ordinary_step_still_starts_its_clock_at_once(host):
    # N0.4 (free seating): no announcement of the host's opens it (issue 26-4).
    game = _game(host, [*SETUP, {"do": "next"}])
    assert game.clock_started_at is not None


def test_a_tournament_game_refuses_a_second_seating(host):
    from tournaments import services as ts

    t = ts.tournament_create(name="T", organizer=host)
    rnd = ts.round_create(stage=ts.stage_create(tournament=t, name="S"), tables=1)
    table = rnd.tables.get()
    game = services.game_create(host=host, title="Стол 1", players=[f"T{i}" for i in range(1, 11)])
    table.game = game
    table.save()
    c = Client()
    c.force_login(host)
    before = list(game.active_actions().values_list("seq", flat=True))
    r = c.post(
        f"/games/{game.pk}/act/",
        {
            "do": "seat",
            "players": "\n".join(f"X{i}" for i in range(1, 11)),
            "seating": "random",
            "expected_seq": game.seq,
        },
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 422 and "S1" in r.content.decode()
    assert list(game.active_actions().values_list("seq", flat=True)) == before
    page = c.get(f"/games/{game.pk}/").content.decode()
    assert 'name="seating"' not in page and "data-tournament-seating" in page
    assert "data-tournament-game" in c.get("/games/").content.decode()


def test_favicon_players_link_and_an_unambiguous_warning_count(host):
    game = _game(host, [*SETUP, {"do": "next"}, {"do": "next"}, {"do": "warning", "seat": 5}])
    c = Client()
    c.force_login(host)
    page = c.get(f"/games/{game.pk}/").content.decode()
    assert 'rel="icon"' in page and 'href="/players/"' in page
    assert "П×1" in page
    c.post("/i18n/setlang/", {"language": "en", "next": "/"})
    with override("en"):
        en = c.get(f"/games/{game.pk}/").content.decode()
    assert "W×1" in en and ">W1<" not in en
    assert pt.ghost_captains(new_state()) == []


def test_create_with_unknown_nicknames_says_so_at_the_top(host):
    c = Client()
    c.force_login(host)
    r = c.post(
        "/games/new/", {"title": "", "players": "\n".join(f"Новичок{i}" for i in range(1, 11)), "seating": "typed"}
    )
    page = r.content.decode()
    if "player-choices" not in page:
        pytest.skip("no decision asked for unknown nicknames here")
    assert page.index("data-players-pending") < page.index('id="create-form"')
    assert "autofocus" in page


def test_the_revote_is_announced_as_a_revote():
    state = new_state()
    for a in SETUP:
        apply_in_place(state, a)
    while state.step != "speech":
        apply_in_place(state, {"do": "next"})
    apply_in_place(state, {"do": "nominate", "by": 1, "target": 3})
    apply_in_place(state, {"do": "next"})
    apply_in_place(state, {"do": "nominate", "by": 2, "target": 5})
    while state.step != "voting":
        apply_in_place(state, {"do": "next"})
    first = pt.step_title(state)
    apply_in_place(state, {"do": "votes", "for": {"3": [1, 2, 3, 4, 6], "5": [5, 7, 8, 9, 10]}})
    while state.step != "voting":
        apply_in_place(state, {"do": "next"})
    revote = pt.step_title(state)
    assert first.title == "Голосование" and revote.title == "Переголосование"
    assert revote.say != first.say and "переголосование" in revote.say


def _sheriff_out_then_a_missed_night() -> list[dict]:
    """The Sheriff disqualified on Day 1; Night 1's shots miss; the Don checks.
    The log goes straight to Day 2's first speech (no step for the Sheriff)."""
    state = new_state()
    out: list[dict] = []

    def do(a: dict) -> None:
        apply_in_place(state, a)
        out.append(a)

    for a in SETUP:
        do(a)
    while state.step != "speech":
        do({"do": "next"})
    do({"do": "disqualify", "seat": 1})
    while state.step != "mafia_shot":
        do({"do": "next"})
    do({"do": "shots", "by": {"2": 7, "3": 7, "4": 8}})
    do({"do": "don_check", "target": 5})
    assert (state.phase, state.day, state.step) == ("day", 2, "speech")
    return out


def test_after_a_missed_night_the_departed_sheriff_still_wakes_before_the_morning(host):
    """N5/V12: a departed captain wakes for 15 s every Night. After a miss the
    log is already at Day 2's first speech; the console must still play the
    Sheriff's wake-up, and the speech's minute must wait for it — otherwise the
    Day starts 15 s early and tells the table the Sheriff has left."""
    actions = _sheriff_out_then_a_missed_night()
    state = new_state()
    for a in actions:
        apply_in_place(state, a)
    assert pt.ghost_captains(state) == ["sheriff"]
    game = _game(host, actions)
    assert game.clock_duration_ms == 60000
    assert game.clock_started_at is None and game.clock_elapsed_ms == 0
    c = Client()
    c.force_login(host)
    assert 'data-ghosts="sheriff"' in c.get(f"/games/{game.pk}/").content.decode()
    c.post(f"/games/{game.pk}/clock/", {"command": "start"}, HTTP_HX_REQUEST="true")
    game.refresh_from_db()
    assert game.clock_started_at is not None
    assert "data-ghosts" not in c.get(f"/games/{game.pk}/").content.decode()


def test_the_day_after_a_hit_has_no_second_wake_up(host):
    """A hit: the wake-up plays before the victim's last word (or the best move),
    once; the Day's first speech that follows the last word does not repeat it."""
    state = new_state()
    for a in SETUP:
        apply_in_place(state, a)
    while state.step != "speech":
        apply_in_place(state, {"do": "next"})
    apply_in_place(state, {"do": "disqualify", "seat": 1})
    while state.step != "mafia_shot":
        apply_in_place(state, {"do": "next"})
    apply_in_place(state, {"do": "shots", "by": {"2": 7, "3": 7, "4": 7}})
    apply_in_place(state, {"do": "don_check", "target": 5})
    assert pt.ghost_captains(state) == ["sheriff"]
    while state.phase == "night" and state.status == "running":
        apply_in_place(state, {"do": "best_move", "pass": True} if state.step == "best_move" else {"do": "next"})
    assert state.phase == "day" and state.step == "speech"
    assert pt.ghost_captains(state) == []
