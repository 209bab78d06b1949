"""Helpers that read the engine record of a game (seats, phases, nights, penalties) for the sheets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.exports.labels import LABELS, PHASE_LETTERS
from games.exports.protocols import GameProtocol
from games.rules import GameState

# --- helpers on the record ------------------------------------------------------------


def _seat_name(state: GameState, seat: Any) -> str:
    players = state.players or []
    if isinstance(seat, int) and 1 <= seat <= len(players):
        return f"{seat} {players[seat - 1]}"
    return "" if seat is None else str(seat)


def _phase_label(lang: str, day: Any, phase: Any) -> str:
    L = LABELS[lang]
    if phase == "day":
        return f"{L['day']} {day}"
    if phase == "night":
        return f"{L['night']} {day}"
    return ""


def _short_phase(lang: str, day: Any, phase: Any) -> str:
    letter = PHASE_LETTERS[lang].get(phase or "", "")
    return f"{letter}{day}" if letter and day is not None else ""


def _int_keys(mapping: Any) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for k, v in (mapping or {}).items():
        try:
            out[int(k)] = v
        except (TypeError, ValueError):
            continue
    return out


def _reason_text(reason: str, lang: str, code: Any = None) -> str:
    """A catalogue reason in the workbook's language (by its stored code, or
    its stored wording in older logs); a typed reason as typed (F16)."""
    from games.rules.catalogue import reason_text

    return reason_text(reason or None, code if isinstance(code, str) else None, lang)


def _winner_text(state: GameState, lang: str) -> str:
    L = LABELS[lang]
    status = state.status
    if status == "annulled":
        return L["annulled"]
    if status != "finished" and not state.winner:
        return L["not_over"]
    text = {"red": L["winner_red"], "black": L["winner_black"], "draw": L["winner_draw"]}.get(
        state.winner or "", L["not_over"]
    )
    if state.ppk:
        team = L["team_red"] if state.ppk == "red" else L["team_black"]
        text += " — " + L["ppk_note"].format(team=team)
    return text


def _points(proto: GameProtocol, seat: int, lang: str = "ru") -> tuple[Any, Any, Any, Any]:
    """(points, extra, Ci, best-move points) of a seat; blanks where none apply."""
    if proto.scores:
        row = proto.scores.get(seat) or {}
        # Extra points, Ci and best-move points are left blank when there are none, as on paper.
        return row.get("points"), row.get("extra") or None, row.get("ci") or None, row.get("best_move") or None
    state = proto.state
    # Outside a tournament: the result itself (win 1, loss 0; a draw is
    # written as such, W4); nothing before the end.
    if state.status != "finished" or state.winner not in ("red", "black", "draw"):
        return None, None, None, None
    if state.winner == "draw":
        return LABELS[lang]["draw_short"], None, None, None
    return (1 if state.team_of(seat) == state.winner else 0), None, None, None


def _best_move_verdict(bm: dict[str, Any] | None, lang: str) -> str:
    L = LABELS[lang]
    if not bm:
        return ""
    if bm.get("passed"):
        return L["bm_pass"]
    if bm.get("accepted"):
        return L["bm_accepted"].format(n=int(bm.get("blacks") or 0))
    return L["bm_not_accepted"]


def _left_by_seat(state: GameState) -> dict[int, dict[str, Any]]:
    return {int(e["seat"]): e for e in state.left}


@dataclass
class _Night:
    night: int
    shot: dict[str, Any] | None = None
    don: dict[str, Any] | None = None
    sheriff: dict[str, Any] | None = None
    best_move: dict[str, Any] | None = None
    # W1: the shot decided the game; the Night's remaining steps were not held.
    decided_by_shot: bool = False


def _nights(state: GameState) -> list[_Night]:
    nights: dict[int, _Night] = {}
    last = 0
    if state.day is not None and state.status != "setup":
        last = state.day if state.phase == "night" else state.day - 1
    for n in range(1, last + 1):
        nights[n] = _Night(n)
    for e in state.record.shots:
        nights.setdefault(e["night"], _Night(e["night"])).shot = e
    for e in state.record.checks:
        night = nights.setdefault(e["night"], _Night(e["night"]))
        if e.get("by") == "don":
            night.don = e
        else:
            night.sheriff = e
    for e in state.record.best_moves:
        nights.setdefault(e["night"], _Night(e["night"])).best_move = e
    for e in state.record.events:
        if e.get("kind") == "decided_by_shot":
            nights.setdefault(e["day"], _Night(e["day"])).decided_by_shot = True
    return [nights[k] for k in sorted(nights) if k >= 1]


def _shot_outcome(state: GameState, night: _Night, lang: str) -> str:
    L = LABELS[lang]
    if night.shot is None:
        return ""
    victim = night.shot.get("victim")
    if victim is None:
        return L["miss"]
    text = L["killed"].format(seat=_seat_name(state, victim))
    return f"{text} — {L['decided_by_shot']}" if night.decided_by_shot else text


def _check_answer(check: dict[str, Any] | None, lang: str) -> str:
    L = LABELS[lang]
    if check is None:
        return ""
    result = check.get("result")
    if check.get("by") == "don":
        return L["is_sheriff"] if result else L["not_sheriff"]
    return L["black"] if result == "black" else L["red"]


def _best_move_text(state: GameState, bm: dict[str, Any] | None, lang: str) -> str:
    if not bm:
        return ""
    seats = ", ".join(str(s) for s in bm.get("seats") or [])
    verdict = _best_move_verdict(bm, lang)
    head = f"{bm.get('seat')}"
    return f"{head}: {seats} — {verdict}" if seats else f"{head}: {verdict}"


def _black_seats(state: GameState) -> list[int]:
    roles = _int_keys(state.roles)
    don = [s for s, r in roles.items() if r == "don"]
    mafia = sorted(s for s, r in roles.items() if r == "mafia")
    return don + mafia
