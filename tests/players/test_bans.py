"""Ban arithmetic and the sanctions of a game's penalties (players/bans.py, pure; RULES F3, F4)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from players.bans import BAN, REPRIMAND, ban_end, is_active, sanctions

MSK = ZoneInfo("Europe/Moscow")


def test_f4_ban_runs_seven_days_to_the_end_of_the_club_day():
    given = datetime(2026, 12, 1, 20, 0, tzinfo=MSK)  # Tuesday evening
    assert ban_end(given, MSK) == datetime(2026, 12, 9, 0, 0, tzinfo=MSK)
    # 23:30 Moscow is 20:30 UTC the same day: the club's day decides
    late = datetime(2026, 12, 1, 20, 30, tzinfo=UTC)
    assert ban_end(late, MSK) == datetime(2026, 12, 9, 0, 0, tzinfo=MSK)
    # 00:30 Moscow on the 2nd is still the 1st in UTC
    after_midnight = datetime(2026, 12, 1, 21, 30, tzinfo=UTC)
    assert ban_end(after_midnight, MSK) == datetime(2026, 12, 10, 0, 0, tzinfo=MSK)


def test_f4_a_ban_is_never_shorter_than_seven_days():
    start = datetime(2026, 1, 1, tzinfo=MSK)
    for minutes in range(0, 24 * 60, 37):
        at = start + timedelta(minutes=minutes)
        assert ban_end(at, MSK) - at >= timedelta(days=7)
        assert ban_end(at, MSK) - at <= timedelta(days=8)


def test_a_naive_moment_is_refused():
    with pytest.raises(ValueError):
        ban_end(datetime(2026, 12, 1, 20, 0), MSK)


def test_active_until_its_end_unless_lifted():
    ends = datetime(2026, 12, 9, tzinfo=MSK)
    assert is_active(ends, ends - timedelta(seconds=1))
    assert not is_active(ends, ends)
    assert not is_active(ends, ends - timedelta(days=1), lifted=True)
    assert not is_active(None, ends)


def test_f3_f4_sanctions_of_a_games_penalties():
    at = datetime(2026, 12, 1, 19, 0, tzinfo=UTC)
    penalties = [
        {"kind": "foul", "seat": 3, "count": 3, "at": at},
        {"kind": "foul", "seat": 3, "count": 4, "reason": "реплика", "at": at},
        {"kind": "warning", "seat": 5, "count": 1, "at": at},
        {"kind": "warning", "seat": 5, "count": 2, "reason": "оскорбление", "at": at + timedelta(minutes=5)},
        {"kind": "disqualify", "seat": 7, "at": at},
        {"kind": "grey_card", "seat": 8, "at": at},
        {"kind": "ppk", "seat": None, "team": "red", "at": at},
    ]
    got = sanctions(penalties)
    assert [(s.kind, s.seat, s.rule, s.cause) for s in got] == [
        (REPRIMAND, 3, "F3", "fouls"),
        (BAN, 5, "F4", "warnings"),
        (REPRIMAND, 7, "F3", "disqualify"),
    ]
    assert got[1].reason == "оскорбление" and got[1].at == at + timedelta(minutes=5)
    assert sanctions(penalties, warnings_to_remove=3) == [s for s in got if s.kind != BAN]
