"""The «Журнал» sheet: every host action with its time, undone ones marked."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter

from games import vocabulary
from games.exports.cells import _new_sheet, _page_setup, _Rows, _styles, _widths
from games.exports.discipline_sheet import _penalty_consequence
from games.exports.labels import LABELS, ROLE_LETTERS, STEP_NAMES, normalize_lang
from games.exports.protocols import GameProtocol
from games.exports.record import (
    _best_move_verdict,
    _check_answer,
    _int_keys,
    _phase_label,
    _reason_text,
)
from games.rules import GameState

# --- «Журнал» ----------------------------------------------------------------------------


def _seats_text(seats: Any) -> str:
    return ", ".join(str(s) for s in seats or []) or "—"


def _by_seat(mapping: Any) -> list[tuple[Any, Any]]:
    """A payload's seat-keyed object in seat order: PostgreSQL's jsonb does not
    keep the order the keys were written in, SQLite does."""
    items = list((mapping or {}).items())
    return sorted(items, key=lambda kv: (0, int(kv[0])) if str(kv[0]).isdigit() else (1, str(kv[0])))


def _canonical_payload(value: Any) -> Any:
    """`do` first, then the other keys in order (seat numbers as numbers), at
    every depth: PostgreSQL's jsonb keeps no key order (SQLite does), and the
    same log must give the same workbook on both."""
    if isinstance(value, dict):
        order = sorted(value, key=lambda k: (k != "do", (0, int(k), "") if str(k).isdigit() else (1, 0, str(k))))
        return {k: _canonical_payload(value[k]) for k in order}
    if isinstance(value, list):
        return [_canonical_payload(v) for v in value]
    return value


def describe_action(
    payload: dict[str, Any],
    lang: str = "ru",
    context: tuple[Any, Any, Any, Any] | None = None,
    state: GameState | None = None,
) -> str:
    """A readable line for one host action (the «Журнал» sheet)."""
    lang = normalize_lang(lang)
    ru = lang == "ru"
    do = payload.get("do", "")
    seat = payload.get("seat")
    reason = _reason_text(str(payload.get("reason") or ""), lang, payload.get("reason_code"))
    tail = f" — {reason}" if reason else ""
    if do == "seat":
        players = payload.get("players") or []
        return ("Рассадка: " if ru else "Seating: ") + ", ".join(f"{i} {p}" for i, p in enumerate(players, 1))
    if do == "roles":
        letters = ROLE_LETTERS[lang]
        return (
            ("Роли: " if ru else "Roles: ")
            + f"{letters['sheriff']} {payload.get('sheriff')}, {letters['don']} {payload.get('don')}, {letters['mafia']} {_seats_text(payload.get('mafia'))}"
        )
    if do == "start":
        return "Начало игры: «В городе ночь»" if ru else "Game started: night falls"
    if do == "next":
        step = (context or (None, None, None, None))[2]
        speaker = (context or (None, None, None, None))[3]
        name = STEP_NAMES[lang].get(step or "", step or "")
        text = (
            ("Далее: конец шага «" if ru else "Next: end of «") + f"{name}" + (f" {speaker}" if speaker else "") + "»"
        )
        if step == "mafia_shot":
            text += " — промах (никто не назван)" if ru else " — miss (nobody named)"
        elif step in ("don_check", "sheriff_check"):
            text += " — без проверки" if ru else " — no check"
        elif step == "best_move":
            text += " — не оставлен" if ru else " — none left"
        return text
    if do == "nominate":
        return ("Выставление: " if ru else "Nomination: ") + f"{payload.get('by')} → {payload.get('target')}"
    if do == "votes":
        parts = [f"{c}: {_seats_text(v)}" for c, v in _by_seat(payload.get("for")) if v]
        # Nobody raised a hand: every vote went to the last candidate by V4 (issue 12-9).
        v4 = (
            "все голоса по умолчанию последней кандидатуре (V4)"
            if ru
            else "every vote to the last candidate by default (V4)"
        )
        return ("Голосование — " if ru else "Vote — ") + ("; ".join(parts) or v4)
    if do == "lift_vote":
        return ("Подъём — за: " if ru else "Lift vote — yes: ") + _seats_text(payload.get("yes"))
    if do == "shots":
        parts = [f"{b} → {t if t is not None else '—'}" for b, t in _by_seat(payload.get("by"))]
        return ("Выстрелы: " if ru else "Shots: ") + ("; ".join(parts) or "—")
    if do in ("don_check", "sheriff_check"):
        who = vocabulary.ROLES("don" if do == "don_check" else "sheriff", lang)
        return f"{who} {'проверил' if ru else 'checked'} {payload.get('target')}"
    if do == "best_move":
        if payload.get("pass"):
            return "Лучший ход: пас" if ru else "Best move: pass"
        if payload.get("accepted") is False:
            return "Лучший ход: не принят" if ru else "Best move: not accepted"
        return ("Лучший ход: " if ru else "Best move: ") + _seats_text(payload.get("seats"))
    if do in ("foul", "warning", "grey_card", "disqualify", "remove"):
        name = LABELS[lang][f"p_{do}"].split(" (")[0]
        return f"{name}: {seat}{tail}"
    if do == "ppk":
        team = payload.get("team")
        team_text = LABELS[lang]["team_red" if team == "red" else "team_black"]
        return f"{LABELS[lang]['ppk_name']}: {team_text}" + (f" ({seat})" if seat else "") + tail
    if do == "wink":
        return ("Подмигивание: " if ru else "Wink: ") + f"{payload.get('by')} → {payload.get('target')}"
    if do == "tech_pause":
        return ("Техническая пауза: " if ru else "Technical pause: ") + f"{seat}"
    if do == "annul":
        return ("Игра аннулирована" if ru else "Game annulled") + tail
    return str(do)


def voters_text(vote: dict[str, Any], lang: str) -> str:
    """Every voter of one round (the record, not the host's payload): the
    voters V4 gave to the last candidate are marked «*»."""
    ru = lang == "ru"
    mark = LABELS[lang]["auto_mark"]
    if vote.get("kind") == "lift":
        yes = _seats_text(vote.get("yes"))
        no = _seats_text(vote.get("no"))
        return ("Подъём — за: " if ru else "Lift vote — yes: ") + yes + ("; против: " if ru else "; no: ") + no
    auto = {int(v) for v in vote.get("auto") or []}
    by_candidate: dict[int, list[int]] = {int(c): [] for c in vote.get("candidates") or []}
    for voter, cand in sorted(_int_keys(vote.get("ballots")).items()):
        by_candidate.setdefault(int(cand), []).append(voter)
    parts = []
    for cand, voters in by_candidate.items():
        names = ", ".join(f"{v}{mark if v in auto else ''}" for v in voters) or "—"
        parts.append(f"{cand} ({len(voters)}): {names}")
    head = (
        ("Голосование — " if ru else "Vote — ")
        if vote.get("kind") == "vote"
        else ("Переголосование — " if ru else "Revote — ")
    )
    text = head + "; ".join(parts)
    if auto:
        text += f" ({mark} V4)"
    return text


def _vote_texts(proto: GameProtocol, lang: str) -> dict[int, str]:
    """seq of each votes / lift_vote action -> every voter of that round."""
    out: dict[int, str] = {}
    for vote in proto.state.record.votes:
        index = vote.get("index")
        if isinstance(index, int) and 0 <= index < len(proto.seq_by_index):
            out[proto.seq_by_index[index]] = voters_text(vote, lang)
    return out


def _record_notes(proto: GameProtocol, lang: str) -> dict[int, str]:
    """What the engine answered, per action seq (check results, kills, outcomes)."""
    L = LABELS[lang]
    state = proto.state
    notes: dict[int, list[str]] = {}

    def note(index: Any, text: str) -> None:
        if isinstance(index, int) and 0 <= index < len(proto.seq_by_index) and text:
            notes.setdefault(proto.seq_by_index[index], []).append(text)

    for e in state.record.checks:
        note(e.get("index"), _check_answer(e, lang))
    for e in state.record.shots:
        victim = e.get("victim")
        note(e.get("index"), L["miss"] if victim is None else L["killed"].format(seat=victim))
    for e in state.record.nominations:
        if e.get("result") == "supported":
            note(e.get("index"), "поддерживается" if lang == "ru" else "supported")
    for e in state.record.best_moves:
        note(e.get("index"), _best_move_verdict(e, lang))
    for e in state.record.penalties:
        note(e.get("index"), _penalty_consequence(e, lang))
    for e in state.record.votes:
        leaving = e.get("leaving") or []
        if leaving:
            note(e.get("index"), (LABELS[lang]["left_by_vote"] + ": ") + _seats_text(leaving))
    return {seq: "; ".join(parts) for seq, parts in notes.items()}


def _refused_or_note(proto: GameProtocol, seq: int, notes: dict[int, str], lang: str) -> str:
    """The outcome column: what the engine answered, or (issue 21) that
    today's rules refuse this stored action and the replay skipped it."""
    exc = proto.refused.get(seq)
    if exc is None:
        return notes.get(seq, "")
    return LABELS[lang]["refused_now"].format(rule=exc.rule)


def write_log_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_log"])
    head = [L["action_no"], L["time"], L["phase"], L["action"], L["outcome"], L["by"], L["undone"], L["data"]]
    widths = [5, 9, 26, 52, 24, 10, 16, 60]
    if many:
        head, widths = [L["game"], *head], [8, *widths]
    _widths(ws, widths)
    ws.freeze_panes = "A2"
    _page_setup(ws, one_page=False, title_rows="1:1")
    rows = _Rows(ws, _styles(workbook), widths)
    rows.add(head, "th")
    live = ["log_c", "time", "log", "log_wrap", "log_wrap", "log_c", "log_c", "log_small"]
    wrap = (3, 4) if not many else (4, 5)
    dead = ["undone_c", "undone_time", "undone_c", "undone", "undone", "undone_c", "undone_note", "undone_data"]
    if many:
        live, dead = ["td_bold", *live], ["td_bold", *dead]
    for proto in protos:
        notes = _record_notes(proto, lang)
        votes = _vote_texts(proto, lang)
        for entry in proto.entries:
            ctx = proto.contexts.get(entry.seq)
            phase = ""
            if ctx is not None:
                phase = _phase_label(lang, ctx[0], ctx[1])
                step = STEP_NAMES[lang].get(ctx[2] or "", "")
                if phase and step:
                    phase = f"{phase}, {step}"
            values = [
                entry.seq,
                entry.created_at,
                phase,
                votes.get(entry.seq)
                if not entry.undone and entry.seq in votes
                else describe_action(entry.payload, lang, ctx, proto.state),
                "" if entry.undone else _refused_or_note(proto, entry.seq, notes, lang),
                entry.by,
                L["undone_at"].format(time=entry.undone_at.strftime("%H:%M:%S")) if entry.undone_at else "",
                json.dumps(_canonical_payload(entry.payload), ensure_ascii=False, separators=(",", ":")),
            ]
            if many:
                values = [f"#{proto.header.game_id}", *values]
            rows.add(values, dead if entry.undone else live, wrap=wrap)
    # The raw JSON column is for machines: it stays in the sheet, off the print.
    ws.print_area = f"A1:{get_column_letter(len(widths) - 1)}{max(rows.count, 1)}"
    return ws
