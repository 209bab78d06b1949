"""A safe cell for workbooks of user text (a local helper; the lead unifies it
with the shared one): every string is written as text, never as a formula —
a nickname starting with = + - @, a tab or CR stays what was typed."""

from __future__ import annotations

from typing import Any

from openpyxl.cell.cell import Cell
from openpyxl.worksheet.worksheet import Worksheet

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def write(ws: Worksheet, row: int, column: int, value: Any) -> Cell:
    cell: Cell = ws.cell(row=row, column=column)
    if isinstance(value, str):
        cell.value = value
        cell.data_type = "s"  # openpyxl reads a leading "=" as a formula otherwise
    else:
        cell.value = value
    return cell


def write_row(ws: Worksheet, row: int, values: list[Any]) -> None:
    for column, value in enumerate(values, start=1):
        write(ws, row, column, value)
