"""Protocol log files (FORMAT.md): load one, run it through the engine, and
check its ``expect`` checkpoints and ``"reject": true`` actions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.rules.engine import apply_in_place
from games.rules.errors import RuleViolation
from games.rules.regulations import Regulations
from games.rules.schema import (
    MAX_LOG_BYTES,
    STATE_KEYS,
    JSONInputError,
    parse_json,
    validate_action,
)
from games.rules.state import GameState

LOG_FORMAT = "mafia-protocol-log/1"


@dataclass
class LogResult:
    ok: bool
    failure: str | None
    state: GameState
    # Where it failed (position in the file's action list), or None.
    failed_at: int | None = None
    applied: int = 0  # actions applied (expect and refused ones not counted)
    checked: int = 0  # expect checkpoints passed
    rejected: int = 0  # "reject": true actions correctly refused
    errors: list[str] = field(default_factory=list)


def load_log(path: str | Path) -> dict[str, Any]:
    """Read a log file; raises ValueError if it is not a protocol log.

    Parsed with bounded work (schema.parse_json: size, nesting, digits)."""
    with open(path, "rb") as fh:
        raw = fh.read(MAX_LOG_BYTES + 1)
    try:
        data = parse_json(raw, max_bytes=MAX_LOG_BYTES)
    except JSONInputError as exc:
        raise ValueError(f"{path}: {exc.en}") from None
    if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
        raise ValueError(f"{path}: not a protocol log (an object with an 'actions' list)")
    fmt = data.get("format")
    if fmt is not None and fmt != LOG_FORMAT:
        raise ValueError(f"{path}: unknown format {fmt!r} (expected {LOG_FORMAT!r})")
    return data


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False, separators=(", ", ": "))


def _normalise(value: Any) -> Any:
    """JSON round trip: int keys become strings, tuples lists, as in a file."""
    return json.loads(json.dumps(value))


def check_expect(state: GameState, expect: dict[str, Any]) -> list[str]:
    """The keys of ``expect`` whose value differs from the state (FORMAT.md:
    only the keys it names; lists compare in order, objects exactly)."""
    public = _normalise(state.public_dict())
    problems = []
    for key, wanted in expect.items():
        if key in ("do", "reject"):
            continue
        if key not in STATE_KEYS:
            problems.append(f"{key}: not a state key")
            continue
        actual = public[key]
        if _normalise(wanted) != actual:
            problems.append(f"{key}: expected {_dump(wanted)}, actual {_dump(actual)}")
    return problems


def run_log(data: dict[str, Any], regulations: Regulations | None = None) -> LogResult:
    """Replay a log, checking every ``expect`` and ``reject``; stops at the first failure."""
    state = GameState(regulations)
    result = LogResult(ok=True, failure=None, state=state)
    actions = data.get("actions")
    if not isinstance(actions, list):
        result.ok = False
        result.failure = "the log has no 'actions' list"
        return result
    for i, raw_action in enumerate(actions):
        # The input schema first, as on every path that makes actions; a
        # malformed `reject` action is a correct refusal.
        try:
            action = validate_action(raw_action, index=i, allow_expect=True)
        except RuleViolation as exc:
            if isinstance(raw_action, dict) and raw_action.get("reject") is True:
                result.rejected += 1
                continue
            return _fail(result, i, raw_action, f"refused: [{exc.rule} {exc.code}] {exc.message}")
        if action["do"] == "expect":
            problems = check_expect(state, action)
            if problems:
                return _fail(result, i, action, "expect failed: " + "; ".join(problems))
            result.checked += 1
            continue
        if action.get("reject") is True:
            before = state.public_dict()
            try:
                apply_in_place(state, action)
            except RuleViolation as exc:
                if state.public_dict() != before:
                    return _fail(result, i, action, f"refused ({exc.code}) but the state changed")
                result.rejected += 1
                continue
            return _fail(result, i, action, "expected a refusal (reject: true) but the action was accepted")
        try:
            apply_in_place(state, action)
        except RuleViolation as exc:
            return _fail(result, i, action, f"refused: [{exc.rule} {exc.code}] {exc.message}")
        result.applied += 1
    return result


def _fail(result: LogResult, index: int, action: Any, why: str) -> LogResult:
    result.ok = False
    result.failed_at = index
    result.failure = f"action {index} {_dump(action)}: {why}"
    result.errors.append(result.failure)
    return result


def run_file(path: str | Path, regulations: Regulations | None = None) -> LogResult:
    try:
        data = load_log(path)
    except (OSError, ValueError) as exc:
        return LogResult(ok=False, failure=str(exc), state=GameState(regulations))
    return run_log(data, regulations)


def log_files(paths: list[str | Path]) -> list[Path]:
    """Files named, and every ``*.json`` below each directory named (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(x for x in p.rglob("*.json") if x.is_file()))
        else:
            out.append(p)
    return out
