"""The settings a tournament may vary: the T-table clocks, the limits, and the
INTERP readings of RULES.md that the catalogue marks as open.

Defaults are the Cristalix regulations as RULES.md reads them; a game stores
``Regulations.to_dict()`` so a replay years later uses the same settings.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

LIFT_MAJORITIES = ("more_than_half", "half_or_more")


@dataclass(frozen=True, slots=True)
class Regulations:
    # --- T table (seconds) -------------------------------------------------------
    dogovorka: int = 60  # N0.3
    free_seating: int = 60  # N0.4
    speech: int = 60  # D1
    speech_short: int = 30  # F6: 3 fouls, 3–4 players at the table
    tie_speech: int = 30  # V8, F5
    last_word: int = 60  # V12, N5
    mafia_shot: int = 15  # N1
    don_check: int = 15  # N1
    sheriff_check: int = 15  # N1
    best_move: int = 20  # N6
    tech_pause: int = 120  # D7
    gesture_countdown: int = 5  # V1
    vote_per_candidate: int = 4  # V2
    warning_at: int = 10  # D1 / T2: «10 СЕКУНД»

    # --- limits --------------------------------------------------------------------
    winks_per_player: int = 2  # N12
    tech_pauses_per_player_round: int = 1  # D7
    tech_pauses_per_player_game: int = 2  # D7
    tech_pauses_per_round: int = 2  # D7
    tech_pauses_per_game: int = 3  # D7
    fouls_to_mute: int = 3  # F2 / D6
    fouls_to_remove: int = 4  # F3
    warnings_to_remove: int = 2  # F4
    best_move_seats: int = 3  # N6

    # --- INTERP readings that may vary -------------------------------------------------
    # V10: "majority" of the lift vote: more than half of the players at the table.
    lift_majority: str = "more_than_half"
    # D3: a player may nominate himself.
    allow_self_nomination: bool = True
    # V6: Day 1 tie between this many candidates or more ends the Day.
    day1_split_min: int = 3
    # F6: table sizes at which a 3-foul player speaks 30 s instead of 0.
    short_speech_min_players: int = 3
    short_speech_max_players: int = 4
    # N9: no best move when this many players or more left by the Day 1 vote.
    best_move_blocked_day1_leavers: int = 2
    # W4: number of Nights in a row without a change of the table for a draw.
    draw_nights: int = 3

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Regulations:
        """Build from a stored dict; unknown keys are ignored (older/newer versions)."""
        if not data:
            return cls()
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            f = known.get(key)
            if f is None:
                continue
            default = getattr(cls(), key)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ValueError(f"regulations.{key} must be a boolean")
            elif isinstance(default, int):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ValueError(f"regulations.{key} must be an integer")
            elif isinstance(default, str) and not isinstance(value, str):
                raise ValueError(f"regulations.{key} must be a string")
            kwargs[key] = value
        reg = cls(**kwargs)
        if reg.lift_majority not in LIFT_MAJORITIES:
            raise ValueError(f"regulations.lift_majority must be one of {LIFT_MAJORITIES}")
        return reg

    def lift_passes(self, yes: int, at_table: int) -> bool:
        """V10: does the lift vote carry with ``yes`` votes of ``at_table`` players?"""
        if self.lift_majority == "half_or_more":
            return yes * 2 >= at_table
        return yes * 2 > at_table

    def lift_votes_needed(self, at_table: int) -> int:
        """V10: the fewest «yes» votes of ``at_table`` players that carry the lift vote."""
        return next(n for n in range(at_table + 1) if self.lift_passes(n, at_table)) if at_table else 0


DEFAULT_REGULATIONS = Regulations()
