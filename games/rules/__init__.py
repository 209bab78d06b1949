"""The pure rules engine of the Cristalix «Мафия» regulations (no Django here).

A game is the list of its host actions (shared/protocol-log/FORMAT.md); its
state is ``replay(actions)``. Rule ids are those of shared/regulations/RULES.md.
"""

from games.rules.catalogue import PENALTY_REASONS, reasons_for
from games.rules.engine import (
    ACTION_KINDS,
    NEXT_STEPS,
    apply,
    apply_in_place,
    legal_actions,
    new_state,
    penalty_offer,
    replay,
    replay_as_recorded,
)
from games.rules.errors import MESSAGES, RuleViolation
from games.rules.logfile import (
    LogResult,
    check_expect,
    load_log,
    log_files,
    run_file,
    run_log,
)
from games.rules.regulations import DEFAULT_REGULATIONS, Regulations
from games.rules.schema import (
    MAX_ACTION_BYTES,
    MAX_LOG_BYTES,
    check_title,
    parse_action_json,
    parse_log_bytes,
    validate_action,
    validate_log,
)
from games.rules.state import GameState, Record

__all__ = [
    "ACTION_KINDS",
    "DEFAULT_REGULATIONS",
    "MESSAGES",
    "NEXT_STEPS",
    "PENALTY_REASONS",
    "GameState",
    "MAX_ACTION_BYTES",
    "MAX_LOG_BYTES",
    "LogResult",
    "Record",
    "Regulations",
    "RuleViolation",
    "apply",
    "apply_in_place",
    "check_expect",
    "check_title",
    "legal_actions",
    "load_log",
    "log_files",
    "new_state",
    "parse_action_json",
    "parse_log_bytes",
    "reasons_for",
    "penalty_offer",
    "replay",
    "replay_as_recorded",
    "run_file",
    "run_log",
    "validate_action",
    "validate_log",
]
