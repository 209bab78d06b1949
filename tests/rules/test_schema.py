"""The input schema (games/rules/schema.py): keys, types and limits of every
host action, and bounded JSON parsing. Pure: no database."""

from __future__ import annotations

import json

import pytest

from games.rules import RuleViolation, replay
from games.rules.schema import (
    MAX_ACTION_BYTES,
    MAX_DEPTH,
    SCHEMA,
    JSONInputError,
    parse_action_json,
    parse_json,
    parse_log_bytes,
    validate_action,
    validate_log,
)

PLAYERS = [f"Игрок{i}" for i in range(1, 11)]


def refused(action, *, index=None, allow_expect=False) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        validate_action(action, index=index, allow_expect=allow_expect)
    exc = info.value
    assert exc.code == "bad_action" and exc.rule == "FORMAT"
    assert exc.params["problem"] and exc.params["problem_ru"]
    return exc


# --- accepted -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        {"do": "seat", "players": PLAYERS},
        {"do": "seat", "players": PLAYERS, "seed": "9f2c1a0b7d3e4f51"},
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "nominate", "by": 1, "target": 2},
        {"do": "votes", "for": {"2": [1, 3], "5": []}},
        {"do": "votes", "for": {}},
        {"do": "lift_vote", "yes": []},
        {"do": "shots", "by": {"2": 5, "3": None}},
        {"do": "don_check", "target": 10},
        {"do": "sheriff_check", "target": 1},
        {"do": "best_move", "seats": [1, 2, 3]},
        {"do": "best_move", "accepted": False},
        {"do": "best_move", "pass": True},
        {"do": "foul", "seat": 3},
        {"do": "foul", "seat": 3, "reason": "выкрик\nво время речи", "reason_code": "speech_out_of_turn"},
        {"do": "warning", "seat": 3, "reason": None},
        {"do": "grey_card", "seat": 3, "reason_code": "religious_set_phrase"},
        {"do": "disqualify", "seat": 3, "reason": "x" * 300},
        {"do": "remove", "seat": 3, "reason": "связь"},
        {"do": "ppk", "team": "black", "seat": 2, "reason_code": "beacons"},
        {"do": "ppk", "team": "red"},
        {"do": "wink", "by": 2, "target": 5},
        {"do": "tech_pause", "seat": 4},
        {"do": "annul", "reason": "сервер упал"},
        {"do": "next", "reject": True},
    ],
)
def test_every_documented_action_passes(action):
    assert validate_action(action) == action


def test_every_action_kind_of_format_md_has_a_schema():
    from games.rules.engine import _HANDLERS  # the engine's own list of kinds

    assert set(_HANDLERS) == set(SCHEMA) - {"expect"}


def test_nicknames_are_trimmed_before_storing():
    players = [f"  {p}\t" for p in PLAYERS]
    assert validate_action({"do": "seat", "players": players})["players"] == PLAYERS


def test_expect_is_accepted_only_in_a_log_file():
    refused({"do": "expect", "step": "speech"})
    assert validate_action({"do": "expect", "step": "speech", "speaker": 3}, allow_expect=True)["speaker"] == 3


# --- refused, naming index and field ---------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"do": "next", "junk": "x"}, "junk"),
        ({"do": "foul", "seat": True}, "seat"),
        ({"do": "foul", "seat": 3.0}, "seat"),
        ({"do": "foul", "seat": "3"}, "seat"),
        ({"do": "foul", "seat": 0}, "seat"),
        ({"do": "foul", "seat": 11}, "seat"),
        ({"do": "foul"}, "seat"),
        ({"do": "foul", "seat": 3, "reason": "x" * 301}, "reason"),
        ({"do": "foul", "seat": 3, "reason": "a\x00b"}, "reason"),
        ({"do": "foul", "seat": 3, "reason": "a\tb"}, "reason"),
        ({"do": "foul", "seat": 3, "reason": "\ud800"}, "reason"),
        ({"do": "foul", "seat": 3, "reason": 5}, "reason"),
        ({"do": "foul", "seat": 3, "reason_code": "no_such_code"}, "reason_code"),
        ({"do": "annul", "reason_code": "beacons"}, "reason_code"),
        ({"do": "seat", "players": [*PLAYERS[:9], "x" * 65]}, "players[9]"),
        ({"do": "seat", "players": [*PLAYERS[:9], "   "]}, "players[9]"),
        ({"do": "seat", "players": [*PLAYERS[:9], PLAYERS[0].upper()]}, "players[9]"),
        ({"do": "seat", "players": ["A"] * 10}, "players[1]"),
        ({"do": "seat", "players": [*PLAYERS[:9], "x\x1by"]}, "players[9]"),
        ({"do": "seat", "players": PLAYERS + ["K"]}, "players"),
        ({"do": "seat", "players": "A B C"}, "players"),
        ({"do": "seat", "players": PLAYERS, "seed": ""}, "seed"),
        ({"do": "roles", "sheriff": 1, "don": 2, "mafia": 3}, "mafia"),
        ({"do": "votes", "for": {"11": [1]}}, "for"),
        ({"do": "votes", "for": {"01": [1]}}, "for"),
        ({"do": "votes", "for": {"2": [1.5]}}, "for[2][0]"),
        ({"do": "votes", "for": [[2, 1]]}, "for"),
        ({"do": "shots", "by": {"2": "5"}}, "by[2]"),
        ({"do": "best_move", "accepted": 0}, "accepted"),
        ({"do": "best_move", "pass": "yes"}, "pass"),
        ({"do": "best_move", "seats": list(range(1, 12))}, "seats"),
        ({"do": "ppk", "team": "green"}, "team"),
        ({"do": "ppk", "team": ["red"]}, "team"),
        ({"do": "next", "reject": 1}, "reject"),
        ({"do": 5}, "do"),
        ({"do": "fly"}, "do"),
        ({}, "do"),
        ({"do": "next", "junk": "x" * (MAX_ACTION_BYTES + 1)}, "action"),
        ({"do": "next", "x": float("nan")}, "action"),
    ],
)
def test_malformed_action_is_refused_naming_index_and_field(action, field):
    exc = refused(action, index=7)
    assert exc.params["field"] == field
    assert exc.params["index"] == 7
    assert "action 7" in exc.message and repr(field) in exc.message


@pytest.mark.parametrize("value", [None, 5, "next", [{"do": "next"}], True])
def test_an_action_that_is_not_an_object_is_refused(value):
    assert refused(value, index=0).params["field"] == "action"


# --- bounded JSON ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ('{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1), "nested deeper"),
        ('{"do": "foul", "seat": ' + "9" * 5000 + "}", "integer of more than"),
        ('{"do": "foul", "seat": ' + "9" * 4300 + "}", "integer of more than"),
        ('{"do": "next", "x": NaN}', "NaN"),
        ('{"do": "next", "x": Infinity}', "Infinity"),
        ('{"do": "next", "x": -Infinity}', "Infinity"),
        ('{"do": "next", "x": 1e999}', "out of range"),
        ('{"do": "next", "do": "start"}', "twice"),
        ('{"do": "next"', "not JSON"),
        ("", "not JSON"),
    ],
)
def test_untrusted_json_is_refused_with_bounded_work(raw, why):
    with pytest.raises(JSONInputError, match=why):
        parse_json(raw, max_bytes=10**7)


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"do": "annul", "reason": "[[[[" * 60 + '"\\' + "{{{{" * 60})
    assert parse_json(text, max_bytes=10**6)["do"] == "annul"


def test_json_size_is_capped_before_parsing():
    with pytest.raises(JSONInputError, match="larger than"):
        parse_json(b" " * 101, max_bytes=100)
    with pytest.raises(JSONInputError, match="larger than"):
        parse_json("[" + "1," * 60 + "1]", max_bytes=100)


def test_bytes_must_be_utf8():
    with pytest.raises(JSONInputError, match="not UTF-8"):
        parse_json('{"name": "Игра"}'.encode("cp1251"), max_bytes=1000)
    assert parse_json('\ufeff{"a": 1}'.encode(), max_bytes=1000) == {"a": 1}


def test_action_json_refusal_is_a_bad_action_naming_the_action_field():
    with pytest.raises(RuleViolation) as info:
        parse_action_json("[" * 50_000)
    assert info.value.code == "bad_action" and info.value.params["field"] == "action"


# --- log files -------------------------------------------------------------------------------


def test_log_file_ignores_top_level_keys_other_than_format_and_actions():
    data = {
        "format": "mafia-protocol-log/1",
        "name": {"any": ["thing"]},
        "seed": 5,
        "actions": [{"do": "seat", "players": PLAYERS}],
    }
    assert validate_log(data) == data["actions"]


@pytest.mark.parametrize(
    ("data", "field", "index"),
    [
        ([], "log", None),
        ({"actions": {}}, "actions", None),
        ({"format": "other/2", "actions": []}, "format", None),
        ({"actions": [{"do": "start"}, 5]}, "action", 1),
        ({"actions": [{"do": "start"}, None]}, "action", 1),
        ({"actions": [{"do": "start"}, {"do": "next"}, {"do": "foul", "seat": 2, "reason": "y" * 301}]}, "reason", 2),
    ],
)
def test_malformed_log_is_refused_naming_the_position(data, field, index):
    with pytest.raises(RuleViolation) as info:
        validate_log(data)
    assert info.value.params["field"] == field and info.value.params["index"] == index


def test_log_bytes_refusals_are_one_line_rule_violations():
    for raw in (b"\xff\xfe", b"[" * 100_000, b'{"actions": [' + b"9" * 4300 + b"]}"):
        with pytest.raises(RuleViolation) as info:
            parse_log_bytes(raw)
        assert "\n" not in info.value.message


def test_examples_pass_the_schema(examples_dir):
    for path in sorted(examples_dir.rglob("*.json")):
        data, actions = parse_log_bytes(path.read_bytes())
        assert len(actions) == len(data["actions"]), path


def test_schema_checked_actions_still_replay(examples_dir):
    data, actions = parse_log_bytes((examples_dir / "red_win.json").read_bytes())
    state = replay(actions)
    assert state.status == "finished"
