"""Services: the one write path (lock, revision check, apply, store, project)."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import clock, services
from games.models import (
    Game,
    GameAction,
    GameSeat,
    GameStatus,
    NightAction,
    Nomination,
    Penalty,
    SeatResult,
    Vote,
)
from games.rules import RuleViolation

PLAYERS = [f"P{i}" for i in range(1, 11)]


def load_example(examples_dir, name):
    data = json.loads((examples_dir / f"{name}.json").read_text())
    return [a for a in data["actions"] if a["do"] != "expect" and not a.get("reject")]


@pytest.fixture
def game(host):
    return services.game_create(host=host, players=PLAYERS)


def record(game, action, by):
    return services.game_record_action(game=game, action=action, expected_seq=game.seq, by=by)


def projection_snapshot(game):
    return {
        "nominations": sorted(
            Nomination.objects.filter(game=game).values_list("action__seq", "day", "by_seat", "target_seat", "result")
        ),
        "votes": sorted(
            Vote.objects.filter(game=game).values_list(
                "action__seq", "day", "round_no", "kind", "voter_seat", "candidate_seat", "lift_yes", "auto"
            )
        ),
        "penalties": sorted(
            Penalty.objects.filter(game=game).values_list(
                "action__seq", "kind", "seat", "reason", "day", "phase", "count", "removed"
            )
        ),
        "nights": sorted(
            NightAction.objects.filter(game=game).values_list(
                "action__seq", "night", "kind", "actor_seat", "target_seat", "result"
            ),
            key=str,
        ),
        "results": sorted(
            SeatResult.objects.filter(game=game).values_list(
                "seat_no", "role", "won", "left_how", "fouls", "first_night_victim", "best_move_blacks"
            )
        ),
    }


@pytest.mark.django_db
def test_create_with_players_records_the_seat_action_and_seats(host):
    game = services.game_create(host=host, players=PLAYERS)
    assert game.seq == 1
    assert list(game.seats.values_list("seat_no", "nickname")) == [(i, f"P{i}") for i in range(1, 11)]
    assert game.public_state["status"] == "setup"


@pytest.mark.django_db
def test_stale_expected_seq_is_refused_and_changes_nothing(game, host):
    services.game_record_action(
        game=game, action={"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, expected_seq=1, by=host
    )
    # The same click sent again from the page that showed revision 1.
    with pytest.raises(services.StaleRevision):
        services.game_record_action(game=game, action={"do": "start"}, expected_seq=1, by=host)
    game.refresh_from_db()
    assert game.seq == 2
    assert game.actions.count() == 2
    assert game.public_state["status"] == "setup"


@pytest.mark.django_db
def test_refused_action_names_the_rule_and_changes_nothing(game, host):
    with pytest.raises(RuleViolation) as exc:
        record(game, {"do": "start"}, host)  # no roles yet (FORMAT: start needs seat and roles)
    assert exc.value.rule
    game.refresh_from_db()
    assert game.seq == 1 and game.actions.count() == 1


@pytest.mark.django_db
def test_roles_are_written_to_the_seats(game, host):
    record(game, {"do": "roles", "sheriff": 5, "don": 8, "mafia": [9, 10]}, host)
    roles = dict(GameSeat.objects.filter(game=game).values_list("seat_no", "role"))
    assert roles[5] == "sheriff" and roles[8] == "don" and roles[9] == roles[10] == "mafia"
    assert roles[1] == "civilian"


@pytest.mark.django_db
def test_undo_marks_the_last_action_and_replays(game, host):
    record(game, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, host)
    record(game, {"do": "start"}, host)
    assert game.public_state["step"] == "dogovorka"
    outcome = services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    assert outcome.action.payload == {"do": "start"}
    game.refresh_from_db()
    assert game.public_state["status"] == "setup"
    assert GameAction.objects.filter(game=game).count() == 3  # kept, marked undone
    assert GameAction.objects.get(game=game, payload__do="start").undone_at is not None
    # Redo after undo gives the same state as before.
    record(game, {"do": "start"}, host)
    assert game.public_state["step"] == "dogovorka"


@pytest.mark.django_db
def test_undo_with_stale_seq_is_refused(game, host):
    record(game, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, host)
    with pytest.raises(services.StaleRevision):
        services.game_undo_last_action(game=game, expected_seq=1, by=host)
    game.refresh_from_db()
    assert game.active_actions().count() == 2


@pytest.mark.django_db
def test_nothing_to_undo(host):
    game = services.game_create(host=host)
    with pytest.raises(services.NothingToUndo):
        services.game_undo_last_action(game=game, expected_seq=0, by=host)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["red_win", "black_win"])
def test_finished_example_writes_result_rows_and_projection_equals_rebuild(examples_dir, host, name):
    game = services.game_import_log(host=host, data={"name": name, "actions": load_example(examples_dir, name)})
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    assert game.winner in ("red", "black", "draw")
    results = list(SeatResult.objects.filter(game=game))
    assert len(results) == 10
    assert sum(r.won for r in results) == (7 if game.winner == "red" else 3 if game.winner == "black" else 0)
    incremental = projection_snapshot(game)
    assert incremental["votes"] and incremental["nominations"]
    services.game_rebuild_projection(game=game)
    assert projection_snapshot(game) == incremental


@pytest.mark.django_db
def test_running_game_has_no_result_rows_and_projection_equals_rebuild(examples_dir, host):
    game = services.game_import_log(host=host, data={"actions": load_example(examples_dir, "tie_and_lift")})
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    assert not SeatResult.objects.filter(game=game).exists()
    incremental = projection_snapshot(game)
    services.game_rebuild_projection(game=game)
    assert projection_snapshot(game) == incremental


@pytest.mark.django_db
def test_undo_rebuilds_projection_and_result_rows(examples_dir, host):
    game = services.game_import_log(host=host, data={"actions": load_example(examples_dir, "red_win")})
    assert SeatResult.objects.filter(game=game).count() == 10
    game.refresh_from_db()
    # Undo until the game is running again: result rows go away.
    while game.status == GameStatus.FINISHED:
        services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    assert not SeatResult.objects.filter(game=game).exists()
    incremental = projection_snapshot(game)
    services.game_rebuild_projection(game=game)
    assert projection_snapshot(game) == incremental


@pytest.mark.django_db
def test_projection_has_each_voter_shot_and_check(examples_dir, host):
    game = services.game_import_log(host=host, data={"actions": load_example(examples_dir, "tie_and_lift")})
    votes = Vote.objects.filter(game=game, day=1)
    assert votes.filter(kind="lift").count() == 10  # every player at the table voted yes or no
    assert votes.filter(kind="lift", lift_yes=True).count() == 6
    first = votes.filter(round_no=1)
    assert first.count() == 10
    assert first.get(voter_seat=4).auto is True  # V4: seat 4 did not vote, added to the last candidate
    shots = NightAction.objects.filter(game=game, night=1, kind="shot")
    assert sorted(shots.values_list("actor_seat", "target_seat")) == [(8, 1), (9, 1), (10, 1)]
    assert NightAction.objects.get(game=game, night=1, kind="sheriff_check").result == "black"
    assert NightAction.objects.get(game=game, night=1, kind="don_check").result == "sheriff"


@pytest.mark.django_db
def test_record_action_query_count_is_bounded(game, host):
    record(game, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, host)
    record(game, {"do": "start"}, host)
    with CaptureQueriesContext(connection) as ctx:
        record(game, {"do": "next"}, host)
    # 13 since the public revision (issue 24): the public facts are read under the lock.
    assert len(ctx.captured_queries) <= 13


@pytest.mark.django_db
def test_clock_pause_resume_keeps_remaining_time(game, host, time_machine):
    import datetime as dt

    time_machine.move_to(dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC), tick=False)
    record(game, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, host)
    record(game, {"do": "start"}, host)  # dogovorka: 60 s (T table), waits for «В городе ночь» (26-4)
    assert clock.remaining_ms(game, timezone.now()) == 60_000 and game.clock_started_at is None
    services.game_clock_control(game=game, command="start", by=host)
    time_machine.shift(dt.timedelta(seconds=15))
    services.game_clock_control(game=game, command="pause", by=host)
    assert game.clock_started_at is None
    time_machine.shift(dt.timedelta(seconds=30))
    assert clock.remaining_ms(game, timezone.now()) == 45_000
    services.game_clock_control(game=game, command="resume", by=host)
    time_machine.shift(dt.timedelta(seconds=5))
    assert clock.remaining_ms(Game.objects.get(pk=game.pk), timezone.now()) == 40_000
    services.game_clock_control(game=game, command="timeout", by=host)  # D8
    time_machine.shift(dt.timedelta(seconds=50))
    assert clock.remaining_ms(game, timezone.now()) == 40_000
    services.game_clock_control(game=game, command="end_timeout", by=host)
    services.game_clock_control(game=game, command="adjust", seconds=10, by=host)
    assert clock.remaining_ms(game, timezone.now()) == 50_000
    # «Продолжить игру» resumes the clock as it was before the time-out: running (issue 12-9).
    assert game.clock_started_at is not None
    time_machine.shift(dt.timedelta(seconds=5))
    assert clock.remaining_ms(Game.objects.get(pk=game.pk), timezone.now()) == 45_000
    # A clock paused before a time-out stays paused after it.
    services.game_clock_control(game=game, command="pause", by=host)
    services.game_clock_control(game=game, command="timeout", by=host)
    time_machine.shift(dt.timedelta(seconds=20))
    services.game_clock_control(game=game, command="end_timeout", by=host)
    time_machine.shift(dt.timedelta(seconds=5))
    assert clock.remaining_ms(Game.objects.get(pk=game.pk), timezone.now()) == 45_000


@pytest.mark.django_db
def test_next_step_gets_a_fresh_clock(game, host):
    record(game, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, host)
    record(game, {"do": "start"}, host)
    first_key = game.clock_key
    record(game, {"do": "next"}, host)
    assert game.clock_key != first_key
    assert game.clock_duration_ms == 60_000  # free seating, 60 s (N0.4)


@pytest.mark.django_db
def test_import_of_a_refused_log_leaves_no_half_game(host):
    actions = [{"do": "seat", "players": PLAYERS}, {"do": "start"}]  # start without roles: refused
    with pytest.raises(RuleViolation):
        services.game_import_log(host=host, data={"actions": actions})
    assert not Game.objects.exists()
    assert not GameAction.objects.exists()


@pytest.mark.django_db
def test_w3_disqualification_during_the_deciding_last_word_is_in_the_result_rows(examples_dir, host):
    actions = load_example(examples_dir, "red_win")
    assert actions[-1] == {"do": "next"}  # the W2 last word of the deciding leaver
    game = services.game_import_log(host=host, data={"actions": actions[:-1]})
    game.refresh_from_db()
    speaker = game.public_state["speaker"]
    assert game.public_state["step"] == "last_word" and game.public_state["winner"] == "red"
    record(game, {"do": "disqualify", "seat": speaker, "reason": "оскорбление"}, host)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.winner == "red"  # W3: the result stands
    row = SeatResult.objects.get(game=game, seat_no=speaker)
    assert row.disqualified is True
    assert row.left_how == "vote"  # he left by the vote; the penalty still applies
