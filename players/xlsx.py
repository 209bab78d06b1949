"""The leaderboard workbook's cells: user text through the shared safe-cell helper
(mafia_protocol/xlsx.py: always data type 's', never a formula — a nickname
starting with = + - @, a tab or CR stays what was typed)."""

from __future__ import annotations

from typing import Any

from openpyxl.cell.cell import Cell
from openpyxl.worksheet.worksheet import Worksheet

from mafia_protocol.xlsx import set_text


def write(ws: Worksheet, row: int, column: int, value: Any) -> Cell:
    cell: Cell = ws.cell(row=row, column=column)
    if isinstance(value, str):
        set_text(cell, value)
    else:
        cell.value = value
    return cell


def write_row(ws: Worksheet, row: int, values: list[Any]) -> None:
    for column, value in enumerate(values, start=1):
        write(ws, row, column, value)
