"""Workbook cells of user text: always literal strings, never formulas.

Every workbook the app writes (games/exports.py, tournaments/exports.py, and
anything later) puts user text — nicknames, titles, reasons, tournament
names — through :func:`text_cell` / :func:`cell` (write-only sheets) or
:func:`set_text` (an existing cell). openpyxl turns a value starting with
``=`` into a formula; a spreadsheet program may also evaluate text starting
with ``+``, ``-``, ``@``, a tab or a carriage return when the cell is
re-entered. Here every string is stored with data type ``s`` (an inline
string), and those starting with one of these characters also get
``quotePrefix`` so that editing the cell keeps it text. Characters XML 1.0
cannot carry (C0 controls but tab, line feed, carriage return) are dropped.

Only openpyxl is imported: both the games and the tournaments app may use it.
"""

from __future__ import annotations

from typing import Any

from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import Cell
from openpyxl.styles.cell_style import StyleArray

# What a spreadsheet may read as the start of a formula (OWASP "CSV injection").
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_ILLEGAL_XML = dict.fromkeys((*range(0, 9), 11, 12, *range(14, 32)))


def clean_text(value: str) -> str:
    """The string without the characters an .xlsx file cannot hold."""
    return value.translate(_ILLEGAL_XML)


def is_formula_like(value: str) -> bool:
    return value.startswith(FORMULA_TRIGGERS)


def set_text(c: Cell, value: str) -> Cell:
    """Store ``value`` in ``c`` as a literal string (data type ``s``)."""
    text = clean_text(value)
    # Bypass Cell.value's type guessing, which makes "=..." a formula.
    c._value = text
    c.data_type = "s"
    if is_formula_like(text):
        # A copy: the style array may be shared by many cells (games/exports.py).
        style = StyleArray(c._style) if c._style is not None else StyleArray()
        style.quotePrefix = 1
        c._style = style
    return c


def text_cell(ws: Any, value: str, **style: Any) -> Cell:
    """A write-only cell holding ``value`` as literal text."""
    c = WriteOnlyCell(ws)
    set_text(c, value)
    _style(c, style)
    return c


def cell(ws: Any, value: Any, **style: Any) -> Cell:
    """A write-only cell for any value: strings as literal text, numbers,
    booleans, dates and None as themselves; anything else as its text."""
    if isinstance(value, str):
        return text_cell(ws, value, **style)
    if value is None or isinstance(value, bool | int | float) or hasattr(value, "isoformat"):
        plain: Cell = WriteOnlyCell(ws, value=value)
        _style(plain, style)
        return plain
    return text_cell(ws, str(value), **style)


def row(ws: Any, values: list[Any]) -> list[Any]:
    """A row for ``ws.append``: every plain value made a safe cell (ready cells kept)."""
    return [v if isinstance(v, Cell) else cell(ws, v) for v in values]


def _style(c: Any, style: dict[str, Any]) -> None:
    for name in ("font", "fill", "alignment", "border", "number_format"):
        if style.get(name) is not None:
            setattr(c, name, style[name])
