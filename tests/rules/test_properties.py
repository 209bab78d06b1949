"""Property tests: random games drawn from legal_actions (and mutations of them)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import (
    RuleViolation,
    apply,
    apply_in_place,
    legal_actions,
    new_state,
    replay,
)
from games.rules.simulate import build_action, random_action, random_game

SEATS = set(range(1, 11))


def _mutate(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A likely-wrong variant of a legal action (a field changed or dropped)."""
    a = json.loads(json.dumps(action))
    fields = [k for k in a if k != "do"]
    r = rng.random()
    if not fields or r < 0.1:
        a["do"] = rng.choice(["next", "votes", "shots", "nominate", "best_move", "lift_vote", "start", "seat"])
    elif r < 0.3:
        del a[rng.choice(fields)]
    else:
        key = rng.choice(fields)
        a[key] = rng.choice([rng.randint(0, 11), None, "3", [rng.randint(1, 10)], {str(rng.randint(1, 10)): [rng.randint(1, 10)]}])
    return a


def _check_invariants(s: Any, *, deep: bool = True) -> None:
    pub = s.public_dict()
    if deep:
        json.dumps(pub)
        json.dumps(s.record.to_dict())
    if s.players is not None:
        gone = [e["seat"] for e in pub["left"]]
        assert len(gone) == len(set(gone))
        assert sorted(pub["at_table"] + gone) == sorted(SEATS)
    if pub["status"] == "running":
        step = pub["step"]
        if step in ("speech", "tie_speech"):
            assert pub["speaker"] in pub["at_table"]
            assert pub["speech_seconds"] is not None
        elif step == "last_word":
            assert pub["speaker"] not in pub["at_table"]
            assert pub["speech_seconds"] == 60
        else:
            assert pub["speaker"] is None and pub["speech_seconds"] is None
        if pub["phase"] == "night":
            assert pub["nominees"] == []
        if step in ("voting", "lift_vote", "speech", "tie_speech"):
            assert set(pub["nominees"]) <= set(pub["at_table"])
        if pub["winner"] is not None:
            assert step == "last_word"  # W2: only the last word after the deciding moment
    elif pub["status"] in ("finished", "annulled"):
        assert pub["step"] == "finished" and pub["speaker"] is None
        assert legal_actions(s) == []
        if pub["status"] == "annulled":
            assert pub["winner"] is None
        else:
            assert pub["winner"] in ("red", "black", "draw")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False), mutate=st.floats(0, 0.3))
def test_random_legal_games(rng: random.Random, mutate: float) -> None:
    s = new_state()
    log: list[dict[str, Any]] = []
    for _ in range(400):
        if s.status not in ("setup", "running"):
            break
        action = random_action(s, rng)
        assert action is not None
        if rng.random() < mutate:
            action = _mutate(action, rng)
        before = s.snapshot()
        try:
            apply_in_place(s, action)
        except RuleViolation as exc:
            assert exc.code and exc.rule and exc.message
            assert s.snapshot() == before, f"refused {action} ({exc.code}) but the state changed"
            continue
        log.append(action)
        _check_invariants(s)
    # replay(log) equals applying one by one
    assert replay(log) == s
    # undo (replay of log[:-1]) then redo gives the same state
    if log:
        undone = replay(log[:-1])
        assert apply(undone, log[-1]).public_dict() == s.public_dict()
        assert apply(undone, log[-1]) == s


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_every_option_of_legal_actions_is_accepted_or_a_rule_violation(seed: int) -> None:
    """At each point of a random game try every kind legal_actions offers."""
    rng = random.Random(seed)
    log = random_game(rng, max_actions=120)
    state = new_state()
    for action in log:
        for option in legal_actions(state):
            candidate = build_action(option, state, rng)
            try:
                after = apply(state, candidate)
            except RuleViolation:
                continue
            _check_invariants(after, deep=False)
        apply_in_place(state, action)


def test_legal_actions_in_setup_and_steps() -> None:
    s = new_state()
    assert [o["do"] for o in legal_actions(s)] == ["seat", "roles"]
    s = replay([{"do": "seat", "players": [f"p{i}" for i in range(10)]}, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}])
    assert [o["do"] for o in legal_actions(s)] == ["seat", "roles", "start"]
    apply_in_place(s, {"do": "start"})
    kinds = [o["do"] for o in legal_actions(s)]
    assert kinds[0] == "next" and "nominate" not in kinds and "votes" not in kinds
    apply_in_place(s, {"do": "next"})
    apply_in_place(s, {"do": "next"})
    options = {o["do"]: o for o in legal_actions(s)}
    assert options["nominate"]["by"] == 1 and options["nominate"]["targets"] == list(range(1, 11))
    assert options["wink"]["by"] == [1, 2, 3, 4]
    apply_in_place(s, {"do": "nominate", "by": 1, "target": 5})
    options = {o["do"]: o for o in legal_actions(s)}
    assert options["nominate"]["targets"] == [5]  # D4: only «Поддерживается» left


def test_legal_actions_offer_no_next_on_votes() -> None:
    s = replay(
        [
            {"do": "seat", "players": [f"p{i}" for i in range(10)]},
            {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
            {"do": "start"},
            {"do": "next"},
            {"do": "next"},
            {"do": "nominate", "by": 1, "target": 5},
            {"do": "next"},
            {"do": "nominate", "by": 2, "target": 6},
            *[{"do": "next"}] * 9,
        ]
    )
    assert s.step == "voting"
    kinds = [o["do"] for o in legal_actions(s)]
    assert "next" not in kinds and "votes" in kinds
    vote = next(o for o in legal_actions(s) if o["do"] == "votes")
    assert vote["candidates"] == [5, 6] and vote["voters"] == list(range(1, 11))
