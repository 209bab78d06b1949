"""A player's statistics from the result rows of his games (pure: no Django).

Terms:
- *line*: what one seat of one finished game adds to its player's totals,
  computed from the seat's result row (``games.models.SeatResult``) and the
  game's night checks (``NightAction``).
- *totals*: the sum of a player's lines (stored per player, updated when a
  game ends and reverted when its end is undone; or summed per request over
  a date range for a season).
- roles: ``civilian`` and ``sheriff`` are red, ``mafia`` and ``don`` black.
  The player page groups "red" = civilian games (the Sheriff has his own
  line), "black" = mafia games (the Don has his own line).
- *Ci received*: a red shot on Night 1 (RULES.md N10).
- *removals*: removed from the game by fouls or by a disqualification.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

ROLES = ("civilian", "sheriff", "mafia", "don")

# Every counter of a line / of the totals, in display order.
COUNTERS = (
    "games",
    "wins",
    "draws",
    "civilian_games",
    "civilian_wins",
    "sheriff_games",
    "sheriff_wins",
    "mafia_games",
    "mafia_wins",
    "don_games",
    "don_wins",
    "sheriff_checks",
    "sheriff_blacks_found",
    "don_checks",
    "don_found_sheriff",
    "best_moves",
    "best_move_blacks",
    "shot_first_night",
    "ci_received",
    "fouls",
    "removals",
    "ppk",
)


@dataclass(slots=True)
class Line:
    games: int = 0
    wins: int = 0
    draws: int = 0
    civilian_games: int = 0
    civilian_wins: int = 0
    sheriff_games: int = 0
    sheriff_wins: int = 0
    mafia_games: int = 0
    mafia_wins: int = 0
    don_games: int = 0
    don_wins: int = 0
    sheriff_checks: int = 0
    sheriff_blacks_found: int = 0
    don_checks: int = 0
    don_found_sheriff: int = 0
    best_moves: int = 0
    best_move_blacks: int = 0
    shot_first_night: int = 0
    ci_received: int = 0
    fouls: int = 0
    removals: int = 0
    ppk: int = 0

    def as_tuple(self) -> tuple[int, ...]:
        """The counters in COUNTERS order (spelled out: the rebuild calls this per seat)."""
        return (
            self.games, self.wins, self.draws, self.civilian_games, self.civilian_wins, self.sheriff_games, self.sheriff_wins,
            self.mafia_games, self.mafia_wins, self.don_games, self.don_wins, self.sheriff_checks, self.sheriff_blacks_found,
            self.don_checks, self.don_found_sheriff, self.best_moves, self.best_move_blacks, self.shot_first_night,
            self.ci_received, self.fouls, self.removals, self.ppk,
        )  # fmt: skip

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def add(self, other: Line | Mapping[str, Any], sign: int = 1) -> None:
        get = other.get if isinstance(other, Mapping) else (lambda name, default=0: getattr(other, name))
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + sign * int(get(name, 0) or 0))


def seat_line(result: Mapping[str, Any], checks: Iterable[Mapping[str, Any]] = ()) -> Line:
    """One seat's line. `result`: a SeatResult as a dict; `checks`: the game's
    night checks as dicts with kind (sheriff_check | don_check), actor_seat, result."""
    return Line(*seat_counts(result, checks))


_ROLE_SLOT = {role: 3 + 2 * i for i, role in enumerate(ROLES)}  # index of "<role>_games" in COUNTERS


def seat_counts(result: Mapping[str, Any], checks: Iterable[Mapping[str, Any]] = ()) -> tuple[int, ...]:
    """``seat_line`` as a tuple in COUNTERS order (the rebuild calls it for every seat)."""
    role = str(result["role"])
    seat = result["seat_no"]
    won = int(bool(result["won"]))
    counts = [0] * len(COUNTERS)
    counts[0] = 1
    counts[1] = won
    counts[2] = int(result.get("winner") == "draw")
    slot = _ROLE_SLOT.get(role)
    if slot is not None:
        counts[slot] = 1
        counts[slot + 1] = won
    sheriff_checks = sheriff_blacks = don_checks = don_found = 0
    for check in checks:
        if check.get("actor_seat") != seat:
            continue
        if check["kind"] == "sheriff_check" and role == "sheriff":
            sheriff_checks += 1
            sheriff_blacks += int(check.get("result") == "black")
        elif check["kind"] == "don_check" and role == "don":
            don_checks += 1
            don_found += int(check.get("result") == "sheriff")
    shot_first = bool(result.get("first_night_victim"))
    counts[11:] = [
        sheriff_checks,
        sheriff_blacks,
        don_checks,
        don_found,
        int(bool(result.get("best_move_accepted"))),
        int(result.get("best_move_blacks") or 0),
        int(shot_first),
        int(shot_first and role in ("civilian", "sheriff")),
        int(result.get("fouls") or 0),
        int(bool(result.get("removed_by_fouls") or result.get("disqualified"))),
        int(bool(result.get("ppk"))),
    ]
    return tuple(counts)


# A line's code: its counters as one number, each counter a field of bits —
# a flag (0 or 1 in any game) one bit, a count seven. A player-game row names
# its line by this code (the stored lines are players.models.StatisticsLine):
# the same counters give the same code on every path, with no lookup.
_COUNTS = {"sheriff_checks", "sheriff_blacks_found", "don_checks", "don_found_sheriff", "best_move_blacks", "fouls"}
CODE_WIDTHS = tuple(7 if name in _COUNTS else 1 for name in COUNTERS)  # 58 bits in all: a BIGINT holds it


def line_code(counts: Sequence[int]) -> int:
    """The code of a line (its counters in COUNTERS order): ≥ 0, the counters'
    fields, when each fits its field; a game no rule allows (128 checks by one
    Sheriff) gets a negative code from a 62-bit hash of its counters instead (two
    such lines sharing one is a chance of one in 4·10¹⁸ per pair)."""
    code = shift = 0
    for value, width in zip(counts, CODE_WIDTHS, strict=True):
        if not 0 <= value < 1 << width:
            digest = hashlib.blake2b(repr(tuple(counts)).encode(), digest_size=8).digest()
            return -(int.from_bytes(digest, "big") >> 2) - 1
        code |= value << shift
        shift += width
    return code


def total(lines: Iterable[Line | Mapping[str, Any]]) -> Line:
    out = Line()
    for line in lines:
        out.add(line)
    return out


def rate(wins: int, games: int) -> float | None:
    return wins / games if games else None


def role_rows(t: Line) -> list[dict[str, Any]]:
    """Games, wins and win rate per role group of the player page."""
    rows = []
    for role in ROLES:
        g, w = getattr(t, f"{role}_games"), getattr(t, f"{role}_wins")
        rows.append({"role": role, "games": g, "wins": w, "rate": rate(w, g)})
    return rows
