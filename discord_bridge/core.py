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
- *vote window*: the span in which «+» messages count for one candidate (V1,
  V2 in the regulations' order): the 5 s count, then the line
  «--------------» (its mark is the posted message's own Discord time), then
  «кто за N» per candidate. A «+» counts for the candidate whose «кто за N»
  click last preceded it, the last candidate's until the vote is recorded;
  a «+» before the line is no vote (``before_line``), a message after the
  line outside any count is shown as a possible violation (``after_line``),
  never an automatic foul.
- *step of a DM*: the step whose span holds the DM's Discord timestamp (the
  steps' start times are the log's action times), not the step running when
  the DM is processed: a gateway RESUME replays events late, and a slow
  database delays them, so "now" says nothing about when he sent it.
- *milliseconds*: Discord stamps a message to the millisecond (its
  snowflake); the server's clicks and actions carry microseconds. Both are
  floored to the millisecond before they are compared, so a «+» sent in the
  click's own millisecond belongs to that click.
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
BEFORE_LINE = "before_line"  # a «+» before the V1 line: no vote
AFTER_LINE = "after_line"  # a message after the V1 line outside any count: a possible violation
WITHDRAWN = "withdrawn"  # a «+» deleted or edited away: out of the count (a deletion: F18, the host decides)
RECORDED = "recorded"  # a DM for a step the host had already recorded: shown beside the log's answer, never pre-filled
STATUSES = (OK, LATE, NOT_HIS_TURN, REPEAT, MISMATCH, UNKNOWN, BEFORE_LINE, AFTER_LINE, WITHDRAWN, RECORDED)
MAX_DM_TEXT = 2000  # Discord's own message limit; anything longer is not a player's message

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
_WINK = re.compile(r"^\s*(?:мигни|мигнуть|подмигни|подмигнуть|wink)\W*([0-9]{1,2})(?![0-9])", re.IGNORECASE)
_NUMBER = re.compile(r"[0-9]{1,2}")
# «дон проверяет 5», «шериф стреляет в 3»: a role word followed by a verb is a target, not a claim.
_ACTION_VERBS = ("провер", "стрел", "чек", "check", "shoot", "убива")
_WORD = re.compile(r"[a-zа-яё]+", re.IGNORECASE)
_PLUS = re.compile(r"^\s*\+\s*$")
_MENTION = re.compile(r"^\s*<@!?([0-9]{15,20})>\s*$")
_USER_ID = re.compile(r"^\s*([0-9]{15,20})\s*$")
_SNOWFLAKE = re.compile(r"[0-9]{1,20}")
MAX_SNOWFLAKE = 2**63 - 1  # a signed 64-bit column on SQLite and PostgreSQL alike


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
    text = clean_text(text).strip()
    if not text:
        return Parsed("unknown")
    wink = _WINK.match(text)
    if wink:
        seat = int(wink.group(1))
        return Parsed("wink", seat=seat) if seat in SEATS else Parsed("unknown")
    lowered = text.lower()
    numbers = [int(n) for n in _NUMBER.findall(lowered)]
    first = numbers[0] if numbers else None
    words = _WORD.findall(lowered)
    role = next((_ROLE_WORDS[w] for w in words if w in _ROLE_WORDS), None)
    if role is not None and any(w.startswith(_ACTION_VERBS) for w in words):
        role = None  # «дон проверяет 5»: he names a target
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


def clean_text(text: str | None) -> str:
    """A Discord text as the bridge stores it: NUL and other C0 controls but newline and tab
    removed (PostgreSQL refuses NUL), bounded to Discord's own limit."""
    raw = (text or "")[:MAX_DM_TEXT]
    return "".join(ch for ch in raw if ch in "\n\t" or not (ord(ch) < 32 or ord(ch) == 127))


def parse_snowflake(raw: object, what: str = "id") -> int:
    """A Discord id: ASCII digits only (no «²», «①» or other scripts' digits), within 64 bits."""
    text = str(raw if raw is not None else "").strip()
    if not _SNOWFLAKE.fullmatch(text) or int(text) > MAX_SNOWFLAKE or int(text) == 0:
        raise BridgeError(f"{what}: «{text[:40]}» is not a Discord id (ASCII digits, at most 64 bits).")
    return int(text)


def is_plus(text: str) -> bool:
    """A vote in the game chat is a message that is only «+» (V1, V3)."""
    return bool(_PLUS.match(text or ""))


# --- seat mapping --------------------------------------------------------------------


def parse_member_ref(text: str) -> int:
    """A Discord user id from «<@123…>», «<@!123…>» or the bare id (snowflake)."""
    match = _MENTION.match(text or "") or _USER_ID.match(text or "")
    if not match or int(match.group(1)) > MAX_SNOWFLAKE:
        raise BridgeError(f"«{clean_text(text)[:40]}» is neither a Discord user id nor an @mention.")
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
            user = (
                raw_user
                if isinstance(raw_user, int) and 0 < raw_user <= MAX_SNOWFLAKE
                else parse_member_ref(str(raw_user))
            )
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


def to_ms(moment: datetime) -> datetime:
    """Floor to the millisecond: Discord's resolution (see the module's terms)."""
    return moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000)


Pause = tuple[datetime, datetime | None]  # a pause's start and end (None: still running)


@dataclass(frozen=True)
class StepWindow:
    """A step's window: it opened when the step began, and runs its clock (15 s, N1) plus a grace.

    The clock does not run during a pause (a D7 technical pause, a D8 time-out: «all clocks
    stop»), so a pause that began before the window closed extends it by its length.
    """

    step: str | None
    opened_at: datetime | None
    seconds: float
    pauses: Sequence[Pause] = ()

    def closes_at(self) -> datetime | None:
        """When the clock ran out (None: not yet known — a pause runs; or no opening)."""
        if self.opened_at is None:
            return None
        end = to_ms(self.opened_at) + timedelta(seconds=self.seconds)
        for start, stop in sorted(self.pauses, key=lambda p: p[0]):
            start = to_ms(start)
            if start > end:
                break  # the clock had run out before this pause
            if stop is None:
                return None
            lost = to_ms(stop) - max(start, to_ms(self.opened_at))
            if lost > timedelta(0):
                end += lost
        return end

    def contains(self, sent_at: datetime, grace: timedelta = DEFAULT_GRACE) -> bool:
        if self.opened_at is None:
            return True
        opened = to_ms(self.opened_at)
        closes = self.closes_at()
        sent = to_ms(sent_at)
        return opened - grace <= sent and (closes is None or sent <= closes + grace)


@dataclass(frozen=True)
class StepSpan:
    """One step of the game as the log tells it: its clock key, when it began (the time of
    the action that led to it; an action that keeps the step, a wink, does not reopen it),
    its clock, and who was at the table with which role."""

    key: str
    step: str | None
    status: str
    opened_at: datetime
    seconds: float
    roles: Mapping[int, str] = field(default_factory=dict)
    at_table: Sequence[int] = ()
    winks: Mapping[int, int] = field(default_factory=dict)
    pauses: Sequence[Pause] = ()  # D7 / D8 pauses that began in this step
    closed_by: Mapping[str, Any] | None = None  # the action that ended it (None: it runs)

    def view(self) -> GameView:
        return GameView(
            self.status,
            self.step,
            self.roles,
            self.at_table,
            StepWindow(self.step, self.opened_at, self.seconds, self.pauses),
            self.winks,
        )


def recorded_answer(
    spans: Sequence[StepSpan], index: int, seat: int, kinds: Sequence[str]
) -> tuple[str, str, int | None] | None:
    """What the host already recorded for the step a DM answers (issue 25-3), or None.

    `index`: the span the DM was sent in; `kinds`: what it may answer (shot, don_check,
    sheriff_check: the sender's own steps). The step answered is the latest span of one of
    them at or before `index` (a DM sent after the host moved on answers the step he left).
    Returns (its kind, its clock key, the recorded target) when the action that ended it is
    the kind's own action; None while that step runs or if it ended otherwise.
    """
    steps = {("mafia_shot" if kind == "shot" else kind): kind for kind in kinds}
    for span in reversed(spans[: index + 1]):
        if span.step not in steps:
            continue
        kind, action = steps[span.step], span.closed_by
        if action is None:
            return None  # that step still runs: nothing was recorded yet
        if (
            kind == "shot"
            and action.get("do") == "shots"
            and isinstance(action.get("by"), Mapping)
            and str(seat) in action["by"]
        ):
            target = action["by"][str(seat)]
            return kind, span.key, (int(target) if target is not None else None)
        if kind != "shot" and action.get("do") == kind:
            target = action.get("target")
            return kind, span.key, (int(target) if target is not None else None)
        return None
    return None


def own_steps(role: str | None) -> tuple[str, ...]:
    """The proposal kinds a seat's DMs may answer at night."""
    return tuple("shot" if step == "mafia_shot" else step for step in _own_step(role))
    return None


def span_at(spans: Sequence[StepSpan], sent_at: datetime) -> StepSpan | None:
    """The step that was running when a message was sent: the last span opened at or before
    it (to the millisecond). None: sent before the game existed."""
    sent = to_ms(sent_at)
    found: StepSpan | None = None
    for span in spans:
        if to_ms(span.opened_at) <= sent:
            found = span
        else:
            break
    return found


@dataclass(frozen=True)
class VoteWindows:
    """The V1 line's mark (None: not posted yet) and the host's «кто за N» clicks, in order."""

    clicks: Sequence[tuple[int, datetime]]
    line_at: datetime | None = None

    def candidate_at(self, sent_at: datetime) -> tuple[int | None, str]:
        """The candidate whose count was running when a «+» was sent, and the message's status.

        V1: before the line (or while it is not posted yet) a «+» is no vote:
        ``before_line``; after the line but before the first «кто за N»: a
        message after the line, ``after_line`` (the host decides, V1). Times
        are compared to the millisecond (the module's terms).
        """
        sent = to_ms(sent_at)
        if self.line_at is None or sent < to_ms(self.line_at):
            return None, BEFORE_LINE
        current: int | None = None
        for candidate, clicked_at in self.clicks:
            if to_ms(clicked_at) < to_ms(self.line_at):
                continue  # a click before the line opens no count (V1: the line comes first)
            if sent >= to_ms(clicked_at):
                current = candidate
            else:
                break
        if current is None:
            return None, AFTER_LINE
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

    @property
    def has_votes(self) -> bool:
        """At least one «+» counted: an empty tally is never offered (V4 would give every
        vote to the last candidate on one key)."""
        return any(self.votes.values())

    def action(self) -> dict[str, Any]:
        """The `votes` action the vote panel is pre-filled with (FORMAT.md)."""
        return {"do": "votes", "for": {str(c): sorted(v) for c, v in self.votes.items() if v}}


def tally_votes(pluses: Iterable[Plus], windows: VoteWindows, at_table: Iterable[int]) -> VoteTally:
    """Assign each «+» to the candidate whose count was running; the host still decides (V1: his ping)."""
    table = set(at_table)
    tally = VoteTally(votes={c: [] for c, _ in windows.clicks})
    voted: set[int] = set()
    for plus in sorted(pluses, key=lambda p: (to_ms(p.sent_at), p.message_id)):
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
            said = f"{role_word(self.role)} {self.target}"
        elif self.kind == "wink":
            said = f"мигни {self.target}"
        else:
            said = str(self.target) if self.target is not None else "никого"
        return receipt_for(self.status, said)


def receipt_for(status: str, said: str, first: str | None = None) -> str:
    """What the sender is told: what happened to his message, never anyone else's."""
    if status == OK:
        return f"принято: {said}"
    if status == LATE:
        return "поздно — не принято"
    if status == REPEAT:
        return f"повтор: считается первое ({first})" if first else "повтор: считается первое"
    if status == MISMATCH:
        return "не принято: это не ваше место"
    if status == RECORDED:
        return "ведущий уже записал этот ход"
    return "не ваш ход"


def role_word(role: str | None) -> str:
    return {"sheriff": "шериф", "don": "дон", "mafia": "мафия"}.get(role or "", "?")


def _own_step(role: str | None) -> tuple[str, ...]:
    if role in BLACK_ROLES:
        return ("mafia_shot", "don_check") if role == "don" else ("mafia_shot",)
    if role == "sheriff":
        return ("sheriff_check",)
    return ()


def build_proposal(
    parsed: Parsed,
    *,
    sender_seat: int,
    game: GameView,
    sent_at: datetime,
    already_sent: bool = False,
    grace: timedelta = DEFAULT_GRACE,
) -> Proposal:
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
        allowed = (
            (role in BLACK_ROLES or role == "sheriff") and sender_seat in game.at_table and game.status == "running"
        )
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
    parts = [
        f"{seat} — {fouls.get(str(seat), fouls.get(seat, 0))}"
        for seat in at_table
        if fouls.get(str(seat), fouls.get(seat, 0))
    ]
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
