"""Random legal games, built only from ``legal_actions`` (benchmarks, property
tests, demo data). Deterministic for a given ``random.Random``."""

from __future__ import annotations

import random
from typing import Any

from games.rules.engine import apply_in_place, legal_actions
from games.rules.errors import RuleViolation
from games.rules.state import GameState

Action = dict[str, Any]

# Relative weights of the action kinds when several are legal.
DEFAULT_WEIGHTS: dict[str, float] = {
    "seat": 1,
    "roles": 1,
    "start": 1,
    "next": 30,
    "nominate": 8,
    "votes": 30,
    "lift_vote": 30,
    "shots": 30,
    "don_check": 20,
    "sheriff_check": 20,
    "best_move": 20,
    "foul": 0.6,
    "warning": 0.1,
    "grey_card": 0.1,
    "disqualify": 0.05,
    "remove": 0.03,
    "wink": 0.3,
    "tech_pause": 0.2,
    "ppk": 0.01,
    "annul": 0.01,
}


# A profile that drives games to their decisive moments: many removals, also
# on the steps where the readings of RULES W1/W2 matter (a Night after its
# shot, a last word), and sure shots — so Nights decided by their shot (W1)
# and removals deciding the game during a last word (W2 INTERP) are common.
ENDGAME_WEIGHTS: dict[str, float] = {
    **DEFAULT_WEIGHTS,
    "nominate": 12,
    "foul": 1.5,
    "warning": 0.6,
    "disqualify": 1.2,
    "remove": 1.0,
    "ppk": 0.0,
    "annul": 0.0,
}


def build_action(option: Action, state: GameState, rng: random.Random, hit: float = 0.75) -> Action:
    """One concrete action from a ``legal_actions`` option."""
    do = option["do"]
    if do == "seat":
        return {"do": "seat", "players": [f"Player{i}" for i in range(1, 11)]}
    if do == "roles":
        seats = rng.sample(range(1, 11), 4)
        return {"do": "roles", "sheriff": seats[0], "don": seats[1], "mafia": sorted(seats[2:])}
    if do == "nominate":
        return {"do": "nominate", "by": option["by"], "target": rng.choice(option["targets"])}
    if do == "votes":
        candidates = option["candidates"]
        split: dict[str, list[int]] = {str(c): [] for c in candidates if rng.random() < 0.8}
        keys = list(split)
        if keys:
            favourite = rng.choice(keys)
            for voter in option["voters"]:
                r = rng.random()
                if r < 0.15:
                    continue  # V4: goes to the last candidate
                split[favourite if r < 0.5 else rng.choice(keys)].append(voter)
        return {"do": "votes", "for": split}
    if do == "lift_vote":
        return {"do": "lift_vote", "yes": [v for v in option["voters"] if rng.random() < 0.5]}
    if do == "shots":
        blacks, targets = option["blacks"], option["targets"]
        target = rng.choice(targets)
        by: dict[str, int | None] = {}
        for b in blacks:
            r = rng.random()
            if r < hit:
                by[str(b)] = target
            elif r < hit + (1 - hit) * 0.4:
                by[str(b)] = None
            elif r < hit + (1 - hit) * 0.8:
                by[str(b)] = rng.choice(targets)
            # else: not listed — named nobody
        return {"do": "shots", "by": by}
    if do in ("don_check", "sheriff_check"):
        return {"do": do, "target": rng.choice(option["targets"])}
    if do == "best_move":
        r = rng.random()
        if r < 0.1:
            return {"do": "best_move", "pass": True}
        if r < 0.2:
            return {"do": "best_move", "accepted": False}
        return {
            "do": "best_move",
            "seats": [rng.choice(option["targets"]) for _ in range(rng.randint(0, option.get("max", 3)))],
        }
    if do in ("foul", "warning", "grey_card", "disqualify", "remove"):
        return {"do": do, "seat": rng.choice(option["seats"]), "reason": "random"}
    if do == "wink":
        by_seat = rng.choice(option["by"])
        targets = [t for t in option["targets"] if t != by_seat] or option["targets"]
        return {"do": "wink", "by": by_seat, "target": rng.choice(targets)}
    if do == "tech_pause":
        return {"do": "tech_pause", "seat": rng.choice(option["seats"])}
    if do == "ppk":
        team = rng.choice(option["teams"])
        action: Action = {"do": "ppk", "team": team}
        if rng.random() < 0.5:
            seats = [s for s in range(1, 11) if state.team_of(s) == team]
            action["seat"] = rng.choice(seats)
        return action
    return {"do": do}


def random_action(
    state: GameState, rng: random.Random, weights: dict[str, float] | None = None, hit: float = 0.75
) -> Action | None:
    options = legal_actions(state)
    if not options:
        return None
    w = weights or DEFAULT_WEIGHTS
    if state.status == "setup":
        # seat, roles, start in order (a repeat would only replace them)
        kinds = [o["do"] for o in options]
        if state.players is None:
            return build_action({"do": "seat"}, state, rng)
        if not state.roles:
            return build_action({"do": "roles"}, state, rng)
        if "start" in kinds:
            return {"do": "start"}
    option = rng.choices(options, weights=[w.get(o["do"], 1.0) for o in options])[0]
    return build_action(option, state, rng, hit)


def random_game(
    rng: random.Random | int,
    *,
    max_actions: int = 2000,
    weights: dict[str, float] | None = None,
    hit: float = 0.75,
    state: GameState | None = None,
) -> list[Action]:
    """A random legal log (until the game ends or ``max_actions``)."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    s = state or GameState()
    log: list[Action] = []
    while len(log) < max_actions and s.status in ("setup", "running"):
        action = random_action(s, rng, weights, hit)
        if action is None:
            break
        try:
            apply_in_place(s, action)
        except RuleViolation:
            continue  # an option the dict could not fully express (rare): draw again
        log.append(action)
    return log


def log_with_checkpoints(actions: list[Action], *, name: str | None = None, regulations: Any = None) -> dict[str, Any]:
    """A protocol log file (FORMAT.md) of ``actions`` with an ``expect`` of
    ``step`` and ``speaker`` after every action and of the final state at the
    end, like shared/protocol-log/examples/random. The checkpoints are what
    this engine computes: a file to hand to another implementation, or to
    replay after a JSON round trip."""
    s = GameState(regulations)
    out: list[Action] = []
    for action in actions:
        apply_in_place(s, action)
        out.append(action)
        out.append({"do": "expect", "step": s.step, "speaker": s.speaker})
    final = s.public_dict()
    out.append(
        {
            "do": "expect",
            **{k: final[k] for k in ("status", "winner", "at_table", "left", "fouls", "checks", "best_move")},
        }
    )
    data: dict[str, Any] = {"format": "mafia-protocol-log/1"}
    if name:
        data["name"] = name
    data["actions"] = out
    return data
