"""Tiny builder for the scenario logs (mafia-protocol-log/1).

The JSON files beside this module are the artefacts the tests replay;
``_generate.py`` writes them with the helpers below. Every expectation is
written by hand from FORMAT.md / RULES.md: the builder never computes state.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAYERS = [f"P{i}" for i in range(1, 11)]


class Scenario:
    def __init__(self, rule: str, what: str, name: str, note: str | None = None) -> None:
        self.file = f"{rule}_{what}.json"
        self.name = name
        self.note = note
        self.actions: list[dict] = []

    # --- raw actions ---------------------------------------------------------
    def a(self, do: str, **kw) -> Scenario:
        act = {"do": do}
        act.update(kw)
        self.actions.append(act)
        return self

    def rej(self, do: str, **kw) -> Scenario:
        kw["reject"] = True
        return self.a(do, **kw)

    def x(self, **kw) -> Scenario:
        return self.a("expect", **kw)

    def nx(self) -> Scenario:
        return self.a("next")

    # --- composite helpers ---------------------------------------------------
    def setup(self, sheriff: int = 5, don: int = 8, mafia: tuple[int, int] = (9, 10)) -> Scenario:
        self.a("seat", players=list(PLAYERS))
        self.a("roles", sheriff=sheriff, don=don, mafia=list(mafia))
        self.a("start")
        self.x(status="running", phase="night", day=0, step="dogovorka", speaker=None, winner=None)
        return self

    def to_day1(self) -> Scenario:
        """dogovorka -> free_seating -> Day 1."""
        self.nx()
        self.x(step="free_seating", phase="night", day=0)
        self.nx()
        self.x(step="speech", phase="day", day=1, speaker=1)
        return self

    def speeches(self, order, noms=None, secs=None) -> Scenario:
        """One speech step per seat of ``order``; ``noms`` {seat: target}."""
        noms = noms or {}
        secs = secs or {}
        for s in order:
            exp = {"step": "speech", "speaker": s}
            if s in secs:
                exp["speech_seconds"] = secs[s]
            self.x(**exp)
            if s in noms:
                self.a("nominate", by=s, target=noms[s])
            self.nx()
        return self

    def votes(self, **for_) -> Scenario:
        return self.a("votes", **{"for": for_})

    def vote(self, d: dict) -> Scenario:
        return self.a("votes", **{"for": {str(k): v for k, v in d.items()}})

    def night(
        self, shots=None, don="next", sheriff="next", don_present=True, sheriff_present=True, night_expect=None
    ) -> Scenario:
        """mafia_shot -> don_check -> sheriff_check (no best move handling)."""
        exp = {"step": "mafia_shot", "phase": "night", "nominees": [], "speaker": None}
        if night_expect:
            exp.update(night_expect)
        self.x(**exp)
        if shots is None:
            self.nx()
        else:
            self.a("shots", by={str(k): v for k, v in shots.items()})
        if don_present:
            self.x(step="don_check")
            if don == "next":
                self.nx()
            else:
                self.a("don_check", target=don)
        if sheriff_present:
            self.x(step="sheriff_check")
            if sheriff == "next":
                self.nx()
            else:
                self.a("sheriff_check", target=sheriff)
        return self

    def write(self) -> Path:
        data = {"format": "mafia-protocol-log/1", "name": self.name}
        if self.note:
            data["note"] = self.note
        data["actions"] = self.actions
        path = HERE / self.file
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return path


def left(seat: int, how: str, day: int, phase: str) -> dict:
    return {"seat": seat, "how": how, "day": day, "phase": phase}


def table(*gone: int) -> list[int]:
    return [s for s in range(1, 11) if s not in gone]
