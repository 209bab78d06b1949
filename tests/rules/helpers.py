"""A small builder for rule tests: "given these actions, expect this state or
this refusal". Pure Python, no database."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from games.rules import (
    GameState,
    Regulations,
    RuleViolation,
    apply_in_place,
    new_state,
    replay,
)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SHARED_DIR = Path(os.environ.get("SHARED_DIR", PROJECT_ROOT.parent / "shared")).resolve()
EXAMPLES_DIR = SHARED_DIR / "protocol-log" / "examples"
PLAYERS = [f"P{i}" for i in range(1, 11)]


class G:
    """A game under test; every action is applied in place and logged."""

    def __init__(
        self,
        sheriff: int = 5,
        don: int = 8,
        mafia: tuple[int, int] = (9, 10),
        *,
        regulations: Regulations | None = None,
        start: bool = True,
    ) -> None:
        self.s: GameState = new_state(regulations)
        self.log: list[dict[str, Any]] = []
        self.regulations = regulations
        if start:
            self.do("seat", players=list(PLAYERS))
            self.do("roles", sheriff=sheriff, don=don, mafia=list(mafia))
            self.do("start")

    # --- acting -------------------------------------------------------------------
    def do(self, do: str, **kw: Any) -> G:
        action = {"do": do, **kw}
        apply_in_place(self.s, action)
        self.log.append(action)
        return self

    def next(self, n: int = 1) -> G:
        for _ in range(n):
            self.do("next")
        return self

    def nom(self, by: int, target: int) -> G:
        return self.do("nominate", by=by, target=target)

    def vote(self, mapping: dict[int, list[int]]) -> G:
        return self.do("votes", **{"for": {str(k): v for k, v in mapping.items()}})

    def lift(self, yes: list[int]) -> G:
        return self.do("lift_vote", yes=yes)

    def shots(self, by: dict[int, int | None]) -> G:
        return self.do("shots", by={str(k): v for k, v in by.items()})

    def refuse(self, do: str, **kw: Any) -> RuleViolation:
        """The action must be refused with the state (all of it) unchanged."""
        action = {"do": do, **kw}
        before = self.s.snapshot()
        with pytest.raises(RuleViolation) as info:
            apply_in_place(self.s, action)
        assert self.s.snapshot() == before, "a refused action changed the state"
        return info.value

    # --- moving through the game ------------------------------------------------------
    def to_day1(self) -> G:
        return self.next(2)

    def speeches(self, noms: dict[int, int] | None = None) -> G:
        """Run the remaining speech steps of the Day; ``noms`` {by: target}."""
        noms = noms or {}
        while self.s.step == "speech":
            if self.s.speaker in noms:
                self.nom(self.s.speaker, noms[self.s.speaker])
            self.next()
        return self

    def night(
        self,
        shots: dict[int, int | None] | None = None,
        don: int | None = None,
        sheriff: int | None = None,
        best_move: dict[str, Any] | None = None,
    ) -> G:
        """Run a Night to its end (the morning last word is left running)."""
        assert self.s.step == "mafia_shot", self.s.step
        if shots is None:
            self.next()
        else:
            self.shots(shots)
        if self.s.step == "don_check":
            self.do("don_check", target=don) if don else self.next()
        if self.s.step == "sheriff_check":
            self.do("sheriff_check", target=sheriff) if sheriff else self.next()
        if self.s.step == "best_move":
            self.do("best_move", **best_move) if best_move else self.next()
        return self

    def quiet_night(self) -> G:
        """A Night with a miss and no checks, then the morning (and the next Day)."""
        return self.night()

    # --- looking ------------------------------------------------------------------------
    @property
    def pub(self) -> dict[str, Any]:
        return self.s.public_dict()

    def expect(self, **kw: Any) -> G:
        pub = self.pub
        for key, value in kw.items():
            if key == "fouls":
                value = {str(k): v for k, v in value.items()}
            assert pub[key] == value, f"{key}: expected {value!r}, got {pub[key]!r}"
        return self

    def replayed(self) -> GameState:
        return replay(self.log, self.regulations)


def left(seat: int, how: str, day: int, phase: str) -> dict[str, Any]:
    return {"seat": seat, "how": how, "day": day, "phase": phase}


def table(*gone: int) -> list[int]:
    return [s for s in range(1, 11) if s not in gone]
