"""S1, S2, S3, N0 and the format-level refusals (rule "FORMAT"), T clocks, API."""

from __future__ import annotations

import pytest

from games.rules import (
    DEFAULT_REGULATIONS,
    MESSAGES,
    Regulations,
    RuleViolation,
    apply,
    legal_actions,
    new_state,
    replay,
)
from tests.rules.helpers import PLAYERS, G, table


def test_s1_setup_state_before_start() -> None:
    s = new_state()
    assert s.public_dict() == {
        "status": "setup",
        "day": None,
        "phase": None,
        "step": None,
        "speaker": None,
        "speech_seconds": None,
        "at_table": [],
        "left": [],
        "nominees": [],
        "fouls": {},
        "winner": None,
        "ppk": None,
        "best_move": None,
        "checks": [],
    }
    s = apply(s, {"do": "seat", "players": PLAYERS})
    assert s.public_dict()["at_table"] == table()
    assert s.players == PLAYERS


def test_s1_seat_needs_ten_nicknames() -> None:
    g = G(start=False)
    exc = g.refuse("seat", players=PLAYERS[:9])
    assert (exc.rule, exc.code) == ("S1", "bad_players")
    assert g.refuse("seat", players=[*PLAYERS[:9], 7]).code == "bad_players"
    assert g.refuse("seat").code == "bad_players"


def test_s1_repeated_seat_and_roles_replace_the_earlier_ones() -> None:
    g = G(start=False)
    g.do("seat", players=PLAYERS).do("seat", players=list(reversed(PLAYERS)))
    g.do("roles", sheriff=1, don=2, mafia=[3, 4]).do("roles", sheriff=5, don=6, mafia=[7, 8])
    assert g.s.players[0] == "P10"
    assert g.s.roles[5] == "sheriff" and g.s.roles[1] == "civilian"


def test_s1_start_needs_seating_and_roles() -> None:
    g = G(start=False)
    assert g.refuse("start").code == "not_seated"
    g.do("seat", players=PLAYERS)
    exc = g.refuse("start")
    assert (exc.rule, exc.code) == ("S2", "no_roles")
    g.do("roles", sheriff=1, don=2, mafia=[3, 4]).do("start")
    g.expect(status="running", phase="night", day=0, step="dogovorka", speaker=None, speech_seconds=None)


def test_s2_roles_on_four_distinct_seats() -> None:
    g = G(start=False)
    exc = g.refuse("roles", sheriff=1, don=1, mafia=[3, 4])
    assert (exc.rule, exc.code) == ("S2", "roles_not_distinct")
    assert g.refuse("roles", sheriff=1, don=2, mafia=[3, 3]).code == "roles_not_distinct"
    assert g.refuse("roles", sheriff=1, don=2, mafia=[3]).rule == "FORMAT"
    assert g.refuse("roles", sheriff=11, don=2, mafia=[3, 4]).code == "bad_seat"


def test_s1_no_game_action_before_start_and_no_setup_after() -> None:
    g = G(start=False)
    g.do("seat", players=PLAYERS)
    exc = g.refuse("next")
    assert (exc.rule, exc.code) == ("S1", "game_not_started")
    assert g.refuse("foul", seat=1).code == "game_not_started"
    g = G()
    assert g.refuse("seat", players=PLAYERS).code == "not_in_setup"
    assert g.refuse("roles", sheriff=1, don=2, mafia=[3, 4]).code == "not_in_setup"
    assert g.refuse("start").code == "not_in_setup"


def test_s3_player_not_ready_removed_in_n0_without_replacement() -> None:
    g = G()
    g.do("remove", seat=1, reason="not_ready")
    g.expect(at_table=table(1), left=[{"seat": 1, "how": "removed", "day": 0, "phase": "night"}], step="dogovorka")
    g.to_day1()
    # D2: Day 1 opens with the first seat still at the table.
    g.expect(day=1, step="speech", speaker=2)


def test_n0_dogovorka_then_free_seating_then_day1() -> None:
    g = G()
    g.expect(step="dogovorka", phase="night", day=0)
    assert g.s.step_seconds == 60
    g.next().expect(step="free_seating", phase="night", day=0)
    assert g.s.step_seconds == 60
    g.next().expect(step="speech", phase="day", day=1, speaker=1, speech_seconds=60)


def test_format_malformed_actions_are_refused() -> None:
    g = G().to_day1()
    for action in (
        {"do": "fly"},
        {"do": "nominate", "by": "1", "target": 2},
        {"do": "nominate", "by": 1, "target": 11},
        {"do": "nominate", "by": 1, "target": 0},
        {"do": "nominate", "by": 1, "target": True},
        {"do": "nominate", "by": 1},
        {"do": "foul", "seat": 3, "reason": 5},
        {"do": "ppk", "team": "green"},
    ):
        do = action.pop("do")
        exc = g.refuse(do, **action)
        assert exc.rule == "FORMAT", (do, action, exc)
    before = g.s.snapshot()
    with pytest.raises(RuleViolation) as info:
        apply(g.s, ["next"])  # type: ignore[arg-type]
    assert info.value.code == "bad_action"
    with pytest.raises(RuleViolation) as info:
        apply(g.s, {"do": "expect", "step": "speech"})
    assert info.value.code == "expect_not_applied"
    assert g.s.snapshot() == before


def test_format_extra_keys_are_ignored() -> None:
    g = G().to_day1()
    g.do("nominate", by=1, target=2, note="free text", reject=False)
    g.expect(nominees=[2])


def test_format_next_only_on_the_listed_steps() -> None:
    g = G().to_day1().speeches({1: 2, 3: 4})
    g.expect(step="voting")
    exc = g.refuse("next")
    assert (exc.rule, exc.code) == ("V2", "next_not_allowed")


def test_format_nothing_after_the_game_is_over() -> None:
    g = G().to_day1().do("annul", reason="outsider")
    exc = g.refuse("next")
    assert (exc.rule, exc.code) == ("W6", "game_over")
    assert g.refuse("seat", players=PLAYERS).code == "game_over"
    assert legal_actions(g.s) == []


def test_apply_never_modifies_its_input() -> None:
    g = G().to_day1()
    before = g.s.snapshot()
    after = apply(g.s, {"do": "nominate", "by": 1, "target": 3})
    after = apply(after, {"do": "foul", "seat": 2})
    assert g.s.snapshot() == before
    assert after.public_dict()["nominees"] == [3]
    assert after.record.nominations and not g.s.record.nominations


def test_copy_is_independent() -> None:
    g = G().to_day1()
    c = g.s.copy()
    g.nom(1, 4).do("foul", seat=3).next()
    assert c.public_dict()["nominees"] == []
    assert c.fouls == {}
    assert c.speaker == 1
    assert c.snapshot() != g.s.snapshot()


def test_replay_equals_one_by_one_and_skips_expect() -> None:
    g = G().to_day1().speeches({2: 3})
    with_expect = [*g.log[:4], {"do": "expect", "step": "speech"}, *g.log[4:]]
    assert replay(with_expect) == g.s


def test_t_step_seconds_follow_the_t_table() -> None:
    g = G()
    assert g.s.step_seconds == 60  # dogovorka
    g.to_day1()
    assert g.s.step_seconds == 60  # speech
    g.speeches({1: 2})
    assert g.s.step == "mafia_shot" and g.s.step_seconds == 15  # V5: Day 1, one candidate
    g.shots({8: 1, 9: 1, 10: 1})
    assert g.s.step == "don_check" and g.s.step_seconds == 15
    g.next()
    assert g.s.step == "sheriff_check" and g.s.step_seconds == 15
    g.next()
    assert g.s.step == "best_move" and g.s.step_seconds == 20
    g.next()
    assert g.s.step == "last_word" and g.s.step_seconds == 60


def test_regulations_round_trip_and_defaults() -> None:
    r = Regulations()
    assert r == DEFAULT_REGULATIONS
    assert (r.speech, r.speech_short, r.tie_speech, r.last_word, r.best_move, r.tech_pause) == (60, 30, 30, 60, 20, 120)
    assert (r.winks_per_player, r.fouls_to_remove, r.warnings_to_remove, r.lift_majority) == (2, 4, 2, "more_than_half")
    assert Regulations.from_dict(r.to_dict()) == r
    custom = Regulations.from_dict({"speech": 45, "lift_majority": "half_or_more", "unknown": 1})
    assert custom.speech == 45 and custom.lift_majority == "half_or_more"
    with pytest.raises(ValueError):
        Regulations.from_dict({"lift_majority": "two_thirds"})
    with pytest.raises(ValueError):
        Regulations.from_dict({"speech": "60"})


def test_regulations_change_the_clocks() -> None:
    g = G(regulations=Regulations(speech=45)).to_day1()
    g.expect(speech_seconds=45)


def test_errors_every_code_has_a_message_and_str_is_message() -> None:
    exc = RuleViolation("not_current_speaker", "D3", {"speaker": 4, "by": 2})
    assert str(exc) == exc.message == "Rule D3: only the current speaker (seat 4) may nominate; seat 2 may not."
    assert exc.to_dict()["code"] == "not_current_speaker"
    assert all(isinstance(v, str) and v for v in MESSAGES.values())


def test_errors_every_refusal_code_is_in_messages() -> None:
    """Walk through many refusals: each code is enumerable in MESSAGES."""
    g = G().to_day1()
    codes = {
        g.refuse("nominate", by=2, target=3).code,
        g.refuse("votes", **{"for": {}}).code,
        g.refuse("wink", by=1, target=2).code,
        g.refuse("fly").code,
        g.refuse("nominate", by=1, target=99).code,
    }
    assert codes <= set(MESSAGES)
