"""Clock arithmetic (DESIGN.md "Clocks": stored, never ticked).

A game stores its clock as a few fields (duration, elapsed before the current
run, when the current run started, when a timeout began); what remains and
when it reaches zero are computed from them and the current time. Pure: no
Django, so the services (which change the clock) and the board (which only
shows it) share one arithmetic without the board depending on the services.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol


class ClockFields(Protocol):
    """The stored clock of a game (games.models.Game has these fields)."""

    clock_duration_ms: int
    clock_elapsed_ms: int
    clock_started_at: datetime | None
    timeout_since: datetime | None


def is_running(clock: ClockFields) -> bool:
    """Started and not stopped by a timeout (D8: a timeout stops every clock)."""
    return clock.clock_started_at is not None and clock.timeout_since is None


def run_elapsed_ms(started_at: datetime, until: datetime) -> int:
    """Milliseconds of the current run up to `until` (never negative)."""
    return max(0, int((until - started_at).total_seconds() * 1000))


def remaining_ms(clock: ClockFields, now: datetime) -> int:
    elapsed = clock.clock_elapsed_ms
    if clock.clock_started_at is not None:
        stop = min(now, clock.timeout_since) if clock.timeout_since else now
        elapsed += run_elapsed_ms(clock.clock_started_at, stop)
    return max(0, clock.clock_duration_ms - elapsed)


def deadline(clock: ClockFields, now: datetime) -> datetime | None:
    """When the running clock reaches zero, or None when it is paused."""
    if not is_running(clock):
        return None
    return now + timedelta(milliseconds=remaining_ms(clock, now))


def tech_pause_remaining_ms(started_at: datetime, ended_at: datetime | None, duration_ms: int, now: datetime) -> int:
    """D7: what remains of a technical pause that began at `started_at`.

    Zero once its time is up or once the host ended it early (`ended_at` at
    or after the start: an earlier end belongs to an earlier pause).
    """
    if ended_at is not None and ended_at >= started_at:
        return 0
    return max(0, duration_ms - run_elapsed_ms(started_at, now))
