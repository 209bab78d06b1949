"""Whole workbooks: the sheets of one or several games, assembled, saved or turned into bytes (see the package's docstring)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import IO, Any

from openpyxl import Workbook

from games.exports.discipline_sheet import write_discipline_sheet
from games.exports.labels import LABELS, normalize_lang
from games.exports.log_sheet import write_log_sheet
from games.exports.nights_sheet import write_nights_sheet
from games.exports.protocol_sheet import write_protocol_sheet
from games.exports.protocols import GameProtocol, collect_protocols
from games.exports.votes_sheet import write_votes_sheet

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# --- workbooks ----------------------------------------------------------------------------


def new_workbook() -> Workbook:
    return Workbook(write_only=True)


def write_game_protocol_sheets(
    workbook: Workbook,
    games: Sequence[Any],
    lang: str = "ru",
    *,
    details: bool = True,
    titles: Sequence[str] | None = None,
) -> list[Any]:
    """Add the protocol sheets of ``games`` (Game objects, ids or prepared
    ``GameProtocol``s) to a write-only workbook; returns the sheets added.

    One game: «Протокол» (+ «Ночи», «Голоса», «Дисциплина», «Журнал» with ``details``).
    Several: «Протокол #<id>» per game (or ``titles``), then the detail
    sheets shared by all games with a «Игра» column."""
    if not getattr(workbook, "write_only", False):
        raise TypeError("write_game_protocol_sheets needs a write-only workbook (exports.new_workbook())")
    lang = normalize_lang(lang)
    protos = [g for g in games if isinstance(g, GameProtocol)]
    if len(protos) != len(games):
        protos = collect_protocols(games, journal=details)
    L = LABELS[lang]
    sheets = []
    for i, proto in enumerate(protos):
        if titles is not None:
            title = titles[i]
        elif len(protos) == 1:
            title = L["sheet_protocol"]
        else:
            title = f"{L['sheet_protocol']} #{proto.header.game_id}"
        sheets.append(write_protocol_sheet(workbook, proto, lang, title))
    if details and protos:
        sheets.append(write_nights_sheet(workbook, protos, lang))
        sheets.append(write_votes_sheet(workbook, protos, lang))
        sheets.append(write_discipline_sheet(workbook, protos, lang))
        sheets.append(write_log_sheet(workbook, protos, lang))
    return sheets


def build_games_workbook(games: Sequence[Any], lang: str = "ru", *, details: bool | None = None) -> Workbook:
    """A complete write-only workbook (save it with ``save_workbook``)."""
    wb = new_workbook()
    if details is None:
        details = len(games) == 1
    write_game_protocol_sheets(wb, games, lang, details=details)
    return wb


def save_workbook(workbook: Workbook, fileobj: IO[bytes] | str) -> None:
    workbook.save(fileobj)


def workbook_bytes(workbook: Workbook) -> bytes:
    buf = io.BytesIO()
    workbook.save(buf)
    return buf.getvalue()
