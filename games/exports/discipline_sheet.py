"""The «Дисциплина» sheet: penalties, winks and tech pauses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook

from games.exports.cells import _new_sheet, _page_setup, _Rows, _styles, _widths
from games.exports.labels import HOW_LEFT, LABELS, normalize_lang
from games.exports.protocols import GameProtocol
from games.exports.record import _phase_label, _reason_text, _seat_name

# --- «Дисциплина» -----------------------------------------------------------------------


def _penalty_text(e: dict[str, Any], lang: str) -> str:
    L = LABELS[lang]
    kind = e.get("kind", "")
    key = f"p_{kind}"
    if key not in L:
        return str(kind)
    text = L[key].format(n=e.get("count") or 1)
    if kind == "ppk" and e.get("team"):
        text += f" ({L['team_red'] if e['team'] == 'red' else L['team_black']})"
    return text


def _penalty_consequence(e: dict[str, Any], lang: str) -> str:
    L = LABELS[lang]
    parts = []
    if e.get("removed"):
        how = e.get("how") or ""
        parts.append(L["removed_how"].format(how=HOW_LEFT[lang].get(how, how)))
    if e.get("cancels_vote_day"):
        parts.append(L["cancels_vote"].format(day=e["cancels_vote_day"]))
    if e.get("after_leaving"):
        parts.append(L["after_leaving"])  # RULES F19: recorded, nothing changes at the table
    if e.get("kind") == "warning" and (e.get("ban") or e.get("how") == "warnings"):
        parts.append(L["ban_7_days"])  # F4: the 2nd warning brings the 7-day ban
    return "; ".join(parts)


def write_discipline_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_discipline"])
    widths = [10, 11, 5, 18, 22, 44, 30]
    if many:
        widths = [8, *widths]
    _widths(ws, widths)
    out = _Rows(ws, _styles(workbook), widths)
    lead = [L["game"]] if many else []
    if many:
        # Several games run over several pages: one heading row common to the
        # three sections (their columns line up), repeated on every page.
        _page_setup(ws, one_page=False, title_rows="1:1")
        ws.freeze_panes = "A2"
        out.add(
            [
                *lead,
                L["time"],
                L["phase"],
                L["seat"],
                L["player"],
                L["penalty_or_target"],
                L["reason"],
                L["consequence"],
            ],
            "th",
            wrap=range(len(widths)),
        )
    else:
        _page_setup(ws, one_page=True)

    def game_cell(proto: GameProtocol) -> list[Any]:
        return [f"#{proto.header.game_id}"] if many else []

    def section(title: str, head: list[str], rows: list[tuple[list[Any], list[str]]]) -> None:
        out.add([title], "section")
        out.add([*lead, *head], "th")
        if not rows:
            out.add([*([""] if many else []), L["none"]], "td_left")
        for values, style in rows:
            out.add(values, style, wrap=range(len(values)))
        out.add([])

    penalties: list[tuple[list[Any], list[str]]] = []
    winks: list[tuple[list[Any], list[str]]] = []
    pauses: list[tuple[list[Any], list[str]]] = []
    base = ["td_bold"] if many else []
    for proto in protos:
        state = proto.state
        players = state.players or []
        for e in state.record.penalties:
            entry = proto.entry_for_index(e.get("index"))
            seat = e.get("seat")
            penalties.append(
                (
                    [
                        *game_cell(proto),
                        entry.created_at if entry else None,
                        _phase_label(lang, e.get("day"), e.get("phase")),
                        seat,
                        players[seat - 1] if isinstance(seat, int) and 1 <= seat <= len(players) else "",
                        _penalty_text(e, lang),
                        _reason_text(
                            str(e.get("reason") or ""), lang, entry.payload.get("reason_code") if entry else None
                        ),
                        _penalty_consequence(e, lang),
                    ],
                    [*base, "time", "td", "td_bold", "td_left", "td_left", "td_left", "td_left"],
                )
            )
        for e in state.record.winks:
            entry = proto.entry_for_index(e.get("index"))
            winks.append(
                (
                    [
                        *game_cell(proto),
                        entry.created_at if entry else None,
                        _phase_label(lang, e.get("day"), e.get("phase")),
                        e.get("by"),
                        _seat_name(state, e.get("by")),
                        _seat_name(state, e.get("target")),
                    ],
                    [*base, "time", "td", "td_bold", "td_left", "td_left"],
                )
            )
        for e in state.record.tech_pauses:
            entry = proto.entry_for_index(e.get("index"))
            seat = e.get("seat")
            pauses.append(
                (
                    [
                        *game_cell(proto),
                        entry.created_at if entry else None,
                        _phase_label(lang, e.get("day"), e.get("phase")),
                        seat,
                        players[seat - 1] if isinstance(seat, int) and 1 <= seat <= len(players) else "",
                    ],
                    [*base, "time", "td", "td_bold", "td_left"],
                )
            )
    section(
        L["penalties"],
        [L["time"], L["phase"], L["seat"], L["player"], L["penalty"], L["reason"], L["consequence"]],
        penalties,
    )
    section(L["winks"], [L["time"], L["phase"], L["seat"], L["wink_by"], L["wink_to"]], winks)
    section(L["tech_pauses"], [L["time"], L["phase"], L["seat"], L["player"]], pauses)
    return ws
