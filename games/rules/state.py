"""The state of one game, as computed from its protocol log.

Terms (RULES.md): a *seat* is 1..10; *red* = Sheriff + 6 civilians, *black* =
Don + 2 Mafia; *Day k* is followed by *Night k* (N0 is the first night, before
Day 1, and has no shots); a *round* is Day k and Night k (N0 is round 0); the
*morning* is the end of a Night, where the player shot leaves and speaks his
last word (still phase ``night``).

``GameState`` holds the public state of FORMAT.md (``public_dict()``), the
engine's bookkeeping (speech queue, pending shot, vote cancellations, limits),
and ``record``: what happened, in plain JSON-able dicts, for the database
projection, the Excel protocol and the readable protocol lines. Every record
entry carries ``index``: the 0-based position of the action that produced it
among the actions *applied* to this state (``expect`` checkpoints and refused
actions are not counted) — i.e. the index in the list of stored host actions.
Record entries are never mutated once appended, so ``copy()`` copies the lists
only.
"""

from __future__ import annotations

from typing import Any

from games.rules.regulations import DEFAULT_REGULATIONS, Regulations

BLACK_ROLES = frozenset(("don", "mafia"))
SEATS = tuple(range(1, 11))

RECORD_LISTS = (
    "nominations",
    "votes",
    "shots",
    "checks",
    "best_moves",
    "penalties",
    "winks",
    "tech_pauses",
    "speeches",
    "events",
)


# The steps in which a player speaks to the table, with a speech's clock.
SPEECH_STEPS = frozenset({"speech", "tie_speech", "last_word"})
# The Day's steps before its vote is over.
BEFORE_THE_VOTE_STEPS = frozenset({"speech", "tie_speech", "voting", "lift_vote"})


def vote_still_ahead(vote_day: int, day: int, phase: str | None, step: str | None) -> bool:
    """Whether the vote of Day `vote_day` has not been held yet at (day, phase,
    step): a vote cancelled by a removal (F7–F10) is announced until then."""
    return vote_day > day or (vote_day == day and phase == "day" and step in BEFORE_THE_VOTE_STEPS)


class Record:
    """What happened, list by list (see the module docstring for ``index``).

    - nominations: {index, day, by, target, result: "accepted"|"supported"}
    - votes: {index, day, round, kind: "vote"|"revote"|"lift", candidates,
      ballots {voter: candidate}, auto [voters added to the last candidate, V4],
      totals {candidate: count}, outcome, leaving}; lift votes carry yes / no
      instead of ballots / auto / totals. outcome: "leave" (one top candidate
      or lift carried), "tie" (30 s speeches and a revote follow, V8/V9),
      "lift" (same tie again: the lift vote follows, V10), "night" (Day 1 split
      between 3+ candidates, V6), "no_elimination" (lift not carried, or V11).
    - shots: {index, night, by {black: target|None}, victim|None}
    - checks: {index, night, by: "don"|"sheriff", target, result}
    - best_moves: {index, night, seat, seats, accepted, passed, how, blacks}
    - penalties: {index, kind, seat, team, reason, day, phase, step, count,
      removed, how, cancels_vote_day}
    - winks: {index, by, target, day, phase}; tech_pauses: {index, seat, day, phase, round}
    - speeches: {index, day, phase, kind: "speech"|"tie_speech"|"last_word", seat, seconds}
    - events: {index, kind, day, ...} for what has no list of its own:
      "vote_cancelled", "no_nominees", "single_candidate_day1" (V5),
      "vote_stopped" (F10: a vote under way stopped), "draw" (W4),
      "decided_by_shot" (W1: the shot decided the game; the Night's remaining
      steps were not held).
    - result: {index, winner, ppk, annulled, reason} once decided, else None.
    """

    __slots__ = (*RECORD_LISTS, "result")

    nominations: list[dict[str, Any]]
    votes: list[dict[str, Any]]
    shots: list[dict[str, Any]]
    checks: list[dict[str, Any]]
    best_moves: list[dict[str, Any]]
    penalties: list[dict[str, Any]]
    winks: list[dict[str, Any]]
    tech_pauses: list[dict[str, Any]]
    speeches: list[dict[str, Any]]
    events: list[dict[str, Any]]
    result: dict[str, Any] | None

    def __init__(self) -> None:
        for name in RECORD_LISTS:
            setattr(self, name, [])
        self.result = None

    def copy(self) -> Record:
        new = Record.__new__(Record)
        new.nominations = self.nominations.copy()
        new.votes = self.votes.copy()
        new.shots = self.shots.copy()
        new.checks = self.checks.copy()
        new.best_moves = self.best_moves.copy()
        new.penalties = self.penalties.copy()
        new.winks = self.winks.copy()
        new.tech_pauses = self.tech_pauses.copy()
        new.speeches = self.speeches.copy()
        new.events = self.events.copy()
        new.result = self.result
        return new

    def get(self, name: str, default: Any = None) -> Any:
        """Dict-style access, so callers may treat the record as a mapping."""
        return getattr(self, name, default) if name in self.__slots__ else default

    def __getitem__(self, name: str) -> Any:
        if name not in self.__slots__:
            raise KeyError(name)
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: [dict(e) for e in getattr(self, name)] for name in RECORD_LISTS}
        out["result"] = dict(self.result) if self.result else None
        return out


class GameState:
    """Everything the engine knows about a game. Mutable; see ``engine.apply``."""

    __slots__ = (
        "regulations",
        # public (FORMAT.md "State")
        "status",
        "day",
        "phase",
        "step",
        "speaker",
        "speech_seconds",
        "at_table",
        "left",
        "nominees",
        "fouls",
        "winner",
        "ppk",
        "best_move",
        "checks",
        # setup
        "players",
        "roles",
        # bookkeeping
        "count",
        "opener",
        "queue",
        "after_words",
        "nominated_by",
        "vote_round",
        "result_known",
        "cancelled",
        "day2_removals",
        "mute_pending",
        "victim",
        "warnings",
        "grey_cards",
        "winks",
        "tp_seat_round",
        "tp_seat_game",
        "tp_round",
        "tp_game",
        "leaves",
        "night_leaves",
        "record",
    )

    regulations: Regulations
    status: str
    day: int | None
    phase: str | None
    step: str | None
    speaker: int | None
    speech_seconds: int | None
    at_table: list[int]
    left: list[dict[str, Any]]
    nominees: list[int]
    fouls: dict[int, int]
    winner: str | None
    ppk: str | None
    best_move: dict[str, Any] | None
    checks: list[dict[str, Any]]
    players: list[str] | None
    roles: dict[int, str]
    count: int
    opener: int | None
    queue: list[int]
    after_words: str
    nominated_by: dict[int, int]
    vote_round: int
    result_known: bool
    cancelled: set[int]
    day2_removals: int
    mute_pending: set[int]
    victim: int | None
    warnings: dict[int, int]
    grey_cards: dict[int, int]
    winks: dict[int, int]
    tp_seat_round: dict[tuple[int, int], int]
    tp_seat_game: dict[int, int]
    tp_round: dict[int, int]
    tp_game: int
    leaves: int
    night_leaves: list[int]
    record: Record

    def __init__(self, regulations: Regulations | None = None) -> None:
        self.regulations = regulations or DEFAULT_REGULATIONS
        self.status = "setup"
        self.day = None
        self.phase = None
        self.step = None
        self.speaker = None
        self.speech_seconds = None
        self.at_table = []
        self.left = []
        self.nominees = []
        self.fouls = {}
        self.winner = None
        self.ppk = None
        self.best_move = None
        self.checks = []
        self.players = None
        self.roles = {}
        self.count = 0
        self.opener = None
        # Seats still to speak after the current speaker: Day speeches, tie
        # speeches, or last words, depending on the step.
        self.queue = []
        # What follows the last word(s): "night" (after a Day vote) or "day"
        # (after the morning last word of the player shot).
        self.after_words = "night"
        self.nominated_by = {}  # D4: by -> his accepted candidate, this Day
        self.vote_round = 0  # votes held this Day (vote, revotes, lift)
        self.result_known = False  # F8/F10: this Day's vote result is known
        self.cancelled = set()  # Days whose vote is cancelled (F7–F10)
        self.day2_removals = 0  # F10: cancelling removals on Day 2 before its result
        self.mute_pending = set()  # D6: seats whose nearest speech is lost
        self.victim = None  # N2: the player shot this Night, until the morning
        self.warnings = {}
        self.grey_cards = {}
        self.winks = {}
        self.tp_seat_round = {}
        self.tp_seat_game = {}
        self.tp_round = {}
        self.tp_game = 0
        self.leaves = 0  # W4: how many times somebody left the table
        self.night_leaves = []  # W4: `leaves` at the start of Night k (index k; 0 = N0 unused)
        self.record = Record()

    # --- copies -----------------------------------------------------------------

    def copy(self) -> GameState:
        """An independent copy (record entries, left entries and checks are
        immutable once created, so the lists are copied, not their items)."""
        new = GameState.__new__(GameState)
        new.regulations = self.regulations
        new.status = self.status
        new.day = self.day
        new.phase = self.phase
        new.step = self.step
        new.speaker = self.speaker
        new.speech_seconds = self.speech_seconds
        new.at_table = self.at_table.copy()
        new.left = self.left.copy()
        new.nominees = self.nominees.copy()
        new.fouls = self.fouls.copy()
        new.winner = self.winner
        new.ppk = self.ppk
        new.best_move = self.best_move
        new.checks = self.checks.copy()
        new.players = self.players
        new.roles = self.roles
        new.count = self.count
        new.opener = self.opener
        new.queue = self.queue.copy()
        new.after_words = self.after_words
        new.nominated_by = self.nominated_by.copy()
        new.vote_round = self.vote_round
        new.result_known = self.result_known
        new.cancelled = self.cancelled.copy()
        new.day2_removals = self.day2_removals
        new.mute_pending = self.mute_pending.copy()
        new.victim = self.victim
        new.warnings = self.warnings.copy()
        new.grey_cards = self.grey_cards.copy()
        new.winks = self.winks.copy()
        new.tp_seat_round = self.tp_seat_round.copy()
        new.tp_seat_game = self.tp_seat_game.copy()
        new.tp_round = self.tp_round.copy()
        new.tp_game = self.tp_game
        new.leaves = self.leaves
        new.night_leaves = self.night_leaves.copy()
        new.record = self.record.copy()
        return new

    __copy__ = copy

    # --- views ------------------------------------------------------------------

    def public_dict(self) -> dict[str, Any]:
        """Exactly the state of FORMAT.md (what `expect` may check)."""
        bm = self.best_move
        return {
            "status": self.status,
            "day": self.day,
            "phase": self.phase,
            "step": self.step,
            "speaker": self.speaker,
            "speech_seconds": self.speech_seconds,
            "at_table": self.at_table.copy(),
            "left": [dict(e) for e in self.left],
            "nominees": self.nominees.copy(),
            "fouls": {str(seat): n for seat, n in sorted(self.fouls.items())},
            "winner": self.winner,
            "ppk": self.ppk,
            "best_move": {"seat": bm["seat"], "seats": list(bm["seats"]), "blacks": bm["blacks"]} if bm else None,
            "checks": [dict(c) for c in self.checks],
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything, internal bookkeeping included (tests compare these)."""
        out: dict[str, Any] = {}
        for name in GameState.__slots__:
            value = getattr(self, name)
            if name in ("record", "regulations"):
                value = value.to_dict()
            elif isinstance(value, set):
                value = sorted(value)
            elif isinstance(value, dict):
                value = dict(value)
            elif isinstance(value, list):
                value = list(value)
            out[name] = value
        return out

    def remaining_speakers(self) -> list[int]:
        """Seats still to speak after the current speaker, in order, in the
        current Day speeches or tie speeches ([] on any other step)."""
        if self.step in ("speech", "tie_speech"):
            return self.queue.copy()
        return []

    @property
    def step_seconds(self) -> int | None:
        """The clock of the current step (T table); None for the steps that end
        with their own action (voting, lift_vote) and once finished."""
        step = self.step
        if step in SPEECH_STEPS:
            return self.speech_seconds
        r = self.regulations
        if step == "dogovorka":
            return r.dogovorka
        if step == "free_seating":
            return r.free_seating
        if step == "mafia_shot":
            return r.mafia_shot
        if step == "don_check":
            return r.don_check
        if step == "sheriff_check":
            return r.sheriff_check
        if step == "best_move":
            return r.best_move
        return None

    @property
    def is_over(self) -> bool:
        return self.status in ("finished", "annulled")

    def lone_candidate_on_day1(self) -> bool:
        """V5: Day 1 with a single candidate: no vote is held, nobody leaves."""
        return self.day == 1 and len(self.nominees) == 1

    def vote_follows(self) -> bool:
        """Whether today's nominations go to a vote when the speeches end:
        somebody is nominated, not a lone candidate on Day 1 (V5), and no
        removal has cancelled today's vote (F7–F10)."""
        return bool(self.nominees) and not self.lone_candidate_on_day1() and self.day not in self.cancelled

    def team_of(self, seat: int) -> str:
        return "black" if self.roles.get(seat) in BLACK_ROLES else "red"

    def blacks_at_table(self) -> list[int]:
        roles = self.roles
        return [s for s in self.at_table if roles.get(s) in BLACK_ROLES]

    def seat_of(self, role: str) -> int | None:
        for seat, r in self.roles.items():
            if r == role:
                return seat
        return None

    def __repr__(self) -> str:
        return f"<GameState {self.status} day={self.day} {self.phase}/{self.step} speaker={self.speaker}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]
