"""Tournament scoring: the policy and the points of one seat in one game.

Terms:

- *policy*: the tournament's scoring settings (RULES.md X2: MGP is not
  defined by the regulations, so every value here is a tournament setting).
  It is stored with the tournament as a dict (`ScoringPolicy.to_dict()`), with
  a schema number so a stored policy stays readable after this code grows,
  and every change is kept as a numbered revision (models.ScoringRevision).
- *presets*: named policies an organizer starts from (`PRESETS`).
- *line*: one `games.models.SeatResult` of a counted tournament game, with
  the participant it belongs to and the game's place in the tournament
  (stage, round, table), plus the host's extra points for that seat.
- *seat score*: the points of a line: base (win/loss/draw) + best-move points
  + Ci + extra − penalties.

Rules applied here:

- N6–N10: best-move points go to a *red* player shot in N1 whose best move was
  accepted, by the number of different blacks named (N8); a black shot in N1
  gets neither best-move points nor Ci.
- N10: a red shot in N1 gets Ci whatever his best move, also when he was then
  removed in that Night (SeatResult.first_night_victim covers it).
- N11: Ci grows per player in an arithmetic progression (first value, step)
  with the number of times that player was shot in N1 within the stage; the
  count starts again in every stage. Games count in tournament order (round,
  then table). RULES N11 INTERP: every N1 shot of the player counts, whatever
  his team (the text counts «выведений этого Игрока во вторую Ночную фазу»
  and names no team); a black shot gets no Ci himself (N10) but his next red
  N1 shot in the stage is paid one step higher. Counting red shots only is a
  deviation from the text, a setting (`ci_red_shots_only`) off by default.
- Stored policies: schema 1 had `ci_counts_black_shots` (off by default,
  i.e. red shots only); `from_dict` keeps what such a policy meant, so an
  existing tournament keeps its scoring until an organizer changes it.
- F15 INTERP: the grey card's point penalty is a setting, default 0.
- Annulled games (W6) are not counted at all.

Pure Python (Decimal arithmetic, so 0.1 + 0.2 stays 0.3); no Django import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, InvalidOperation
from typing import Any

SCHEMA = 2  # 2: ci_red_shots_only replaces ci_counts_black_shots (N11)
ZERO = Decimal(0)

# Tie-breakers: key -> (higher is better?). Labels are in forms.py (translated).
TIEBREAKERS: dict[str, bool] = {
    "total": True,
    "wins": True,
    "extra": True,
    "best_move": True,
    "ci": True,
    "win_rate": True,
    "sheriff_wins": True,
    "don_wins": True,
    "penalties": False,
    "fouls": False,
}
DEFAULT_TIEBREAKERS = ("total", "wins", "extra", "best_move", "ci")

_DECIMAL_FIELDS = (
    "win",
    "loss",
    "draw",
    "ci_first",
    "ci_step",
    "extra_min",
    "extra_max",
    "penalty_removed_by_fouls",
    "penalty_disqualified",
    "penalty_ppk",
    "penalty_grey_card",
)


def D(value: Any) -> Decimal:
    """A Decimal from an int, float, str or Decimal (floats through their repr)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, bool):
        raise ValueError("a number is required")
    try:
        return Decimal(str(value).strip().replace(",", "."))
    except (InvalidOperation, ValueError) as exc:
        raise ValueError(f"not a number: {value!r}") from exc


@dataclass(frozen=True)
class ScoringPolicy:
    win: Decimal = Decimal(1)
    loss: Decimal = ZERO
    draw: Decimal = ZERO
    # Best-move points by the number of different blacks named: 0, 1, 2, 3.
    best_move: tuple[Decimal, Decimal, Decimal, Decimal] = (ZERO, ZERO, Decimal("0.25"), Decimal("0.5"))
    ci_enabled: bool = True
    ci_first: Decimal = Decimal("0.5")  # N11 INTERP default
    ci_step: Decimal = Decimal("0.5")  # N11
    # N11: a deviation from the text when on: only red N1 shots advance the Ci
    # count (the text counts every N1 shot of the player).
    ci_red_shots_only: bool = False
    # The host's extra points per player per game must lie in this range.
    extra_min: Decimal = Decimal("-1")
    extra_max: Decimal = Decimal("1")
    # Point penalties (positive numbers, subtracted).
    penalty_removed_by_fouls: Decimal = ZERO  # F3: the 4th foul
    penalty_disqualified: Decimal = ZERO  # F3 disqualifying foul, F4 second warning
    penalty_ppk: Decimal = ZERO  # W5: the offender
    penalty_grey_card: Decimal = ZERO  # F15 INTERP: per card, default 0
    tiebreakers: tuple[str, ...] = DEFAULT_TIEBREAKERS

    def __post_init__(self) -> None:
        for name in _DECIMAL_FIELDS:
            object.__setattr__(self, name, D(getattr(self, name)))
        bm = tuple(D(v) for v in self.best_move)
        if len(bm) != 4:
            raise ValueError("best_move needs four values (0, 1, 2, 3 blacks)")
        object.__setattr__(self, "best_move", bm)
        if self.extra_min > self.extra_max:
            raise ValueError("extra_min is above extra_max")
        tbs = tuple(self.tiebreakers)
        unknown = [t for t in tbs if t not in TIEBREAKERS]
        if unknown:
            raise ValueError(f"unknown tie-breakers: {unknown}")
        if len(set(tbs)) != len(tbs):
            raise ValueError("a tie-breaker is listed twice")
        object.__setattr__(self, "tiebreakers", tbs)

    # --- storage ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": SCHEMA}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Decimal):
                out[f.name] = _num(value)
            elif f.name == "best_move":
                out[f.name] = [_num(v) for v in value]
            elif f.name == "tiebreakers":
                out[f.name] = list(value)
            else:
                out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ScoringPolicy:
        """Build from a stored dict; missing keys take the defaults, unknown keys are ignored."""
        if not data:
            return cls()
        known = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        if "ci_red_shots_only" not in data:
            # Schema 1 (before RULES N11 INTERP counted every N1 shot): the
            # stored `ci_counts_black_shots`, absent = its default then (off),
            # meant red shots only unless it was on. Keep what was stored.
            legacy = data.get("ci_counts_black_shots", False if data.get("schema") == 1 else None)
            if legacy is not None:
                if not isinstance(legacy, bool):
                    raise ValueError("scoring.ci_counts_black_shots must be a boolean")
                kwargs["ci_red_shots_only"] = not legacy
        for key, value in data.items():
            if key not in known:
                continue
            if key == "best_move":
                if isinstance(value, Mapping):  # {"2": 0.25, "3": 0.5}
                    value = [value.get(str(i), value.get(i, 0)) for i in range(4)]
                kwargs[key] = tuple(value)
            elif key in ("ci_enabled", "ci_red_shots_only"):
                if not isinstance(value, bool):
                    raise ValueError(f"scoring.{key} must be a boolean")
                kwargs[key] = value
            elif key == "tiebreakers":
                kwargs[key] = tuple(value)
            else:
                kwargs[key] = value
        return cls(**kwargs)

    def with_changes(self, **changes: Any) -> ScoringPolicy:
        return replace(self, **changes)

    # --- rules ----------------------------------------------------------------------

    def ci_value(self, n: int) -> Decimal:
        """N11: the Ci of a player's n-th counted N1 shot in the stage (n ≥ 1)."""
        if not self.ci_enabled or n < 1:
            return ZERO
        return self.ci_first + self.ci_step * (n - 1)

    def extra_allowed(self, points: Decimal) -> bool:
        return self.extra_min <= points <= self.extra_max


def _num(value: Decimal) -> int | float:
    """JSON number for a Decimal: an int when whole, else a float of the same repr."""
    if value == value.to_integral_value():
        return int(value)
    return float(value)


PRESETS: dict[str, dict[str, Any]] = {
    # Cristalix tournaments as RULES.md reads them: a win is a point, best move
    # 0.25 / 0.5 for 2 / 3 blacks, Ci 0.5 + 0.5 per N1 shot, host's extra
    # points within ±1; removals and ППК cost points, the grey card nothing (F15).
    "cristalix": ScoringPolicy(
        penalty_removed_by_fouls=Decimal("0.5"),
        penalty_disqualified=Decimal("0.7"),
        penalty_ppk=Decimal("0.7"),
    ).to_dict(),
    # Win and loss only; no compensation, no extra points.
    "wins_only": ScoringPolicy(
        best_move=(ZERO, ZERO, ZERO, ZERO),
        ci_enabled=False,
        extra_min=ZERO,
        extra_max=ZERO,
        tiebreakers=("total", "wins", "sheriff_wins", "don_wins"),
    ).to_dict(),
    # A club evening: best move and extra points count more, penalties hurt more.
    "club": ScoringPolicy(
        best_move=(ZERO, Decimal("0.1"), Decimal("0.3"), Decimal("0.6")),
        ci_first=Decimal("0.4"),
        ci_step=Decimal("0.4"),
        extra_min=Decimal("-0.5"),
        extra_max=Decimal("0.7"),
        penalty_removed_by_fouls=Decimal("0.5"),
        penalty_disqualified=Decimal("1"),
        penalty_ppk=Decimal("1"),
        penalty_grey_card=Decimal("0.2"),
        tiebreakers=("total", "wins", "extra", "best_move", "ci", "penalties"),
    ).to_dict(),
}
DEFAULT_PRESET = "cristalix"


def preset(name: str) -> ScoringPolicy:
    return ScoringPolicy.from_dict(PRESETS[name])


# --- points of seats ---------------------------------------------------------------------


@dataclass
class Line:
    """One counted seat of one tournament game (see the module docstring)."""

    game_id: int
    seat_no: int
    player: Any  # the participant key (pk), or None when no participant matches
    stage: Any  # the stage key: Ci counts restart per stage (N11)
    order: tuple[Any, ...]  # the game's place in the tournament: (stage order, round, table)
    role: str
    team: str
    won: bool
    winner: str
    fouls: int = 0
    warnings: int = 0
    grey_cards: int = 0
    disqualified: bool = False
    removed_by_fouls: bool = False
    ppk: bool = False
    first_night_victim: bool = False
    best_move_accepted: bool = False
    best_move_blacks: int = 0
    best_move_seats: list[int] = field(default_factory=list)
    left_how: str = ""
    extra: Decimal = ZERO
    extra_comment: str = ""


@dataclass
class SeatScore:
    base: Decimal = ZERO  # win / loss / draw
    best_move: Decimal = ZERO
    ci: Decimal = ZERO
    ci_count: int = 0  # which counted N1 shot of this player in this stage gave it (N11)
    extra: Decimal = ZERO
    penalty: Decimal = ZERO  # positive, subtracted
    total: Decimal = ZERO

    def as_floats(self) -> dict[str, float]:
        return {
            "points": float(self.total),
            "extra": float(self.extra),
            "ci": float(self.ci),
            "base": float(self.base),
            "best_move": float(self.best_move),
            "penalty": float(self.penalty),
        }


def score_lines(lines: Iterable[Line], policy: ScoringPolicy) -> dict[tuple[int, int], SeatScore]:
    """Points of every line, keyed by (game_id, seat_no).

    Ci needs the lines of the whole stage in order (N11): pass every counted
    line of the stages concerned, not one game alone.
    """
    out: dict[tuple[int, int], SeatScore] = {}
    ci_counts: dict[tuple[Any, Any], int] = {}
    for line in sorted(lines, key=lambda x: (x.order, x.game_id, x.seat_no)):
        s = SeatScore()
        if line.winner == "draw":
            s.base = policy.draw
        elif line.won:
            s.base = policy.win
        else:
            s.base = policy.loss
        red = line.team == "red"
        # N11: every N1 shot of the player advances his count (RULES N11
        # INTERP), unless the tournament deviates to red shots only.
        if line.first_night_victim and (red or not policy.ci_red_shots_only):
            key = (line.stage, line.player if line.player is not None else ("nick", line.game_id, line.seat_no))
            n = ci_counts.get(key, 0) + 1
            ci_counts[key] = n
            if red:  # N10: a black shot in N1 gets no Ci
                s.ci_count = n
                s.ci = policy.ci_value(n)
        if red and line.first_night_victim and line.best_move_accepted:
            s.best_move = policy.best_move[max(0, min(3, line.best_move_blacks))]
        s.extra = line.extra
        pen = ZERO
        if line.removed_by_fouls:
            pen += policy.penalty_removed_by_fouls
        if line.disqualified:
            pen += policy.penalty_disqualified
        if line.ppk:
            pen += policy.penalty_ppk
        pen += policy.penalty_grey_card * line.grey_cards
        s.penalty = pen
        s.total = s.base + s.best_move + s.ci + s.extra - pen
        out[(line.game_id, line.seat_no)] = s
    return out
