"""Issue 23: the game's words live in games.vocabulary, once, and cover every code the engine produces.

Random legal games (games.rules.simulate) are played through the engine and
every step, way of leaving, penalty kind, role, status and winner they reach
must have its word in both languages — so adding a kind to the engine without
its word fails here, not on a page.
"""

from __future__ import annotations

import pytest
from django.utils.translation import override

from games import vocabulary
from games.console import forms
from games.rules import apply_in_place, engine, new_state, schema
from games.rules.regulations import Regulations
from games.rules.simulate import random_game

WORD_TABLES = {
    "ROLES": vocabulary.ROLES,
    "TEAMS_OF": vocabulary.TEAMS_OF,
    "WINNERS": vocabulary.WINNERS,
    "HOW_LEFT": vocabulary.HOW_LEFT,
    "HOW_LEFT_PUBLIC": vocabulary.HOW_LEFT_PUBLIC,
    "PENALTIES": vocabulary.PENALTIES,
    "STEPS": vocabulary.STEPS,
    "STATUSES": vocabulary.STATUSES,
}


def _codes_the_engine_produces(games: int = 60) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {
        "steps": set(),
        "how": set(),
        "penalties": set(),
        "roles": set(),
        "status": set(),
        "winner": set(),
    }
    for seed in range(games):
        state = new_state()
        for action in random_game(seed):
            apply_in_place(state, action)
            if state.step:
                seen["steps"].add(state.step)
            seen["status"].add(state.status)
        seen["how"].update(e["how"] for e in state.left if e.get("how"))
        seen["penalties"].update(e["kind"] for e in state.record.penalties if e.get("kind"))
        seen["roles"].update(state.roles.values())
        if state.winner:
            seen["winner"].add(state.winner)
    return seen


@pytest.fixture(scope="module")
def produced() -> dict[str, set[str]]:
    return _codes_the_engine_produces()


def test_every_code_the_engine_produces_has_its_word(produced):
    assert produced["steps"] >= {"speech", "voting", "mafia_shot", "last_word"}, (
        "the random games are too short to mean anything"
    )
    assert produced["steps"] <= set(vocabulary.STEPS), produced["steps"] - set(vocabulary.STEPS)
    assert produced["how"] <= set(vocabulary.HOW_LEFT), produced["how"] - set(vocabulary.HOW_LEFT)
    assert set(vocabulary.HOW_LEFT) == set(vocabulary.HOW_LEFT_PUBLIC)
    assert produced["penalties"] <= set(vocabulary.PENALTIES), produced["penalties"] - set(vocabulary.PENALTIES)
    assert produced["roles"] <= set(vocabulary.ROLES)
    assert produced["status"] <= set(vocabulary.STATUSES)
    assert produced["winner"] <= set(vocabulary.WINNERS)


def test_the_kind_lists_are_derived_from_the_engine_once():
    # One list of action kinds: the engine's handlers, the schema and the console's form.
    assert set(engine.ACTION_KINDS) == set(schema.ACTION_KINDS) == set(forms.ACTION_KINDS)
    assert (*engine.PENALTY_KINDS, "remove") == forms.PENALTY_KINDS
    assert set(vocabulary.SEAT_PENALTY_KINDS) | {"ppk"} == set(vocabulary.PENALTIES)
    assert set(forms.PENALTY_KINDS) <= set(schema.ACTION_KINDS)


@pytest.mark.parametrize("name", sorted(WORD_TABLES))
def test_every_word_is_translated_to_english(name):
    table = WORD_TABLES[name]
    say = table.public if name.endswith("_PUBLIC") else table
    for code in table:
        ru, en = say(code, "ru"), say(code, "en")
        assert ru and en, (name, code)
        if ru != "ППК":
            assert ru != en, f"{name}[{code}] has no English translation: {ru!r}"


def test_the_language_is_a_parameter_and_the_active_one_by_default():
    with override("en"):
        assert vocabulary.ROLES("sheriff") == "Sheriff"
        assert vocabulary.ROLES("sheriff", "ru") == "Шериф"
        assert vocabulary.when(2, "night") == "Night 2"
    assert vocabulary.when(2, "night", "ru") == "Ночь 2"
    assert vocabulary.when(None, None, "ru") == "Подготовка"


def test_the_public_board_names_the_shot_in_its_own_context():
    """The generic «shot at night» reads as a night action on a public surface (tests/test_board_leaks.py)."""
    assert vocabulary.HOW_LEFT("shot", "en") == "shot at night"
    assert "shot" not in vocabulary.HOW_LEFT_PUBLIC.public("shot", "en").lower()
    assert vocabulary.STEPS.public("dogovorka", "en") != vocabulary.STEPS("dogovorka", "en")


def test_unknown_codes_fall_back_to_the_code_or_the_default():
    assert vocabulary.HOW_LEFT("vanished") == "vanished"
    assert vocabulary.ROLES("ghost", default="") == ""
    assert vocabulary.STEPS.public("nonsense") == ""


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0:00"),
        (1, "0:01"),
        (999, "0:01"),
        (1000, "0:01"),
        (1001, "0:02"),
        (60000, "1:00"),
        (61500, "1:02"),
        (-5, "0:00"),
    ],
)
def test_clock_text_rounds_up_to_the_second(ms, text):
    assert vocabulary.clock_text(ms) == text


# --- the engine answers what its readers asked by re-deriving it (issue 23, item 4) ------------


@pytest.mark.parametrize(
    ("majority", "at_table", "needed"),
    [
        ("more_than_half", 9, 5),
        ("more_than_half", 8, 5),
        ("half_or_more", 8, 4),
        ("half_or_more", 7, 4),
        ("more_than_half", 0, 0),
    ],
)
def test_the_lift_vote_threshold(majority, at_table, needed):
    reg = Regulations(lift_majority=majority)
    assert reg.lift_votes_needed(at_table) == needed
    if at_table:
        assert reg.lift_passes(needed, at_table) and not reg.lift_passes(needed - 1, at_table)


def test_a_lone_candidate_on_day_1_has_no_vote():
    state = new_state()
    for a in (
        {"do": "seat", "players": [f"P{i}" for i in range(1, 11)]},
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
    ):
        apply_in_place(state, a)
    while state.step != "speech":
        apply_in_place(state, {"do": "next"})
    assert not state.vote_follows()  # nobody nominated
    apply_in_place(state, {"do": "nominate", "by": state.speaker, "target": 5})
    assert state.lone_candidate_on_day1() and not state.vote_follows()  # V5
    apply_in_place(state, {"do": "next"})
    apply_in_place(state, {"do": "nominate", "by": state.speaker, "target": 6})
    assert not state.lone_candidate_on_day1() and state.vote_follows()
