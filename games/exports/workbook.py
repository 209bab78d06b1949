"""The Excel protocol of a game (openpyxl, write-only) and the JSON log.

Terms:
- *protocol* (``GameProtocol``): what a workbook needs about one game, prepared
  once — the header (tournament, stage, table, game №, date, host), every
  stored host action (``LogEntry``; undone ones included, for the journal), the
  engine state after the active actions (``state.record`` holds nominations,
  votes, shots, checks, best moves, penalties, winks and tech pauses, each
  with the ``index`` of its action) and the points per seat. Building the
  sheets from it touches no database.
- *sheets*: «Протокол» (laid out like the FIIM paper protocol: header, ten
  player rows, result, best move, nights, protest, host; beside it one voting
  block per Day), «Ночи» (shots, checks, best move per Night), «Дисциплина»
  (penalties, winks, tech pauses) and «Журнал» (every action with its time,
  undone ones marked). With several games the workbook has one «Протокол»
  sheet per game; the detail sheets, when asked for, are shared and start
  with a «Игра» column.
- *lang*: "ru" (default) or "en": the headings and texts of the workbook. It is
  a parameter of the export rather than the active Django language because an
  organizer may file a Russian protocol while browsing in English; the texts
  live in ``LABELS`` below.

Why write-only: the workbook is streamed out without keeping cell objects in
memory; every style is created once per workbook (``_Styles``) and its
``StyleArray`` is shared by all the cells that use it, which is what keeps a
100-game workbook within a second.

API (used by the views and commands here, and by the tournaments app for its
tournament workbook):

- ``collect_protocols(games, *, journal=True, scores=None) -> list[GameProtocol]``
  reads games in a fixed number of queries (games with host and tournament
  table, then all their actions) and replays each log once. ``scores`` maps
  a game id to ``{seat: {"points", "extra", "ci"}}`` when the caller already has
  them; otherwise ``tournaments.scoring.game_seat_scores(game)`` is asked, and
  outside a tournament points come from the result (win 1, loss 0).
- ``write_game_protocol_sheets(workbook, games_or_protocols, lang="ru", *,
  details=True, titles=None)`` adds the sheets to a write-only workbook made by
  ``new_workbook()`` (or any ``Workbook(write_only=True)``).
- ``build_games_workbook(games, lang="ru", *, details=None) -> Workbook``: a
  complete write-only workbook (not yet saved); ``details`` defaults to True
  for one game, False for several (one «Протокол» sheet per game).
- ``save_workbook(workbook, fileobj)`` / ``workbook_bytes(workbook)``.
- ``export_log(game) -> dict``: the protocol log (FORMAT.md), as ``export_log``.
"""

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

    One game: «Протокол» (+ «Ночи», «Дисциплина», «Журнал» with ``details``).
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
