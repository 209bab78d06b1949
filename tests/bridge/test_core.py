"""The bridge's pure core: DM parsing, windows, seat mapping, proposals (no Django, no discord.py)."""

from datetime import UTC, datetime, timedelta

import pytest

from discord_bridge import core
from discord_bridge.core import (
    GameView,
    Parsed,
    Plus,
    SeatMap,
    StepWindow,
    VoteTally,
    VoteWindows,
    build_proposal,
    parse_dm,
    shots_action,
    tally_votes,
)

T0 = datetime(2026, 12, 1, 20, 0, 0, tzinfo=UTC)
ROLES = {1: "don", 4: "mafia", 7: "mafia", 9: "sheriff"}
TABLE = list(range(1, 11))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def view(step, *, status="running", opened=T0, seconds=15, at_table=TABLE):
    return GameView(status=status, step=step, roles=ROLES, at_table=at_table, window=StepWindow(step, opened, seconds))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5", Parsed("target", seat=5)),
        (" №10 ", Parsed("target", seat=10)),
        ("5 7", Parsed("target", seat=5)),  # N4: the first number counts
        ("Шериф 3", Parsed("role", role="sheriff", seat=3)),
        ("я дон, 1", Parsed("role", role="don", seat=1)),
        ("4 мафия", Parsed("role", role="mafia", seat=4)),
        ("Мигни 5", Parsed("wink", seat=5)),
        ("мигни №2", Parsed("wink", seat=2)),
        ("никого", Parsed("nobody")),
        ("0", Parsed("nobody")),
        ("11", Parsed("unknown")),
        ("привет", Parsed("unknown")),
        ("", Parsed("unknown")),
        ("Мигни 12", Parsed("unknown")),
        ("шериф", Parsed("unknown")),
    ],
)
def test_parse_dm(text, expected):
    assert parse_dm(text) == expected


def test_plus_is_only_a_plus():
    assert core.is_plus("+") and core.is_plus(" + ")
    assert not core.is_plus("++") and not core.is_plus("+ 5") and not core.is_plus("")


def test_seat_map_from_ids_and_mentions():
    m = SeatMap.build({"1": "<@123456789012345678>", 2: "<@!223456789012345678>", "3": "323456789012345678", "4": ""})
    assert m.seat_of(223456789012345678) == 2
    assert m.user_of(3) == 323456789012345678
    assert m.user_of(4) is None and m.seat_of(42) is None
    assert m.to_json()["1"] == "123456789012345678"


@pytest.mark.parametrize(
    "pairs",
    [
        {"11": "123456789012345678"},
        {"x": "123456789012345678"},
        {"1": "@bob"},
        {"1": "123456789012345678", "2": "<@123456789012345678>"},
    ],
)
def test_seat_map_refuses_bad_input(pairs):
    with pytest.raises(core.BridgeError):
        SeatMap.build(pairs)


def test_step_window_is_15_seconds_with_grace():
    w = StepWindow("mafia_shot", T0, 15)
    assert w.contains(at(0)) and w.contains(at(15.9))
    assert not w.contains(at(16.5))
    assert not w.contains(at(-2))
    assert w.contains(at(16.5), grace=timedelta(seconds=2))


def test_n2_black_shot_in_time_is_ok_and_prefills_shots():
    p = build_proposal(Parsed("target", seat=5), sender_seat=4, game=view("mafia_shot"), sent_at=at(3))
    assert (p.kind, p.by, p.target, p.status) == ("shot", 4, 5, core.OK)
    don = build_proposal(Parsed("target", seat=5), sender_seat=1, game=view("mafia_shot"), sent_at=at(4))
    late = build_proposal(Parsed("target", seat=6), sender_seat=7, game=view("mafia_shot"), sent_at=at(20))
    assert late.status == core.LATE
    assert shots_action([p, don, late], [1, 4, 7]) == {"do": "shots", "by": {"1": 5, "4": 5, "7": None}}


def test_n2_red_player_sending_a_shot_is_not_his_turn():
    p = build_proposal(Parsed("target", seat=5), sender_seat=2, game=view("mafia_shot"), sent_at=at(1))
    assert p.status == core.NOT_HIS_TURN and p.action() is None


def test_n4_checks_belong_to_their_captain_and_step():
    don = build_proposal(Parsed("target", seat=9), sender_seat=1, game=view("don_check"), sent_at=at(2))
    assert don.kind == "don_check" and don.status == core.OK and don.action() == {"do": "don_check", "target": 9}
    sheriff_early = build_proposal(Parsed("target", seat=1), sender_seat=9, game=view("don_check"), sent_at=at(2))
    assert sheriff_early.kind == "sheriff_check" and sheriff_early.status == core.NOT_HIS_TURN
    sheriff = build_proposal(Parsed("target", seat=1), sender_seat=9, game=view("sheriff_check"), sent_at=at(2))
    assert sheriff.status == core.OK
    second = build_proposal(
        Parsed("target", seat=2), sender_seat=9, game=view("sheriff_check"), sent_at=at(3), already_sent=True
    )
    assert second.status == core.REPEAT  # N4: the first number counts


def test_mafia_member_has_no_check_step():
    p = build_proposal(Parsed("target", seat=9), sender_seat=4, game=view("don_check"), sent_at=at(1))
    assert p.status == core.NOT_HIS_TURN


def test_captain_who_left_has_no_step():
    p = build_proposal(
        Parsed("target", seat=1), sender_seat=9, game=view("sheriff_check", at_table=[1, 2, 3]), sent_at=at(1)
    )
    assert p.status == core.NOT_HIS_TURN


def test_s2_role_claim_in_n0_ok_later_late_wrong_seat_mismatch():
    ok = build_proposal(Parsed("role", role="sheriff", seat=9), sender_seat=9, game=view("dogovorka"), sent_at=at(1))
    assert ok.status == core.OK and ok.receipt == "принято: шериф 9"
    late = build_proposal(Parsed("role", role="sheriff", seat=9), sender_seat=9, game=view("speech"), sent_at=at(1))
    assert late.status == core.LATE
    wrong = build_proposal(Parsed("role", role="sheriff", seat=3), sender_seat=9, game=view("dogovorka"), sent_at=at(1))
    assert wrong.status == core.MISMATCH


def test_n12_wink_from_black_or_sheriff_only():
    ok = build_proposal(Parsed("wink", seat=5), sender_seat=7, game=view("speech"), sent_at=at(1))
    assert ok.status == core.OK and ok.action() == {"do": "wink", "by": 7, "target": 5}
    red = build_proposal(Parsed("wink", seat=5), sender_seat=2, game=view("speech"), sent_at=at(1))
    assert red.status == core.NOT_HIS_TURN
    assert core.wink_relay_text(7) == "Вам мигнул 7"


def test_receipts_repeat_only_the_senders_content():
    p = build_proposal(Parsed("nobody"), sender_seat=4, game=view("mafia_shot"), sent_at=at(1))
    assert p.target is None and p.receipt == "принято: никого"
    assert (
        build_proposal(Parsed("unknown"), sender_seat=4, game=view("mafia_shot"), sent_at=at(1)).status == core.UNKNOWN
    )


def test_v1_v2_votes_in_the_regulations_order_line_then_counts():
    """V1: the 5 s count, the line, then «кто за N» per candidate (issue 25-1).

    Before the line a «+» is no vote; after it, outside any count, a possible
    violation; the last candidate's count runs until the vote is recorded.
    """
    windows = VoteWindows(clicks=[(5, at(1)), (3, at(5))], line_at=at(0))
    pluses = [
        Plus(1, 2, at(-1)),  # before the line: no vote
        Plus(8, 4, at(0.5)),  # after the line, before «кто за 5»: a possible violation
        Plus(2, 2, at(2)),  # for 5
        Plus(3, 6, at(3)),  # for 5
        Plus(4, 2, at(6)),  # repeat (V3)
        Plus(5, 8, at(6)),  # for 3
        Plus(6, 10, at(30)),  # still for 3: the last count runs until the vote is recorded
        Plus(7, None, at(6)),  # not a linked player
    ]
    tally = tally_votes(pluses, windows, TABLE)
    assert tally.votes == {5: [2, 6], 3: [8, 10]}
    assert tally.action() == {"do": "votes", "for": {"5": [2, 6], "3": [8, 10]}}
    assert tally.marks[1][0] == core.BEFORE_LINE
    assert tally.marks[8][0] == core.AFTER_LINE
    assert tally.marks[4][0] == core.REPEAT
    assert tally.marks[7][0] == core.NOT_HIS_TURN


def test_v1_a_plus_after_a_line_that_is_not_posted_yet_is_no_vote():
    """The old order (clicks, then the line) marked every «+» after the line late; now, with
    no line posted, nothing is a vote, and an empty tally is never offered (V4)."""
    windows = VoteWindows(clicks=[(5, at(0))], line_at=None)
    tally = tally_votes([Plus(1, 2, at(1))], windows, TABLE)
    assert tally.marks[1][0] == core.BEFORE_LINE
    assert not tally.has_votes
    assert not VoteTally(votes={5: [], 3: []}).has_votes


def test_a_plus_in_the_clicks_millisecond_belongs_to_the_click():
    """Discord stamps to the millisecond, the click has microseconds (the flaky test's cause, 25-10)."""
    click = at(1) + timedelta(microseconds=700)
    plus_time = at(1)  # the same millisecond, floored by Discord
    windows = VoteWindows(clicks=[(5, click)], line_at=at(0))
    assert windows.candidate_at(plus_time) == (5, core.OK)


def test_a_dm_is_judged_by_the_span_of_its_discord_time():
    """25-2: the step at the DM's own timestamp, not at processing time."""
    spans = [
        core.StepSpan("a", "mafia_shot", "running", at(0), 15, ROLES, TABLE),
        core.StepSpan("b", "don_check", "running", at(10), 15, ROLES, TABLE),
    ]
    assert core.span_at(spans, at(9.9995)).key == "a"  # 9.999 s after the floor: still the shot
    assert core.span_at(spans, at(10)).key == "b"
    assert core.span_at(spans, at(-1)) is None
    shot = build_proposal(
        Parsed("target", seat=5), sender_seat=1, game=core.span_at(spans, at(9)).view(), sent_at=at(9)
    )
    assert (shot.kind, shot.status) == ("shot", core.OK)


def test_wink_without_space_and_role_word_with_verb():
    assert parse_dm("мигни5") == Parsed("wink", seat=5)
    assert parse_dm("дон проверяет 5") == Parsed("target", seat=5)
    assert parse_dm("Шериф 9") == Parsed("role", role="sheriff", seat=9)
    assert parse_dm("５") == Parsed("unknown")  # a full-width digit is no seat number
    assert parse_dm("5\x00") == Parsed("target", seat=5)


def test_snowflakes_are_ascii_digits_within_64_bits():
    assert core.parse_snowflake("123456789012345678") == 123456789012345678
    for bad in ("²", "①", "١٢٣", str(2**64), "-5", "12 3", "0"):
        with pytest.raises(core.BridgeError):
            core.parse_snowflake(bad)
    with pytest.raises(core.BridgeError):
        core.parse_member_ref("<@" + str(2**64 + 1) + ">")


def test_receipts_say_what_happened():
    assert core.receipt_for(core.OK, "5") == "принято: 5"
    assert core.receipt_for(core.LATE, "5") == "поздно — не принято"
    assert core.receipt_for(core.REPEAT, "6", "5") == "повтор: считается первое (5)"
    assert core.receipt_for(core.NOT_HIS_TURN, "3") == "не ваш ход"


def test_chat_lines():
    assert core.candidates_line([5, 3]) == "Кандидаты: 5, 3"
    assert core.fouls_line({"3": 2, "7": 1}, [1, 3, 7]) == "Фолы: 3 — 2, 7 — 1"
    assert core.fouls_line({}, [1]) == "Фолов нет"
    assert core.line_due(T0) == at(5)


def test_core_imports_neither_django_nor_discord():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(core.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    assert not any(m and (m.startswith("django") or m.startswith("discord.") or m == "discord") for m in imported)


def test_s2_roles_prefilled_once_all_four_active_roles_reported():
    def claim(role, seat):
        return build_proposal(
            Parsed("role", role=role, seat=seat), sender_seat=seat, game=view(None, status="setup"), sent_at=at(1)
        )

    three = [claim("sheriff", 9), claim("don", 1), claim("mafia", 4)]
    assert core.roles_action(three) is None
    assert core.roles_action([*three, claim("mafia", 7)]) == {"do": "roles", "sheriff": 9, "don": 1, "mafia": [4, 7]}
    assert core.roles_action([*three, claim("mafia", 7), claim("sheriff", 2)]) is None  # two Sheriffs: the host decides
