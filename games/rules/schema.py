"""The input schema of host actions: keys, types and limits, checked before the engine.

Every path that makes an action — the console form, the JSON ``action``
field, ``import_log``, the one write path (games/services.py), a bot —
passes it through :func:`validate_action` (or :func:`validate_log` for a
whole file) first; the engine then trusts the shape and judges only the
rules. Pure Python, no Django: the limits are the app's, not the
database's, so SQLite and PostgreSQL behave the same.

Terms:

- *field*: a key of an action object besides ``do`` (FORMAT.md's fields,
  ``reject`` on any action, and what this app adds: ``seed`` on ``seat`` —
  the key of a drawn seating, S1 — and ``reason_code`` on a penalty — a code
  of the F16 catalogue, games/rules/catalogue.py).
- *seat*: an ``int`` 1..10 — never a bool, a float or a string (a JSON
  object key naming a seat is the string of such an int, "1".."10").
- *text*: a string without C0 control characters (U+0000–U+001F), DEL or
  lone surrogates; a reason may keep its line breaks.

A refusal is a :class:`RuleViolation` with code ``bad_action`` and rule
``FORMAT`` whose params name the action's ``index`` (its position in the
log, or None for a single action not yet placed), the ``field``, and the
problem in English (``problem``) and Russian (``problem_ru``).

:func:`parse_json` reads untrusted JSON without unbounded recursion or work:
a byte cap first, a linear scan that refuses nesting deeper than
``MAX_DEPTH``, integers of more than ``MAX_INT_DIGITS`` digits, NaN and
±Infinity, and duplicate keys.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from games.rules.catalogue import PENALTY_REASONS
from games.rules.errors import RuleViolation
from games.rules.nicknames import nickname_key

# --- limits ----------------------------------------------------------------------

MAX_ACTION_BYTES = 8 * 1024  # one action, encoded as UTF-8 JSON
MAX_LOG_BYTES = 5 * 1024 * 1024  # one log file (README "Limits")
MAX_LOG_ACTIONS = 20_000  # a game is a few hundred actions; this bounds a file's work
MAX_DEPTH = 32  # nesting of arrays/objects in any JSON the app reads
MAX_INT_DIGITS = 20
MAX_NICKNAME = 64
MAX_REASON = 300
MAX_TITLE = 200
MAX_SEED = 64
MAX_EXPECT_TEXT = 64  # any string inside an `expect` checkpoint
PENALTY_FIELDS = ("foul", "warning", "grey_card", "disqualify", "remove")
REASON_CODES = frozenset(r["code"] for r in PENALTY_REASONS)
# What an `expect` may name (FORMAT.md "State").
STATE_KEYS = frozenset(
    (
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
    )
)

_MISSING = object()


def _problem(en: str, ru: str) -> tuple[str, str]:
    return en, ru


def bad_action(index: int | None, field: str, en: str, ru: str) -> RuleViolation:
    """The refusal of a malformed action: names its position and field, in both languages."""
    where = f"action {index}" if index is not None else "the action"
    return RuleViolation(
        "bad_action",
        "FORMAT",
        {"index": index, "field": field, "problem": en, "problem_ru": ru},
        f"Format: {where}, field {field!r}: {en}",
    )


# --- text ------------------------------------------------------------------------------


def _text_problem(value: str, *, line_breaks: bool = False) -> tuple[str, str] | None:
    """Why a string is not acceptable text, or None."""
    for ch in value:
        o = ord(ch)
        if o < 0x20 or o == 0x7F:
            if line_breaks and ch in "\n\r":
                continue
            return _problem(f"contains a control character (U+{o:04X})", f"содержит управляющий символ (U+{o:04X})")
        if 0xD800 <= o <= 0xDFFF:
            return _problem(
                "contains an unpaired surrogate (not valid Unicode text)",
                "содержит непарный суррогат (не текст Юникода)",
            )
    return None


def check_text(
    value: Any,
    *,
    index: int | None,
    field: str,
    max_len: int,
    min_len: int = 0,
    line_breaks: bool = False,
    strip: bool = True,
) -> str:
    """A text field: a string, ``min_len``..``max_len`` characters (after trimming), no control characters."""
    if not isinstance(value, str):
        raise bad_action(index, field, "must be a string", "должно быть строкой")
    text = value.strip() if strip else value
    if len(text) > max_len:
        raise bad_action(
            index,
            field,
            f"is longer than {max_len} characters ({len(text)})",
            f"длиннее {max_len} символов ({len(text)})",
        )
    if len(text) < min_len:
        raise bad_action(index, field, "is empty", "пустое")
    problem = _text_problem(text, line_breaks=line_breaks)
    if problem:
        raise bad_action(index, field, *problem)
    return text


def check_title(value: Any) -> str:
    """A game's title: a string of at most MAX_TITLE characters after trimming."""
    return check_text(value, index=None, field="title", max_len=MAX_TITLE)


def check_nicknames(players: Any, *, index: int | None = None, field: str = "players") -> list[str]:
    """Nicknames in seat order: each 1..64 characters after trimming, unique
    case-insensitively and across look-alike letters (games/rules/nicknames.py:
    «Чайкa» with a Latin a is «Чайка»). The count (ten, S1) is the engine's to refuse."""
    if not isinstance(players, list):
        raise bad_action(index, field, "must be a list of nicknames", "должно быть списком никнеймов")
    if len(players) > 10:
        raise bad_action(
            index,
            field,
            f"lists {len(players)} nicknames; a table has ten",
            f"{len(players)} никнеймов; за столом десять",
        )
    out: list[str] = []
    seen: set[str] = set()
    for i, raw in enumerate(players):
        nick = check_text(raw, index=index, field=f"{field}[{i}]", max_len=MAX_NICKNAME, min_len=1)
        key = nickname_key(nick)
        if key in seen:
            raise bad_action(index, f"{field}[{i}]", f"repeats the nickname {nick!r}", f"никнейм «{nick}» повторяется")
        seen.add(key)
        out.append(nick)
    return out


# --- field checkers --------------------------------------------------------------------------
# Each takes (value, index, field) and returns the value to store.

Checker = Callable[[Any, int | None, str], Any]


def _seat(value: Any, index: int | None, field: str) -> int:
    if type(value) is not int or not 1 <= value <= 10:
        raise bad_action(
            index,
            field,
            f"must be a seat number 1..10, got {_show(value)}",
            f"нужен номер места 1..10, получено {_show(value)}",
        )
    return value


def _optional_seat(value: Any, index: int | None, field: str) -> int | None:
    return None if value is None else _seat(value, index, field)


def _seat_key(key: Any, index: int | None, field: str) -> str | int:
    if type(key) is int and 1 <= key <= 10:
        return key
    if (
        isinstance(key, str)
        and key.isascii()
        and key.isdigit()
        and len(key) <= 2
        and 1 <= int(key) <= 10
        and key == str(int(key))
    ):
        return key
    raise bad_action(
        index,
        field,
        f'keys must be seat numbers "1".."10", got {_show(key)}',
        f"ключи должны быть номерами мест «1»..«10», получено {_show(key)}",
    )


def _seat_list(value: Any, index: int | None, field: str) -> list[int]:
    if not isinstance(value, list):
        raise bad_action(index, field, "must be a list of seat numbers", "должно быть списком номеров мест")
    if len(value) > 10:
        raise bad_action(
            index, field, f"lists {len(value)} seats; there are ten", f"{len(value)} мест; мест всего десять"
        )
    return [_seat(v, index, f"{field}[{i}]") for i, v in enumerate(value)]


def _bool(value: Any, index: int | None, field: str) -> bool:
    if type(value) is not bool:
        raise bad_action(index, field, "must be true or false", "должно быть true или false")
    return value


def _team(value: Any, index: int | None, field: str) -> str:
    if value not in ("red", "black") or not isinstance(value, str):
        raise bad_action(index, field, 'must be "red" or "black"', "должно быть «red» или «black»")
    return value


def _reason(value: Any, index: int | None, field: str) -> str | None:
    if value is None:
        return None
    return check_text(value, index=index, field=field, max_len=MAX_REASON, line_breaks=True)


def _reason_code(value: Any, index: int | None, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in REASON_CODES:
        raise bad_action(
            index,
            field,
            f"must be a code of the F16 penalty catalogue, got {_show(value)}",
            f"нужен код из каталога нарушений F16, получено {_show(value)}",
        )
    return value


def _seed(value: Any, index: int | None, field: str) -> str:
    return check_text(value, index=index, field=field, max_len=MAX_SEED, min_len=1)


def _players(value: Any, index: int | None, field: str) -> list[str]:
    return check_nicknames(value, index=index, field=field)


def _votes_for(value: Any, index: int | None, field: str) -> dict[Any, list[int]]:
    if not isinstance(value, dict):
        raise bad_action(
            index,
            field,
            "must be an object {candidate seat: [voter seats]}",
            "должно быть объектом {место кандидата: [места голосующих]}",
        )
    return {_seat_key(k, index, field): _seat_list(v, index, f"{field}[{k}]") for k, v in value.items()}


def _shots_by(value: Any, index: int | None, field: str) -> dict[Any, int | None]:
    if not isinstance(value, dict):
        raise bad_action(
            index,
            field,
            "must be an object {black seat: target seat or null}",
            "должно быть объектом {место чёрного: место цели или null}",
        )
    return {_seat_key(k, index, field): _optional_seat(v, index, f"{field}[{k}]") for k, v in value.items()}


def _expect_value(value: Any, index: int | None, field: str) -> Any:
    """A state value in a checkpoint: plain JSON, short strings (compared, never stored)."""
    if isinstance(value, str):
        check_text(value, index=index, field=field, max_len=MAX_EXPECT_TEXT, strip=False)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _expect_value(v, index, f"{field}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            _expect_value(k, index, field)
            _expect_value(v, index, f"{field}.{k}")
    elif not (value is None or isinstance(value, bool | int)):
        raise bad_action(
            index,
            field,
            f"must be a JSON value of the state, got {_show(value)}",
            f"должно быть значением состояния, получено {_show(value)}",
        )
    return value


# --- the schema -----------------------------------------------------------------------------------

# Per `do`: {field: (checker, required)}. `reject` is allowed on every action.
_PENALTY_SCHEMA: dict[str, tuple[Checker, bool]] = {
    "seat": (_seat, True),
    "reason": (_reason, False),
    "reason_code": (_reason_code, False),
}
SCHEMA: dict[str, dict[str, tuple[Checker, bool]]] = {
    "seat": {"players": (_players, True), "seed": (_seed, False)},
    "roles": {"sheriff": (_seat, True), "don": (_seat, True), "mafia": (_seat_list, True)},
    "start": {},
    "next": {},
    "nominate": {"by": (_seat, True), "target": (_seat, True)},
    "votes": {"for": (_votes_for, True)},
    "lift_vote": {"yes": (_seat_list, True)},
    "shots": {"by": (_shots_by, True)},
    "don_check": {"target": (_seat, True)},
    "sheriff_check": {"target": (_seat, True)},
    "best_move": {"seats": (_seat_list, False), "accepted": (_bool, False), "pass": (_bool, False)},
    **dict.fromkeys(PENALTY_FIELDS, _PENALTY_SCHEMA),
    "ppk": {
        "team": (_team, True),
        "seat": (_optional_seat, False),
        "reason": (_reason, False),
        "reason_code": (_reason_code, False),
    },
    "wink": {"by": (_seat, True), "target": (_seat, True)},
    "tech_pause": {"seat": (_seat, True)},
    "annul": {"reason": (_reason, False)},
    "expect": dict.fromkeys(STATE_KEYS, (_expect_value, False)),
}
ACTION_KINDS = frozenset(k for k in SCHEMA if k != "expect")


def validate_action(action: Any, *, index: int | None = None, allow_expect: bool = False) -> dict[str, Any]:
    """The action, checked against the schema and normalised (texts trimmed).

    Raises RuleViolation(code "bad_action") naming ``index`` and the field.
    ``expect`` checkpoints are accepted only with ``allow_expect`` (a log file
    under test); they are never host actions."""
    if not isinstance(action, dict):
        raise bad_action(
            index,
            "action",
            f"must be a JSON object with a 'do' field, got {_kind(action)}",
            f"должно быть JSON-объектом с полем do, получено: {_kind(action)}",
        )
    size = encoded_size(action)
    if size > MAX_ACTION_BYTES:
        raise bad_action(
            index,
            "action",
            f"is {size} bytes encoded; at most {MAX_ACTION_BYTES}",
            f"занимает {size} байт; не больше {MAX_ACTION_BYTES}",
        )
    do = action.get("do", _MISSING)
    if do is _MISSING:
        raise bad_action(index, "do", "is missing", "отсутствует")
    if not isinstance(do, str) or do not in SCHEMA or (do == "expect" and not allow_expect):
        raise bad_action(index, "do", f"is not a known action: {_show(do)}", f"неизвестное действие: {_show(do)}")
    fields = SCHEMA[do]
    out: dict[str, Any] = {"do": do}
    for key, value in action.items():
        if key == "do":
            continue
        if key == "reject":
            out[key] = _bool(value, index, key)
            continue
        spec = fields.get(key) if isinstance(key, str) else None
        if spec is None:
            if do == "expect":
                raise bad_action(index, _show_key(key), "is not a state key", "не ключ состояния")
            raise bad_action(index, _show_key(key), f"is not a field of {do!r}", f"не поле действия «{do}»")
        out[key] = spec[0](value, index, key)
    for key, (_checker, required) in fields.items():
        if required and key not in action:
            raise bad_action(index, key, "is missing", "отсутствует")
    return out


def validate_log(data: Any) -> list[dict[str, Any]]:
    """The actions of a log file (FORMAT.md), each checked; ``expect`` kept.

    Only ``format`` and ``actions`` are read; other top-level keys are
    ignored (FORMAT.md)."""
    if not isinstance(data, dict):
        raise bad_action(
            None,
            "log",
            f'must be an object {{"format": …, "actions": [...]}}, got {_kind(data)}',
            f'должен быть объектом {{"format": …, "actions": [...]}}, получено: {_kind(data)}',
        )
    fmt = data.get("format")
    if fmt is not None and fmt != LOG_FORMAT:
        raise bad_action(
            None,
            "format",
            f"unknown format {_show(fmt)} (expected {LOG_FORMAT!r})",
            f"неизвестный формат {_show(fmt)} (ожидается {LOG_FORMAT})",
        )
    actions = data.get("actions", _MISSING)
    if not isinstance(actions, list):
        raise bad_action(None, "actions", "must be a list of actions", "должно быть списком действий")
    if len(actions) > MAX_LOG_ACTIONS:
        raise bad_action(
            None,
            "actions",
            f"lists {len(actions)} actions; at most {MAX_LOG_ACTIONS}",
            f"{len(actions)} действий; не больше {MAX_LOG_ACTIONS}",
        )
    return [validate_action(a, index=i, allow_expect=True) for i, a in enumerate(actions)]


LOG_FORMAT = "mafia-protocol-log/1"


# --- bounded JSON ------------------------------------------------------------------------------------


class JSONInputError(ValueError):
    """Untrusted JSON refused before or while parsing; ``ru`` is the Russian text."""

    def __init__(self, en: str, ru: str) -> None:
        self.en = en
        self.ru = ru
        super().__init__(en)


def parse_json(raw: str | bytes, *, max_bytes: int) -> Any:
    """Parse untrusted JSON with bounded work. Raises JSONInputError.

    Bytes must be UTF-8 (a BOM is allowed). Refused: more than ``max_bytes``,
    nesting deeper than MAX_DEPTH, an integer of more than MAX_INT_DIGITS
    digits, NaN / Infinity (or a float that overflows to them), a repeated
    key in one object."""
    if isinstance(raw, bytes):
        if len(raw) > max_bytes:
            raise JSONInputError(f"larger than {max_bytes} bytes", f"больше {max_bytes} байт")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"not UTF-8 text (byte {exc.start})", f"не текст UTF-8 (байт {exc.start})") from None
    else:
        text = raw
        # A str's UTF-8 size is at most 4 bytes a character: skip the encode for small input.
        if len(text) * 4 > max_bytes and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
            raise JSONInputError(f"larger than {max_bytes} bytes", f"больше {max_bytes} байт")
    _check_depth(text)
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_refuse_constant,
            object_pairs_hook=_unique_keys,
        )
    except JSONInputError:
        raise
    except (ValueError, RecursionError) as exc:
        raise JSONInputError(f"not JSON: {exc}", f"не JSON: {exc}") from None


def _check_depth(text: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH, in one pass that skips strings.

    Runs before json.loads, whose recursion is bounded only by the stack."""
    depth = 0
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JSONInputError(
                    f"nested deeper than {MAX_DEPTH} levels", f"вложенность глубже {MAX_DEPTH} уровней"
                )
        elif ch in "]}":
            depth -= 1


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONInputError(
            f"an integer of more than {MAX_INT_DIGITS} digits", f"целое число длиннее {MAX_INT_DIGITS} цифр"
        )
    return int(digits)


def _parse_float(text: str) -> float:
    if len(text) > 64:
        raise JSONInputError("a number longer than 64 characters", "число длиннее 64 символов")
    value = float(text)
    if not math.isfinite(value):
        raise JSONInputError(f"a number out of range ({text})", f"число вне диапазона ({text})")
    return value


def _refuse_constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not a JSON number", f"{name} — не число JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONInputError(
                f"the key {key[:40]!r} appears twice in one object", f"ключ «{key[:40]}» повторяется в одном объекте"
            )
        out[key] = value
    return out


def parse_action_json(raw: str, *, index: int | None = None) -> dict[str, Any]:
    """One action sent as JSON (the console's ``action`` field, a bot), checked."""
    try:
        value = parse_json(raw, max_bytes=MAX_ACTION_BYTES)
    except JSONInputError as exc:
        raise bad_action(index, "action", exc.en, exc.ru) from None
    return validate_action(value, index=index)


def parse_log_bytes(raw: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A log file's content: (the parsed object, its checked actions)."""
    try:
        data = parse_json(raw, max_bytes=MAX_LOG_BYTES)
    except JSONInputError as exc:
        raise bad_action(None, "log", exc.en, exc.ru) from None
    return data, validate_log(data)


# --- helpers -----------------------------------------------------------------------------------------


def encoded_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON (how it is stored and exported)."""
    try:
        return len(
            json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(
                "utf-8", "surrogatepass"
            )
        )
    except (ValueError, TypeError, RecursionError):
        # Not JSON at all (NaN, a set, a cycle): as good as too large.
        return MAX_ACTION_BYTES + 1


def _kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    """A short, safe rendering of a refused value for the message."""
    if isinstance(value, str):
        shown = value[:40] + ("…" if len(value) > 40 else "")
        return repr(shown)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        text = str(value) if abs(value) < 10**30 else "a very large integer"
        return text
    if isinstance(value, float):
        return repr(value)
    return _kind(value)


def _show_key(key: Any) -> str:
    text = key if isinstance(key, str) else repr(key)
    problem = _text_problem(text)
    if problem:
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text[:40]
