"""Readable protocol lines, step titles and copy-ready chat lines (no database)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from django.utils.translation import override

from games import reading
from games.console import protocol_text as pt
from games.rules import RuleViolation, apply, replay

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
SETUP = [
    {"do": "seat", "players": PLAYERS},
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
]


@pytest.fixture(autouse=True)
def russian():
    with override("ru"):
        yield


def load(examples_dir, name):
    data = json.loads((examples_dir / f"{name}.json").read_text())
    return [a for a in data["actions"] if a["do"] != "expect" and not a.get("reject")]


def texts(actions):
    return [line.full for line in pt.replay_lines(actions).lines]


def test_red_win_reads_as_a_protocol(examples_dir):
    lines = texts(load(examples_dir, "red_win"))
    assert lines[0].startswith("Подготовка: Рассадка: 1 Alpha, 2 Bravo")
    assert lines[1] == "Подготовка: Роли: Шериф №1, Дон №2, Мафия №3, №4"
    assert lines[2] == "Ночь 0: «В городе ночь» — договорка"
    assert "День 1: №1 выставил №3" in lines
    # V4: seat 4 did not vote, his vote goes to the last candidate (marked *).
    assert (
        "День 1: голосование: №3 — 7 (1, 5, 6, 7, 8, 9, 10); №4 — 3 (2, 3, 4*) (* не голосовал — голос последнему, V4) → покидает №3"
        in lines
    )
    assert "Ночь 1: выстрел в №5 (№2 → 5, №4 → 5)" in lines
    assert "Ночь 1: Дон проверил №1 — Шериф" in lines
    assert "Ночь 1: Шериф проверил №2 — чёрный" in lines
    assert "Ночь 1: лучший ход №5: 2, 4, 6 (чёрных: 2) → №5 покидает игру (убит ночью)" in lines
    assert "День 2: №6 выставил №2" in lines
    assert any(line.startswith("День 2: голосование: №2 — 8 (1, 2*, 4*, 6, 7, 8, 9, 10)") for line in lines)
    assert "Ночь 2: Шериф проверил №4 — чёрный → №1 покидает игру (убит ночью)" in lines
    assert lines[-2].endswith("→ покидает №4 → Победа красных")
    assert lines[-1] == "День 3: последнее слово №4 → игра окончена"


def test_every_example_has_a_line_per_action(examples_dir):
    for path in sorted(examples_dir.rglob("*.json")):
        actions = [a for a in json.loads(path.read_text())["actions"] if a["do"] != "expect" and not a.get("reject")]
        rep = pt.replay_lines(actions)
        assert not rep.refused, path
        assert len(rep.lines) == len(actions)
        assert all(line.text for line in rep.lines)
        assert rep.state.public_dict() == replay(actions).public_dict()


def test_miss_and_checks_without_answer():
    state = replay(SETUP + [{"do": "next"}, {"do": "next"}])
    lines = []
    for _ in range(10):
        before = state
        state = apply(state, {"do": "next"})
        lines.append(pt.describe({"do": "next"}, before, state, state.count - 1))
    # Nobody nominated: the Night comes; `next` on the shot is a miss.
    assert state.step == "mafia_shot"
    before = state
    state = apply(state, {"do": "next"})
    when, text, minor = pt.describe({"do": "next"}, before, state, state.count - 1)
    assert (when, text) == ("Ночь 1", "промах: никто не назван")


def test_penalty_lines_name_the_count_and_the_removal():
    actions = SETUP + [{"do": "foul", "seat": 7, "reason": "Флуд, спам"}] + [{"do": "foul", "seat": 7}] * 3
    lines = texts(actions)
    assert lines[3] == "Ночь 0: №7 — фол (1-й): Флуд, спам"
    assert lines[-1].startswith("Ночь 0: №7 — фол (4-й) → №7 покидает игру (удалён: 4 фола)")
    lines = texts(
        SETUP
        + [{"do": "warning", "seat": 5}, {"do": "grey_card", "seat": 5}, {"do": "ppk", "team": "black", "seat": 2}]
    )
    assert lines[3] == "Ночь 0: №5 — предупреждение (1-е)"
    assert lines[4] == "Ночь 0: №5 — серая карточка"
    assert lines[5] == "Ночь 0: ППК команде чёрных (№2)"


def test_step_titles_use_the_regulations_words():
    state = replay(SETUP)
    assert (pt.step_title(state).phase, pt.step_title(state).title) == ("В городе ночь", "Договорка")
    state = replay(SETUP + [{"do": "next"}])
    assert pt.step_title(state).title == "Свободная посадка"
    state = replay(SETUP + [{"do": "next"}, {"do": "next"}])
    t = pt.step_title(state)
    assert (t.phase, t.title, t.tone) == ("День 1", "Речь №1 · Alpha", "day")
    assert pt.step_title(replay(SETUP[:1])).phase == "Подготовка"


def test_chat_lines_for_the_vote(examples_dir):
    actions = load(examples_dir, "red_win")
    state = replay(actions[:17])  # the vote of Day 1
    assert state.step == "voting"
    chat = {c.key: c.text for c in pt.chat_lines(state, actions[16])}
    assert chat["candidates"] == "Кандидатуры: 3, 4"
    assert chat["line"] == "--------------"


def test_chat_lines_for_wink_best_move_and_fouls(examples_dir):
    state = replay(SETUP + [{"do": "wink", "by": 2, "target": 7}])
    chat = {c.key: c.text for c in pt.chat_lines(state, {"do": "wink", "by": 2, "target": 7})}
    assert chat["wink"] == "Вам мигнул 2"
    actions = load(examples_dir, "red_win")
    i = next(i for i, a in enumerate(actions) if a["do"] == "best_move")
    state = replay(actions[: i + 1])
    chat = {c.key: c.text for c in pt.chat_lines(state, actions[i])}
    assert chat["best_move"] == "Принято: 2, 4, 6"
    state = replay(SETUP + [{"do": "foul", "seat": 4}, {"do": "foul", "seat": 4}, {"do": "foul", "seat": 9}])
    chat = {c.key: c.text for c in pt.chat_lines(state)}
    assert chat["fouls"] == "Фолы: 4 — 2, 9 — 1"


def test_violation_text_names_the_rule_in_russian_and_english():
    exc = RuleViolation("not_current_speaker", "D3", {"speaker": 1, "by": 5})
    assert pt.violation_text(exc) == "Правило D3: Выставлять может только говорящий (№1), а не №5."
    with override("en"):
        assert "D3" in pt.violation_text(exc) and "only the current speaker" in pt.violation_text(exc)
    # An unknown code falls back to the engine's message, which names the rule.
    assert "X9" in pt.violation_text(RuleViolation("brand_new", "X9", {}))


def test_chat_texts_stay_russian_in_the_english_ui():
    state = replay(SETUP + [{"do": "foul", "seat": 4}, {"do": "wink", "by": 2, "target": 7}])
    with override("en"):
        chat = {c.key: c.text for c in pt.chat_lines(state, {"do": "wink", "by": 2, "target": 7})}
    # S4: the game's chat is Russian; the host copies these texts as they are.
    assert chat["wink"] == "Вам мигнул 2"
    assert chat["fouls"] == "Фолы: 4 — 1"


def test_cached_lines_follow_undo_and_new_actions():
    log = SETUP + [{"do": "foul", "seat": 3}, {"do": "foul", "seat": 4}]
    # games.reading keys its cache by the game (pk and creation time).
    game = SimpleNamespace(pk=-1, created_at=datetime(2026, 1, 1, tzinfo=UTC), seq=5)
    first = reading.replay_lines(log, pt.LINES, None, [1, 2, 3, 4, 5], game=game)
    assert first.lines[-1].full == "Ночь 0: №4 — фол (1-й)"
    # The last action undone (seq 5), a new one recorded (seq 7): only the
    # common prefix of seqs is reused.
    log2 = SETUP + [{"do": "foul", "seat": 3}, {"do": "warning", "seat": 9}]
    second = reading.replay_lines(log2, pt.LINES, None, [1, 2, 3, 4, 7], game=game)
    assert [line.full for line in second.lines] == [line.full for line in pt.replay_lines(log2).lines]
    assert second.state.public_dict() == replay(log2).public_dict()
    # Appending goes on from the cached state, loading only the new actions.
    loaded = []

    def load(start):
        loaded.append(start)
        return (log2 + [{"do": "next"}])[start:]

    third = reading.replay_lines(load, pt.LINES, None, [1, 2, 3, 4, 7, 8], game=game)
    assert loaded == [5]
    assert third.state.public_dict() == replay(log2 + [{"do": "next"}]).public_dict()
    assert third.lines[-1].full == "Ночь 0: договорка окончена"
