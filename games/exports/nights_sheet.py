"""The «Ночи» sheet: shots, checks and the best move per Night."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook

from games.exports.cells import _new_sheet, _page_setup, _Rows, _styles, _widths
from games.exports.labels import LABELS, normalize_lang
from games.exports.protocols import GameProtocol
from games.exports.record import (
    _best_move_text,
    _black_seats,
    _check_answer,
    _int_keys,
    _nights,
    _seat_name,
    _shot_outcome,
)
from games.rules import GameState

# --- «Ночи» -------------------------------------------------------------------------------


def write_nights_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_nights"])
    blacks_head = [L["don"], L["mafia"], L["mafia"]]
    if not many and protos:
        # One game: each black's column names his seat («Мафия №3», «Дон №7»).
        roles = _int_keys(protos[0].state.roles)
        blacks_head = [
            L["black_seat"].format(role=L["don"] if roles.get(seat) == "don" else L["mafia"], seat=seat)
            for seat in _black_seats(protos[0].state)
        ] or blacks_head
        blacks_head += [L["mafia"]] * (3 - len(blacks_head))
    head = [
        L["night"],
        *blacks_head,
        L["outcome"],
        L["don_check"],
        L["answer"],
        L["sheriff_check"],
        L["answer"],
        L["best_move"],
    ]
    widths = [8, 10, 10, 10, 18, 18, 12, 18, 12, 28]
    if many:
        head, widths = [L["game"], *head], [8, *widths]
    _widths(ws, widths)
    ws.freeze_panes = "C2" if many else "B2"
    _page_setup(ws, one_page=not many, title_rows="1:1")
    rows = _Rows(ws, _styles(workbook), widths)
    ws.row_dimensions[1].height = 28
    rows.add(head, "th")
    row_styles = ["td_bold", "td", "td", "td", "td_left", "td_left", "td", "td_left", "td", "td_left"]
    if many:
        row_styles = ["td_bold", *row_styles]
    for proto in protos:
        state = proto.state
        blacks = _black_seats(state)
        for night in _nights(state):
            shots = _int_keys((night.shot or {}).get("by"))
            black_cells = []
            for i in range(3):
                seat = blacks[i] if i < len(blacks) else None
                if seat is None:
                    black_cells.append("")
                elif not _at_table_in_night(state, seat, night.night):
                    black_cells.append(L["gone"])  # he had left: not a blank that reads as "forgot"
                elif night.shot is None:
                    black_cells.append("")
                elif seat in shots:
                    target = shots[seat]
                    black_cells.append(f"{seat} → {target if target is not None else '—'}")
                else:
                    black_cells.append(f"{seat} → —")
            values = [
                f"{L['night']} {night.night}",
                *black_cells,
                _shot_outcome(state, night, lang),
                # W1: a Night ended by its shot had no check steps.
                _seat_name(state, night.don["target"])
                if night.don
                else L["not_held_w1"]
                if night.decided_by_shot
                else "",
                _check_answer(night.don, lang),
                _seat_name(state, night.sheriff["target"])
                if night.sheriff
                else L["not_held_w1"]
                if night.decided_by_shot
                else "",
                _check_answer(night.sheriff, lang),
                _best_move_text(state, night.best_move, lang),
            ]
            if many:
                values = [f"#{proto.header.game_id}", *values]
            rows.add(values, row_styles, wrap=range(len(values)))
    return ws


def _at_table_in_night(state: GameState, seat: int, night: int) -> bool:
    for e in state.left:
        if int(e["seat"]) != seat:
            continue
        day, phase = e.get("day") or 0, e.get("phase")
        # Night k follows Day k; whoever left on Day k or earlier was gone.
        return not (day < night or (day == night and phase == "day"))
    return True
