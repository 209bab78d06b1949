"""Refusals of the rules engine.

Every refusal is a :class:`RuleViolation` with a stable snake_case ``code``
(never renamed: the UI translates by code), the ``rule`` id of
``shared/regulations/RULES.md`` it enforces (``"FORMAT"`` for a malformed
action), JSON-able ``params`` and an English ``message`` that names the rule.

``MESSAGES`` maps every code to its English template. Templates use
``{param}`` placeholders plus ``{rule}``; ``message`` is the template filled
in, so ``str(exc) == exc.message``.
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, str] = {
    # --- format (rule "FORMAT") -------------------------------------------------
    "bad_action": "Format: {problem}",
    "unknown_action": "Format: unknown action {do!r}.",
    "bad_field": "Format: field {field!r} {problem}.",
    "bad_seat": "Format: field {field!r} must be a seat number 1..10, got {value!r}.",
    "expect_not_applied": "Format: 'expect' is a checkpoint of a log, not a host action.",
    # --- game status ------------------------------------------------------------
    "game_over": "Rule {rule}: the game is {status}; no action can be recorded any more.",
    "game_not_started": "Rule {rule}: the game has not started yet (seat the table, give the roles, then start).",
    "not_in_setup": "Rule {rule}: seating and roles can only be changed before the game starts.",
    "not_seated": "Rule {rule}: the table must be seated (10 players) before the start.",
    "no_roles": "Rule {rule}: the roles must be given before the start.",
    "roles_not_distinct": "Rule {rule}: Sheriff, Don and the two Mafia must sit on four different seats.",
    "bad_players": "Rule {rule}: the table needs exactly ten nicknames in seat order.",
    # --- steps ------------------------------------------------------------------
    "next_not_allowed": "Rule {rule}: the step {step!r} does not end with 'next'; it ends with its own action.",
    "wrong_step": "Rule {rule}: {action!r} is not possible during the step {step!r}.",
    # --- nominations (D3, D4) ----------------------------------------------------
    "not_current_speaker": "Rule {rule}: only the current speaker (seat {speaker}) may nominate; seat {by} may not.",
    "target_not_at_table": "Rule {rule}: seat {target} is not at the table and cannot be nominated.",
    "self_nomination_not_allowed": "Rule {rule}: a player may not nominate himself under these regulations.",
    "already_nominated_by": "Rule {rule}: seat {by} already nominated seat {first} today; one accepted nomination per Day.",
    "repeated_nomination": "Rule {rule}: seat {by} has already named seat {target} in this speech; naming him again says nothing new.",
    # --- votes (V2–V11) ----------------------------------------------------------
    "vote_not_candidate": "Rule {rule}: seat {seat} is not a candidate of this vote (candidates: {candidates}).",
    "vote_voter_not_at_table": "Rule {rule}: seat {voter} is not at the table and cannot vote.",
    "vote_double_voter": "Rule {rule}: seat {voter} is listed more than once; a player votes for at most one candidate.",
    "lift_voter_not_at_table": "Rule {rule}: seat {voter} is not at the table and cannot vote on the lift.",
    "lift_double_voter": "Rule {rule}: seat {voter} is listed twice in the lift vote.",
    # --- night (N2, N4, N6) ------------------------------------------------------
    "shot_by_not_black": "Rule {rule}: seat {seat} is not a black player at the table and cannot shoot.",
    "shot_target_not_at_table": "Rule {rule}: seat {target} is not at the table and cannot be shot.",
    "best_move_too_many": "Rule {rule}: a best move names at most three seats ({count} given).",
    # --- penalties (F1–F18, X4, W5) ---------------------------------------------
    "penalty_not_at_table": "Rule {rule}: seat {seat} is neither at the table nor giving his last word; no penalty can be given.",
    "penalty_after_leaving": "Rule {rule}: seat {seat} has left the game; after leaving only a warning or a grey card can be given.",
    "f18_grey_card_instead": "Rule {rule}: this offence never earns a 4th or a disqualifying foul; give seat {seat} the grey card instead («{grey_card_en}»).",
    "remove_not_at_table": "Rule {rule}: seat {seat} is not at the table and cannot be removed.",
    "ppk_seat_not_of_team": "Rule {rule}: seat {seat} does not play for the {team} team.",
    # --- winks (N12) -------------------------------------------------------------
    "wink_not_at_table": "Rule {rule}: seat {by} is not at the table and cannot wink.",
    "wink_not_allowed_role": "Rule {rule}: only the blacks and the Sheriff may wink; seat {by} may not.",
    "wink_limit": "Rule {rule}: seat {by} has used his {limit} winks.",
    "wink_self": "Rule {rule}: a player cannot wink to himself.",
    "wink_target_not_at_table": "Rule {rule}: seat {target} is not at the table; no wink can be passed.",
    # --- technical pauses (D7) ---------------------------------------------------
    "tech_pause_not_at_table": "Rule {rule}: seat {seat} is not at the table and cannot take a technical pause.",
    "tech_pause_player_round": "Rule {rule}: seat {seat} already took his technical pause this round (limit {limit}).",
    "tech_pause_player_game": "Rule {rule}: seat {seat} already took {limit} technical pauses this game.",
    "tech_pause_round_total": "Rule {rule}: {limit} technical pauses were already taken this round.",
    "tech_pause_game_total": "Rule {rule}: {limit} technical pauses were already taken this game.",
}


class RuleViolation(Exception):
    """An action the rules (or the log format) forbid; nothing was changed."""

    code: str
    rule: str
    params: dict[str, Any]
    message: str

    def __init__(self, code: str, rule: str, params: dict[str, Any] | None = None, message: str | None = None) -> None:
        self.code = code
        self.rule = rule
        self.params = dict(params or {})
        if message is None:
            template = MESSAGES.get(code)
            if template is None:
                message = f"Rule {rule}: {code}."
            else:
                try:
                    message = template.format(rule=rule, **self.params)
                except (KeyError, IndexError, ValueError):
                    message = f"Rule {rule}: {code} {self.params}."
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"RuleViolation(code={self.code!r}, rule={self.rule!r}, params={self.params!r})"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "params": self.params, "message": self.message}
