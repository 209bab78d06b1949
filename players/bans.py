"""Discipline that outlives a game: reprimands and 7-day bans (pure: no Django).

Terms (RULES F3, F4, F15):
- *reprimand* (выговор): a 4th foul or a disqualifying foul removes the
  player and «получает Выговор по окончанию игры» (F3): written when the game
  ends. At most one per player and game.
- *ban* (ЧС, запрет играть): a second warning removes the player and bars
  him from playing for seven days (F4). INTERP (club days): the ban runs from
  the moment of the second warning for seven days, rounded up to the end of
  that day in the club's time zone (the ``TIME_ZONE`` setting, Europe/Moscow
  by default): a ban given on Tuesday 20:00 ends when Wednesday of the next week
  begins — he never plays less than seven whole days later.
- *grey card* and *warning*: counted per player and per tournament (F15 is
  tournament discipline), not records of their own.
- *lifted*: an organizer took the record back (recorded with a reason); an
  annulled game's penalties still count (W6: the protocol is kept) until then.
- *override*: an organizer seats a banned player anyway, with a reason
  (recorded); the ban itself stays.

A penalty here is a mapping with the keys of the game's penalty projection
(``kind``, ``seat``, ``count``, ``reason``, ``at``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import Any

REPRIMAND = "reprimand"
BAN = "ban"
BAN_DAYS = 7


@dataclass(frozen=True)
class Sanction:
    kind: str  # REPRIMAND | BAN
    seat: int
    rule: str  # F3 | F4
    cause: str  # fouls | disqualify | warnings
    reason: str  # the host's reason of the penalty that caused it
    at: datetime  # the moment of that penalty


def ban_end(at: datetime, tz: tzinfo, days: int = BAN_DAYS) -> datetime:
    """When a ban given at `at` ends (see the module docstring): the end of the
    club day `days` days later, as an aware datetime in `tz`."""
    if at.tzinfo is None:
        raise ValueError("an aware datetime is needed")
    last_day = (at.astimezone(tz) + timedelta(days=days)).date()
    return datetime.combine(last_day + timedelta(days=1), time(0), tzinfo=tz)


def is_active(ends_at: datetime | None, now: datetime, *, lifted: bool = False) -> bool:
    return ends_at is not None and not lifted and now < ends_at


def sanctions(
    penalties: Iterable[Mapping[str, Any]], *, fouls_to_remove: int = 4, warnings_to_remove: int = 2
) -> list[Sanction]:
    """The reprimands and bans a game's penalties bring, in seat order: the first
    removing foul or disqualification of a seat gives his reprimand (F3), his
    removing warning his ban (F4)."""
    found: dict[tuple[int, str], Sanction] = {}
    for p in penalties:
        seat = p.get("seat")
        if seat is None:
            continue
        kind, count = p.get("kind"), int(p.get("count") or 0)
        if kind == "disqualify" or (kind == "foul" and count >= fouls_to_remove):
            key, sanction = (
                (seat, REPRIMAND),
                Sanction(
                    REPRIMAND,
                    seat,
                    "F3",
                    "disqualify" if kind == "disqualify" else "fouls",
                    str(p.get("reason") or ""),
                    p["at"],
                ),
            )
        elif kind == "warning" and count >= warnings_to_remove:
            key, sanction = (seat, BAN), Sanction(BAN, seat, "F4", "warnings", str(p.get("reason") or ""), p["at"])
        else:
            continue
        found.setdefault(key, sanction)
    return sorted(found.values(), key=lambda s: (s.seat, s.kind))
