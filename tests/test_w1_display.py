"""A Night ended by its shot (RULES W1) on every surface: the console, the
public board, the stream overlay, the protocol lines and the workbook.

The game is the scenario log W1_shot_leaves_two_v_two_black_wins_at_shot_…:
reds 1, 5, 7 against blacks 8, 9 (Sheriff 5, Don 8), Night 1: 8 and 9 shoot
1, which leaves 2 against 2 — black has won at the shot, no check steps; 1
keeps his N1 best move (RULES W1 INTERP, issue 21: 8, 9 accepted), then the
morning and 1's last word (W2), then 9 is disqualified (W3), then finished.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.translation import override
from openpyxl import load_workbook

from games import exports, services, vocabulary
from games import reading as game_reading
from games.board import frames as board
from games.board import view as board_view
from games.console import protocol_text

SCENARIO = (
    Path(__file__).resolve().parent
    / "rules"
    / "scenarios"
    / "W1_shot_leaves_two_v_two_black_wins_at_shot_then_black_disqualified.json"
)


def scenario_actions() -> list[dict]:
    data = json.loads(SCENARIO.read_text())
    return [a for a in data["actions"] if a["do"] != "expect" and not a.get("reject")]


def play_until(host, last_do: str, *, through_all: bool = False):
    """Record the scenario up to and including its first `last_do` action."""
    actions = scenario_actions()
    game = services.game_create(host=host, title="W1", players=[f"P{i}" for i in range(1, 11)])
    for action in actions[1:]:  # the seating is the game's own
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
        if action["do"] == last_do and not through_all:
            break
    game.refresh_from_db()
    return game


@pytest.mark.django_db
def test_board_and_overlay_show_the_winner_from_the_shot_without_roles(host):
    game = play_until(host, "shots")
    assert game.status == "running" and game.public_state["winner"] == "black"
    assert game.public_state["step"] == "best_move" and game.public_state["speaker"] is None  # W1: his best move
    with override("ru"):
        # Issue 24: the Night is one public state until its morning; the result
        # the shot decided shows with the morning, after the victim's best move.
        night = board_view.public_view(game)
        assert not night["decided"] and night["result"] == ""
        services.game_record_action(game=game, action={"do": "best_move", "pass": True}, expected_seq=game.seq, by=host)
        game.refresh_from_db()
        assert not board_view.public_view(game)["decided"]  # the morning waits for «Доброе утро» (issue 26-4)
        services.game_clock_control(game=game, command="start", by=host)
        game.refresh_from_db()
        view = board_view.public_view(game)
        assert view["decided"] and view["result"] == "Победа чёрных"
        assert not view["over"] and view["protocol"] is None
        assert all(s["role"] == "" and s["team"] == "" for s in view["seats"])  # roles until the end: hidden
        html = board.board_frame(game, lang="ru").html
        assert "Победа чёрных" in html and "после последнего слова (W2)" in html
        assert "Шериф" not in html and "Дон" not in html
        assert board_view.overlay_view(game)["result"] == "Победа чёрных"
    # Before the shot nothing of a result is shown.
    before = play_until(host, "next")
    assert board_view.public_view(before)["result"] == "" and not board_view.public_view(before)["decided"]


@pytest.mark.django_db
def test_console_shows_the_decided_night_without_check_steps(host):
    game = play_until(host, "shots")
    client = Client()
    client.force_login(host)
    html = client.get(reverse("games:console", args=[game.pk])).content.decode()
    assert "Результат решён" in html and "(W2)" in html
    state = game_reading.game_state(game)
    assert state.step == "best_move" and state.checks == []  # W1 INTERP: his best move is held
    assert vocabulary.STEPS(state.step) != vocabulary.STEPS("don_check")
    assert "проверяет (N4)" not in html  # no check panel: the Night ended at the shot
    # The same table with a miss (not deciding): the Don's check panel is there.
    other = play_until(host, "next")
    while game_reading.game_state(other).step != "mafia_shot":
        services.game_record_action(game=other, action={"do": "next"}, expected_seq=other.seq, by=host)
    services.game_record_action(game=other, action={"do": "next"}, expected_seq=other.seq, by=host)
    assert game_reading.game_state(other).step == "don_check"
    assert "проверяет (N4)" in client.get(reverse("games:console", args=[other.pk])).content.decode()


@pytest.mark.django_db
def test_protocol_lines_say_the_shot_decided_and_list_no_checks(host):
    with override("ru"):
        lines = [line.full for line in protocol_text.replay_lines(scenario_actions()).lines]
    shot = next(line for line in lines if "выстрел в №1" in line)
    assert "выстрел решил игру (W1)" in shot and "Победа чёрных" in shot and "лучший ход за убитым" in shot
    best = next(line for line in lines if "лучший ход №1" in line)
    assert "№1 покидает игру" in best  # the morning comes after his best move
    assert not any("проверил" in line or "не проверял" in line for line in lines)
    assert lines[-1].endswith("игра окончена")


@pytest.mark.django_db
def test_nights_sheet_records_the_night_as_played(host):
    game = play_until(host, "shots", through_all=True)
    assert game.status == "finished" and game.winner == "black"
    wb = load_workbook(io.BytesIO(exports.workbook_bytes(exports.build_games_workbook([game.pk], "ru"))))
    ws = wb["Ночи"]
    row = [ws.cell(2, c).value for c in range(1, 11)]
    assert row[0] == "Ночь 1"
    assert row[1] == "8 → 1" and row[2] == "9 → 1"
    assert row[4] == "убит 1 P1 — игра решена выстрелом (W1)"
    assert row[5] == "не проводилась (W1)" and row[6] is None
    assert row[7] == "не проводилась (W1)" and row[8] is None
    assert row[9] == "1: 8, 9 — принят, чёрных: 2"  # RULES W1 INTERP: his best move was held
    assert ws.max_row == 2
