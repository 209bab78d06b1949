"""The Discord bridge's pure core: parsing, time windows, seat mapping, proposals.

Nothing here imports Django or discord.py (DESIGN.md "Discord": the library
stays at the edge), so every rule of the bridge is a plain function with a
plain test.

Terms:
- *DM*: a private message a player sends the bot (the regulations have him
  send it to the host): his role and seat at the start (S2), a shot target
  (N2), a check target (N4), or «Мигни N» (N12).
- *proposal*: what a DM (or a «+» in the game chat) suggests the host record.
  It is never an action by itself: the host confirms it (one key) or edits
  it, and the confirmed action goes through games/services.py.
- *status* of a proposal: ``ok`` (pre-filled in the console), ``late``
  («поздно»: his step, but outside its 15 s), ``not_his_turn`` («не его
  ход»: no step of his is running), ``repeat`` (he already sent one for this
  step; N4: the first number counts), ``mismatch`` (the role claim names a
  seat that is not the sender's), ``unknown`` (the text says nothing we can
  read). Only ``ok`` proposals are pre-filled; the others are shown marked.
- *vote window*: the span in which «+» messages count for one candidate: from
  the host's «кто за N» click to the next click, the last one until the line
  «--------------» (V1, V2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

SEATS = range(1, 11)
BLACK_ROLES = ("don", "mafia")
NIGHT_STEPS = ("mafia_shot", "don_check", "sheriff_check")
# The steps of N0 in which the active roles report to the host (S2, N0.2).
SETUP_STEPS = (None, "dogovorka", "free_seating")
# A DM is stamped by Discord when it is sent; the step's clock is the
# server's. A second of grace covers the two clocks and the network.
DEFAULT_GRACE = timedelta(seconds=1)
LINE = "--------------"

OK = "ok"
LATE = "late"
NOT_HIS_TURN = "not_his_turn"
REPEAT = "repeat"
MISMATCH = "mismatch"
UNKNOWN = "unknown"
STATUSES = (OK, LATE, NOT_HIS_TURN, REPEAT, MISMATCH, UNKNOWN)

_ROLE_WORDS: dict[str, str] = {
    "шериф": "sheriff",
    "шер": "sheriff",
    "комиссар": "sheriff",
    "sheriff": "sheriff",
    "дон": "don",
    "don": "don",
    "мафия": "mafia",
    "мафиа": "mafia",
    "маф": "mafia",
    "mafia": "mafia",
}
_NOBODY_WORDS = ("никого", "никто", "пас", "nobody", "none", "-", "0")
_WINK = re.compile(r"^\s*(?:мигни|мигнуть|подмигни|подмигнуть|wink)\b\W*(\d{1,2})\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d{1,2}")
_WORD = re.compile(r"[a-zа-яё]+", re.IGNORECASE)
_PLUS = re.compile(r"^\s*\+\s*$")
_MENTION = re.compile(r"^\s*<@!?(\d{15,21})>\s*$")
_USER_ID = re.compile(r"^\s*(\d{15,21})\s*$")


class BridgeError(ValueError):
    """Bad input to the bridge (a seat map, a member reference): a clear message, nothing changed."""


# --- parsing -------------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """What a message says. ``kind``: role | target | nobody | wink | plus | unknown."""

    kind: str
    role: str | None = None
    seat: int | None = None


def parse_dm(text: str) -> Parsed:
    """Read a player's DM: «Шериф 3», «5», «никого», «Мигни 5».

    N4: "if a captain shows two numbers, the first one counts": only the
    first number of a message is read.
    """
    text = (text or "").strip()
    if not text:
        return Parsed("unknown")
    wink = _WINK.match(text)
    if wink:
        seat = int(wink.group(1))
        return Parsed("wink", seat=seat) if seat in SEATS else Parsed("unknown")
    lowered = text.lower()
    numbers = [int(n) for n in _NUMBER.findall(lowered)]
    first = numbers[0] if numbers else None
    role = next((_ROLE_WORDS[w] for w in _WORD.findall(lowered) if w in _ROLE_WORDS), None)
    if role is not None:
        if first in SEATS:
            return Parsed("role", role=role, seat=first)
        return Parsed("unknown")
    if first is not None:
        if first in SEATS:
            return Parsed("target", seat=first)
        if first == 0:
            return Parsed("nobody")
        return Parsed("unknown")
    if lowered.strip(" .!") in _NOBODY_WORDS:
        return Parsed("nobody")
    return Parsed("unknown")


def is_plus(text: str) -> bool:
    """A vote in the game chat is a message that is only «+» (V1, V3)."""
    return bool(_PLUS.match(text or ""))


# --- seat mapping --------------------------------------------------------------------


def parse_member_ref(text: str) -> int:
    """A Discord user id from «<@123…>», «<@!123…>» or the bare id (snowflake)."""
    match = _MENTION.match(text or "") or _USER_ID.match(text or "")
    if not match:
        raise BridgeError(f"«{text}» is neither a Discord user id nor an @mention.")
    return int(match.group(1))


@dataclass(frozen=True)
class SeatMap:
    """Seats 1..10 ↔ Discord user ids; a user sits at one seat at most."""

    by_seat: Mapping[int, int]

    @classmethod
    def build(cls, pairs: Mapping[Any, Any]) -> SeatMap:
        """From {seat: user id or mention}; empty values are unlinked seats."""
        by_seat: dict[int, int] = {}
        for raw_seat, raw_user in pairs.items():
            try:
                seat = int(raw_seat)
            except (TypeError, ValueError):
                raise BridgeError(f"Seat «{raw_seat}» is not a number 1..10.") from None
            if seat not in SEATS:
                raise BridgeError(f"Seat {seat} is not a number 1..10.")
            if raw_user in (None, ""):
                continue
            user = raw_user if isinstance(raw_user, int) else parse_member_ref(str(raw_user))
            by_seat[seat] = user
        users = list(by_seat.values())
        duplicates = sorted({u for u in users if users.count(u) > 1})
        if duplicates:
            seats = sorted(s for s, u in by_seat.items() if u in duplicates)
            raise BridgeError(f"One Discord user is linked to several seats: {', '.join(map(str, seats))}.")
        return cls(dict(sorted(by_seat.items())))

    def seat_of(self, user_id: int) -> int | None:
        for seat, user in self.by_seat.items():
            if user == user_id:
                return seat
        return None

    def user_of(self, seat: int) -> int | None:
        return self.by_seat.get(seat)

    def to_json(self) -> dict[str, str]:
        # Snowflakes exceed 2**53: kept as strings in JSON so browsers do not round them.
        return {str(seat): str(user) for seat, user in self.by_seat.items()}


# --- time windows --------------------------------------------------------------------


@dataclass(frozen=True)
class StepWindow:
    """A night step's window: it opened when the step began, and runs its clock (15 s, N1)."""

    step: str | None
    opened_at: datetime | None
    seconds: float

    def contains(self, sent_at: datetime, grace: timedelta = DEFAULT_GRACE) -> bool:
        if self.opened_at is None:
            return True
        return self.opened_at - grace <= sent_at <= self.opened_at + timedelta(seconds=self.seconds) + grace


@dataclass(frozen=True)
class VoteWindows:
    """The host's «кто за N» clicks, in order, and when the line was posted (None: not yet)."""

    clicks: Sequence[tuple[int, datetime]]
    line_at: datetime | None = None

    def candidate_at(self, sent_at: datetime) -> tuple[int | None, str]:
        """The candidate whose count was running when a «+» was sent, and the message's status.

        Before the first click: ``not_his_turn`` (no count is running);
        after the line: ``late`` (V1: a message after the line is a violation).
        """
        if self.line_at is not None and sent_at > self.line_at:
            return None, LATE
        current: int | None = None
        for candidate, clicked_at in self.clicks:
            if sent_at >= clicked_at:
                current = candidate
            else:
                break
        if current is None:
            return None, NOT_HIS_TURN
        return current, OK


@dataclass(frozen=True)
class Plus:
    message_id: int
    seat: int | None
    sent_at: datetime


@dataclass
class VoteTally:
    """«+» messages assigned to candidates (V2), one vote per player (V3)."""

    votes: dict[int, list[int]] = field(default_factory=dict)
    marks: dict[int, tuple[str, int | None]] = field(default_factory=dict)  # message id -> (status, candidate)

    def action(self) -> dict[str, Any]:
        """The `votes` action the vote panel is pre-filled with (FORMAT.md)."""
        return {"do": "votes", "for": {str(c): sorted(v) for c, v in self.votes.items() if v}}


def tally_votes(pluses: Iterable[Plus], windows: VoteWindows, at_table: Iterable[int]) -> VoteTally:
    """Assign each «+» to the candidate whose count was running; the host still decides (V1: his ping)."""
    table = set(at_table)
    tally = VoteTally(votes={c: [] for c, _ in windows.clicks})
    voted: set[int] = set()
    for plus in sorted(pluses, key=lambda p: (p.sent_at, p.message_id)):
        candidate, status = windows.candidate_at(plus.sent_at)
        if plus.seat is None or plus.seat not in table:
            status = NOT_HIS_TURN
        elif status == OK and plus.seat in voted:
            status = REPEAT  # V3: at most one candidate; the first «+» counts
        if status == OK and candidate is not None and plus.seat is not None:
            tally.votes.setdefault(candidate, []).append(plus.seat)
            voted.add(plus.seat)
        tally.marks[plus.message_id] = (status, candidate)
    return tally


# --- proposals -----------------------------------------------------------------------


@dataclass(frozen=True)
class GameView:
    """What the bridge needs to know of a game at the moment a DM arrives."""

    status: str
    step: str | None
    roles: Mapping[int, str]
    at_table: Sequence[int]
    window: StepWindow
    winks: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Proposal:
    """What the host is asked to confirm. ``kind``: role | shot | don_check | sheriff_check | wink | unknown."""

    kind: str
    by: int | None
    target: int | None
    status: str
    role: str | None = None
    step: str | None = None

    def action(self) -> dict[str, Any] | None:
        """The action a confirmed proposal becomes (shots are combined by `shots_action`)."""
        if self.kind in ("don_check", "sheriff_check") and self.target is not None:
            return {"do": self.kind, "target": self.target}
        if self.kind == "wink" and self.by is not None and self.target is not None:
            return {"do": "wink", "by": self.by, "target": self.target}
        return None

    @property
    def receipt(self) -> str:
        """The short receipt the sender gets; it repeats only his own message."""
        if self.kind == "unknown":
            return "не понял: пришлите номер места (например «5») или «Мигни 5»"
        if self.kind == "role":
            return f"принято: {role_word(self.role)} {self.target}"
        if self.kind == "wink":
            return f"принято: мигни {self.target}"
        return f"принято: {self.target if self.target is not None else 'никого'}"


def role_word(role: str | None) -> str:
    return {"sheriff": "шериф", "don": "дон", "mafia": "мафия"}.get(role or "", "?")


def _own_step(role: str | None) -> tuple[str, ...]:
    if role in BLACK_ROLES:
        return ("mafia_shot", "don_check") if role == "don" else ("mafia_shot",)
    if role == "sheriff":
        return ("sheriff_check",)
    return ()


def build_proposal(parsed: Parsed, *, sender_seat: int, game: GameView, sent_at: datetime, already_sent: bool = False, grace: timedelta = DEFAULT_GRACE) -> Proposal:
    """Turn a parsed DM into a proposal and mark it (see the module's terms).

    `already_sent`: the sender has an earlier proposal of the same kind in
    this step; N4 says the first number counts, so a later one is a repeat.
    """
    role = game.roles.get(sender_seat)
    if parsed.kind == "unknown":
        return Proposal("unknown", sender_seat, None, UNKNOWN, step=game.step)
    if parsed.kind == "role":
        if parsed.seat != sender_seat:
            status = MISMATCH
        elif game.status == "setup" or game.step in SETUP_STEPS:
            status = OK
        else:
            status = LATE  # S2: the active roles report in N0
        return Proposal("role", sender_seat, parsed.seat, status, role=parsed.role, step=game.step)
    if parsed.kind == "wink":
        # N12: a black or the Sheriff at the table, while the game runs; the
        # engine checks the count and the target when the host confirms.
        allowed = (role in BLACK_ROLES or role == "sheriff") and sender_seat in game.at_table and game.status == "running"
        return Proposal("wink", sender_seat, parsed.seat, OK if allowed else NOT_HIS_TURN, step=game.step)
    # A target (or nobody) answers the night step the sender has.
    target = parsed.seat if parsed.kind == "target" else None
    own = _own_step(role)
    if game.step in own and sender_seat in game.at_table:
        kind = "shot" if game.step == "mafia_shot" else game.step
        assert kind is not None
        if not game.window.contains(sent_at, grace):
            status = LATE
        elif already_sent:
            status = REPEAT
        else:
            status = OK
        return Proposal(kind, sender_seat, target, status, step=game.step)
    guess = "shot" if "mafia_shot" in own else (own[0] if own else "shot")
    return Proposal(guess, sender_seat, target, NOT_HIS_TURN, step=game.step)


def shots_action(proposals: Iterable[Proposal], blacks_at_table: Sequence[int]) -> dict[str, Any]:
    """The `shots` action pre-filled from the blacks' ``ok`` proposals (N2).

    Each black at the table is listed: his target, or null when he sent
    nothing (N2: a black who names nobody makes it a miss; the host sees it).
    """
    by: dict[str, int | None] = {str(b): None for b in blacks_at_table}
    for proposal in proposals:
        if proposal.kind == "shot" and proposal.status == OK and proposal.by in blacks_at_table:
            by[str(proposal.by)] = proposal.target
    return {"do": "shots", "by": by}


def roles_action(proposals: Iterable[Proposal]) -> dict[str, Any] | None:
    """The `roles` action (S2) once the Sheriff, the Don and both Mafia have reported; None before.

    The first claim of each seat counts; two seats claiming the Sheriff (or
    the Don, or three claiming Mafia) leave it to the host: None.
    """
    by_seat: dict[int, str] = {}
    for p in proposals:
        if p.kind == "role" and p.status == OK and p.target is not None and p.role and p.target not in by_seat:
            by_seat[p.target] = p.role
    sheriff = [s for s, r in by_seat.items() if r == "sheriff"]
    don = [s for s, r in by_seat.items() if r == "don"]
    mafia = sorted(s for s, r in by_seat.items() if r == "mafia")
    if len(sheriff) == 1 and len(don) == 1 and len(mafia) == 2:
        return {"do": "roles", "sheriff": sheriff[0], "don": don[0], "mafia": mafia}
    return None


def line_due(count_started_at: datetime, seconds: float = 5.0) -> datetime:
    """V1: the line «--------------» is posted when the 5 s count ends."""
    return count_started_at + timedelta(seconds=seconds)


def candidates_line(nominees: Sequence[int]) -> str:
    """V2: the host duplicates the candidates in the game chat, in nomination order."""
    return "Кандидаты: " + ", ".join(str(n) for n in nominees) if nominees else "Кандидатов нет"


def fouls_line(fouls: Mapping[Any, int], at_table: Sequence[int]) -> str:
    """X3: the foul counts of the players at the table, by seat."""
    parts = [f"{seat} — {fouls.get(str(seat), fouls.get(seat, 0))}" for seat in at_table if fouls.get(str(seat), fouls.get(seat, 0))]
    return "Фолы: " + ", ".join(parts) if parts else "Фолов нет"


def wink_relay_text(by: int) -> str:
    """N12: what the bot tells the target seat."""
    return f"Вам мигнул {by}"


# --- the voice channel's members -------------------------------------------------------


@dataclass(frozen=True)
class VoiceMember:
    """A member present in the game's voice channel, as the bot last saw him."""

    user_id: int
    display_name: str


def name_key(name: str) -> str:
    """A display name or nickname compared loosely: case, «ё»/«е» and spacing do not matter."""
    return " ".join((name or "").casefold().replace("ё", "е").split())


def match_seats_to_members(nicknames: Mapping[int, str], members: Sequence[VoiceMember]) -> dict[int, int]:
    """Seat → user id where the seat's nickname names exactly one voice member, and that
    member is named by exactly one seat. An ambiguous name pre-selects nobody: the host picks."""
    by_name: dict[str, list[int]] = {}
    for member in members:
        key = name_key(member.display_name)
        if key:
            by_name.setdefault(key, []).append(member.user_id)
    seats_by_name: dict[str, list[int]] = {}
    for seat, nickname in nicknames.items():
        key = name_key(nickname)
        if key:
            seats_by_name.setdefault(key, []).append(seat)
    matched: dict[int, int] = {}
    for key, seats in seats_by_name.items():
        users = by_name.get(key, [])
        if len(seats) == 1 and len(set(users)) == 1:
            matched[seats[0]] = users[0]
    return dict(sorted(matched.items()))
