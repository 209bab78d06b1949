"""The «Голоса» sheet: every voter of every voting round, as the clubs' paper protocol records them.

The host names the voters of each candidate; V4 gives everyone at the table
who was not named to the last candidate. The engine's record keeps both
(``ballots`` and ``auto``), so the sheet lists every voter and marks the V4
ones with «*».
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook

from games.exports.cells import _new_sheet, _page_setup, _Rows, _styles, _widths
from games.exports.labels import LABELS, normalize_lang
from games.exports.protocols import GameProtocol
from games.exports.record import _int_keys, _seat_name


def round_voters(vote: dict[str, Any]) -> list[tuple[Any, list[int], set[int]]]:
    """(candidate seat or "yes"/"no", voters, voters added by V4) per line of one round."""
    if vote.get("kind") == "lift":
        return [
            ("yes", sorted(int(v) for v in vote.get("yes") or []), set()),
            ("no", sorted(int(v) for v in vote.get("no") or []), set()),
        ]
    auto = {int(v) for v in vote.get("auto") or []}
    by_candidate: dict[int, list[int]] = {int(c): [] for c in vote.get("candidates") or []}
    for voter, cand in sorted(_int_keys(vote.get("ballots")).items()):
        by_candidate.setdefault(int(cand), []).append(voter)
    return [(cand, voters, auto & set(voters)) for cand, voters in by_candidate.items()]


def write_votes_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_votes"])
    head = [L["day"], L["round"], L["candidate"], L["count"], L["voters"]]
    widths = [7, 18, 22, 9, 44]
    if many:
        head, widths = [L["game"], *head], [8, *widths]
    _widths(ws, widths)
    ws.freeze_panes = "A2"
    _page_setup(ws, one_page=not many, title_rows="1:1")
    rows = _Rows(ws, _styles(workbook), widths)
    rows.add(head, "th")
    styles = ["td_bold", "td_left", "td_left", "td_int", "td_left"]
    if many:
        styles = ["td_bold", *styles]
    revotes: dict[tuple[int, Any], int] = {}
    for proto in protos:
        state = proto.state
        for vote in state.record.votes:
            kind = vote.get("kind")
            if kind == "lift":
                label = L["lift"]
            elif kind == "revote":
                key = (id(proto), vote.get("day"))
                revotes[key] = revotes.get(key, 0) + 1
                label = L["revote"] + (f" {revotes[key]}" if revotes[key] > 1 else "")
            else:
                label = L["vote"]
            for cand, voters, auto in round_voters(vote):
                if cand == "yes":
                    who = L["lift_yes_row"]
                elif cand == "no":
                    who = L["lift_no_row"]
                else:
                    who = _seat_name(state, cand)
                text = ", ".join(f"{v}{L['auto_mark'] if v in auto else ''}" for v in voters) or "—"
                values = [vote.get("day"), label, who, len(voters), text]
                if many:
                    values = [f"#{proto.header.game_id}", *values]
                rows.add(values, styles, wrap=range(len(values)))
    rows.add([])
    legend = [*([None] * (len(head) - 1)), L["votes_legend"]]
    rows.add(legend, [*(["plain"] * (len(head) - 1)), "note"], wrap=[len(head) - 1])
    return ws
