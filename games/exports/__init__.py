"""The Excel protocol of a game (openpyxl, write-only) and the JSON log.

Terms:
- *protocol* (``GameProtocol``, protocols.py): what a workbook needs about one
  game, prepared once — the header (tournament, stage, table, game №, date,
  host), every stored host action (``LogEntry``; undone ones included, for the
  journal), the engine state after the active actions and the points per seat.
  Building the sheets from it touches no database.
- *sheets*: «Протокол» (protocol_sheet.py, laid out like the FIIM paper
  protocol), «Ночи» (nights_sheet.py), «Дисциплина» (discipline_sheet.py) and
  «Журнал» (log_sheet.py); they draw on a grid of shared styles (cells.py) and
  read the engine record through record.py.
- *lang*: "ru" (default) or "en"; the texts live in ``LABELS`` (labels.py).
  A parameter of the export rather than the active Django language, because an
  organizer may file a Russian protocol while browsing in English.

Why write-only: the workbook is streamed out without keeping cell objects in
memory; every style is created once per workbook (``_Styles``) and its
``StyleArray`` is shared by all the cells that use it, which is what keeps a
100-game workbook within a second.

This package re-exports the API the views, the commands, the tournaments app
and the tests call, so they import ``games.exports`` and not its modules:

- ``collect_protocols(games, *, journal=True, scores=None) -> list[GameProtocol]``
- ``write_game_protocol_sheets(workbook, games_or_protocols, lang="ru", *, details=True, titles=None)``
- ``build_games_workbook(games, lang="ru", *, details=None) -> Workbook``
- ``new_workbook()``, ``save_workbook(workbook, fileobj)``, ``workbook_bytes(workbook)``
- ``export_log(game) -> dict``: the protocol log (FORMAT.md).
"""

from games.exports.cells import STYLE_SPECS
from games.exports.discipline_sheet import write_discipline_sheet
from games.exports.labels import FOUL_MARK, LABELS, normalize_lang
from games.exports.log_sheet import describe_action, write_log_sheet
from games.exports.nights_sheet import write_nights_sheet
from games.exports.protocol_sheet import _draw_protocol, write_protocol_sheet
from games.exports.protocols import (
    GameProtocol,
    Header,
    LogEntry,
    collect_protocols,
    export_log,
    prepare_protocol,
)
from games.exports.workbook import (
    XLSX_CONTENT_TYPE,
    build_games_workbook,
    new_workbook,
    save_workbook,
    workbook_bytes,
    write_game_protocol_sheets,
)

__all__ = [
    "FOUL_MARK",
    "LABELS",
    "STYLE_SPECS",
    "XLSX_CONTENT_TYPE",
    "GameProtocol",
    "Header",
    "LogEntry",
    "_draw_protocol",
    "build_games_workbook",
    "collect_protocols",
    "describe_action",
    "export_log",
    "new_workbook",
    "normalize_lang",
    "prepare_protocol",
    "save_workbook",
    "workbook_bytes",
    "write_discipline_sheet",
    "write_game_protocol_sheets",
    "write_log_sheet",
    "write_nights_sheet",
    "write_protocol_sheet",
]
