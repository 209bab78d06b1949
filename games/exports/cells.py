"""Shared styles and the grid on which a sheet is drawn before it is streamed row by row (write-only openpyxl)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any

from openpyxl import Workbook
from openpyxl.cell import Cell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.page import PageMargins

from mafia_protocol.xlsx import set_text

# --- styles ----------------------------------------------------------------------

_THIN = Side(style="thin", color="000000")
_MEDIUM = Side(style="medium", color="000000")
_BOX = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)
_GREY = PatternFill("solid", fgColor="E7E6E6")
_DARK = PatternFill("solid", fgColor="D0CECE")
_MARK = PatternFill("solid", fgColor="F4CCCC")
_BLACKROW = PatternFill("solid", fgColor="EDEDED")
_FONT = "Arial"

_CENTER = Alignment(horizontal="center", vertical="center", wrap_text=True)
_LEFT = Alignment(horizontal="left", vertical="center", wrap_text=True)
_LEFT_NOWRAP = Alignment(horizontal="left", vertical="center")

# Points everywhere (protocol, standings, the standings page): two decimals and
# the typographic minus "−" (U+2212), so 0.5 and −0.50 never read differently
# between sheets, LibreOffice and Excel, or the workbook and the web page.
POINTS_FORMAT = '0.00;"\u2212"0.00;0.00'

STYLE_SPECS: dict[str, dict[str, Any]] = {
    "plain": {},
    "title": {
        "font": Font(name=_FONT, size=14, bold=True),
        "alignment": Alignment(horizontal="center", vertical="center"),
    },
    "label": {"font": Font(name=_FONT, size=9, bold=True), "alignment": _LEFT, "border": _BOX, "fill": _GREY},
    "value": {"font": Font(name=_FONT, size=10), "alignment": _LEFT, "border": _BOX},
    "value_bold": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _LEFT, "border": _BOX},
    "th": {"font": Font(name=_FONT, size=9, bold=True), "alignment": _CENTER, "border": _BOX, "fill": _GREY},
    "td": {"font": Font(name=_FONT, size=10), "alignment": _CENTER, "border": _BOX},
    "td_bold": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _CENTER, "border": _BOX},
    "td_left": {"font": Font(name=_FONT, size=10), "alignment": _LEFT, "border": _BOX},
    "td_left_9": {"font": Font(name=_FONT, size=9), "alignment": _LEFT, "border": _BOX},
    "td_black": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _CENTER, "border": _BOX, "fill": _BLACKROW},
    "td_mark": {
        "font": Font(name=_FONT, size=10, bold=True, color="9C0006"),
        "alignment": _CENTER,
        "border": _BOX,
        "fill": _MARK,
    },
    "td_left_mark": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _LEFT, "border": _BOX, "fill": _MARK},
    "td_num": {"font": Font(name=_FONT, size=10), "alignment": _CENTER, "border": _BOX, "number_format": POINTS_FORMAT},
    "td_num_bold": {
        "font": Font(name=_FONT, size=10, bold=True),
        "alignment": _CENTER,
        "border": _BOX,
        "number_format": POINTS_FORMAT,
    },
    "td_int": {"font": Font(name=_FONT, size=10), "alignment": _CENTER, "border": _BOX, "number_format": "0"},
    "td_pct": {"font": Font(name=_FONT, size=10), "alignment": _CENTER, "border": _BOX, "number_format": "0%"},
    "day": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _LEFT, "border": _BOX, "fill": _DARK},
    "day_seat": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _CENTER, "border": _BOX, "fill": _DARK},
    "section": {"font": Font(name=_FONT, size=11, bold=True), "alignment": _LEFT_NOWRAP},
    "time": {"font": Font(name=_FONT, size=9), "alignment": _CENTER, "border": _BOX, "number_format": "hh:mm:ss"},
    "small": {"font": Font(name=_FONT, size=8), "alignment": _LEFT, "border": _BOX},
    # The journal: one line per action, no wrapping (rows keep their height).
    "log": {"font": Font(name=_FONT, size=9), "alignment": _LEFT_NOWRAP, "border": _BOX},
    "log_wrap": {"font": Font(name=_FONT, size=9), "alignment": _LEFT, "border": _BOX},
    "log_c": {
        "font": Font(name=_FONT, size=9),
        "alignment": Alignment(horizontal="center", vertical="center"),
        "border": _BOX,
    },
    "log_small": {"font": Font(name=_FONT, size=7, color="404040"), "alignment": _LEFT_NOWRAP, "border": _BOX},
    "undone": {
        "font": Font(name=_FONT, size=9, italic=True, strike=True, color="808080"),
        "alignment": _LEFT,
        "border": _BOX,
    },
    "undone_data": {
        "font": Font(name=_FONT, size=7, italic=True, strike=True, color="808080"),
        "alignment": _LEFT_NOWRAP,
        "border": _BOX,
    },
    "undone_c": {
        "font": Font(name=_FONT, size=9, italic=True, strike=True, color="808080"),
        "alignment": Alignment(horizontal="center", vertical="center"),
        "border": _BOX,
    },
    "undone_time": {
        "font": Font(name=_FONT, size=9, italic=True, strike=True, color="808080"),
        "alignment": _CENTER,
        "border": _BOX,
        "number_format": "hh:mm:ss",
    },
    "undone_note": {"font": Font(name=_FONT, size=9, bold=True, color="9C0006"), "alignment": _CENTER, "border": _BOX},
    "note": {
        "font": Font(name=_FONT, size=8, italic=True),
        "alignment": Alignment(horizontal="left", vertical="top", wrap_text=True),
        "border": _BOX,
    },
    "sign": {"font": Font(name=_FONT, size=10), "border": Border(bottom=_MEDIUM)},
    "value_date": {
        "font": Font(name=_FONT, size=10),
        "alignment": _LEFT,
        "border": _BOX,
        "number_format": "DD.MM.YYYY",
    },
    "td_marks": {"font": Font(name=_FONT, size=9, bold=True, color="9C0006"), "alignment": _CENTER, "border": _BOX},
}


class _SharedStyle(StyleArray):  # type: ignore[misc]
    """A StyleArray shared by many cells: its hash is computed once (openpyxl
    hashes a cell's style twice for every cell it writes)."""

    _hash: int

    def __hash__(self) -> int:
        return self._hash


def _shared(arr: StyleArray) -> _SharedStyle:
    shared = _SharedStyle(arr)
    shared._hash = hash(tuple(shared))  # the same hash as an equal StyleArray
    return shared


class _Styles:
    """One StyleArray per named style and workbook, shared by every cell."""

    def __init__(self, workbook: Workbook) -> None:
        self._workbook = workbook
        self._arrays: dict[str, Any] = {}

    def array(self, name: str) -> Any:
        arr = self._arrays.get(name)
        if arr is None:
            # A throwaway cell registers the font/border/fill once in the
            # workbook's style tables; its StyleArray then stands for the style.
            tmp = Cell(_DummySheet(self._workbook))
            for attr, value in STYLE_SPECS[name].items():
                setattr(tmp, attr, value)
            arr = _shared(tmp._style if tmp._style is not None else StyleArray())
            self._arrays[name] = arr
        return arr


class _DummySheet:
    def __init__(self, workbook: Workbook) -> None:
        self.parent = workbook


def _styles(workbook: Workbook) -> _Styles:
    styles: _Styles | None = getattr(workbook, "_mafia_export_styles", None)
    if styles is None:
        styles = _Styles(workbook)
        workbook._mafia_export_styles = styles
    return styles


# --- a sheet drawn on a grid, then streamed row by row -------------------------------


_new_cell = Cell.__new__


def _cell(ws: Any, row: int, column: int, value: Any, style: Any) -> Cell:
    """A Cell built without openpyxl's per-value type guessing (the hot path of
    a 100-game workbook). Strings are always text: a nickname starting with
    "=" must never become a formula."""
    cell = _new_cell(Cell)
    cell.parent = ws
    cell.row = row
    cell.column = column
    cell._hyperlink = None
    cell._comment = None
    cell._style = style
    if value is None:
        cell.data_type = "n"
    elif isinstance(value, str):
        # The one text-cell helper of every workbook: literal text, never a formula.
        cell._value = None
        return set_text(cell, value)
    elif isinstance(value, bool):
        cell.data_type = "b"
    elif isinstance(value, int | float):
        cell.data_type = "n"
    elif isinstance(value, datetime | date):
        cell.data_type = "d"
    else:
        cell._value = None
        return set_text(cell, str(value))
    cell._value = value
    return cell


class _Grid:
    """Cells placed anywhere (the protocol has blocks side by side), then
    written in row order, which write-only mode requires."""

    def __init__(self) -> None:
        self.cells: dict[int, dict[int, tuple[Any, str | None]]] = {}
        self.merges: list[str] = []
        self.heights: dict[int, float] = {}
        self.max_row = 0
        self.ncols = 0
        self.widths: list[float] = []  # the column widths the layout was sized for

    def put(self, row: int, col: int, value: Any, style: str | None = None) -> None:
        self.cells.setdefault(row, {})[col] = (value, style)
        if row > self.max_row:
            self.max_row = row

    def height(self, row: int, points: float) -> None:
        """The left and right blocks share rows: a row is as tall as its tallest need."""
        self.heights[row] = max(points, self.heights.get(row, 0))

    def merge(self, row: int, col: int, row2: int, col2: int, value: Any, style: str | None = None) -> None:
        """Value in the top-left cell; the style on every cell so the borders show."""
        for r in range(row, row2 + 1):
            for c in range(col, col2 + 1):
                self.put(r, c, value if (r == row and c == col) else None, style)
        if row2 > row or col2 > col:
            self.merges.append(f"{get_column_letter(col)}{row}:{get_column_letter(col2)}{row2}")

    def write(self, ws: Any, styles: _Styles) -> None:
        for r, height in self.heights.items():
            ws.row_dimensions[r].height = height
        # The writer only iterates the merges and makes a MergeCell of each
        # ref; plain refs spare a CellRange per merge (adding them one by one
        # to the MultiCellRange is even quadratic).
        ws.merged_cells = list(self.merges)
        empty: list[Any] = []
        for r in range(1, self.max_row + 1):
            row = self.cells.get(r)
            if not row:
                ws.append(empty)
                continue
            ws.append([_cell(ws, r, c, row[c][0], styles.array(row[c][1] or "plain")) for c in sorted(row)])


def _styled_row(ws: Any, styles: _Styles, values: Sequence[Any], style: str | Sequence[str]) -> list[Any]:
    if isinstance(style, str):
        arr = styles.array(style)
        return [_cell(ws, 1, i, value, arr) for i, value in enumerate(values, 1)]
    return [_cell(ws, 1, i, value, styles.array(style[i - 1])) for i, value in enumerate(values, 1)]


class _Rows:
    """Appends styled rows to a write-only sheet and counts them, so that a row
    whose wrapped text needs several lines gets its height before it is
    written (rows do not grow by themselves when the file is opened)."""

    def __init__(self, ws: Any, styles: _Styles, widths: Sequence[float]) -> None:
        self.ws, self.styles, self.widths, self.count = ws, styles, list(widths), 0

    def add(self, values: Sequence[Any], style: str | Sequence[str] = "td", wrap: Sequence[int] = ()) -> None:
        self.count += 1
        lines = 1
        for i in wrap:
            value = values[i] if i < len(values) else None
            if isinstance(value, str) and value:
                lines = max(lines, lines_needed(value, self.widths[i]))
        if lines > 1:
            self.ws.row_dimensions[self.count].height = 12.5 * lines
        self.ws.append(_styled_row(self.ws, self.styles, values, style) if values else [])


def _cells_to_row(cells: Sequence[Any], row_idx: int) -> Iterable[Any]:
    """Stands in for WriteOnlyWorksheet._values_to_row: our rows are ready
    Cell objects with their column and shared style, so they only need the row
    number (openpyxl's version tries each value as a plain value first)."""
    for cell in cells:
        cell.row = row_idx
        yield cell


def _new_sheet(workbook: Workbook, title: str) -> Any:
    ws = workbook.create_sheet(title=title)
    if hasattr(ws, "_values_to_row"):  # write-only worksheets stream rows through it
        ws._values_to_row = _cells_to_row
    return ws


def _page_setup(ws: Any, *, one_page: bool = True, title_rows: str | None = None) -> None:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = 9  # A4
    ws.page_setup.fitToWidth = 1
    # The journal of a long game is many rows: it keeps its width on one page
    # and runs over several pages with the heading repeated, rather than being
    # shrunk to an unreadable single page.
    ws.page_setup.fitToHeight = 1 if one_page else 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.horizontalCentered = True
    ws.page_margins = PageMargins(left=0.4, right=0.4, top=0.5, bottom=0.5, header=0.2, footer=0.2)
    if title_rows:
        ws.print_title_rows = title_rows


def _widths(ws: Any, widths: Sequence[float]) -> None:
    for i, w in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(i)].width = w


def text_units(text: Any) -> float:
    """The column width (Excel units ≈ one digit of the default font) a text of
    10 pt needs on one line; wide letters count a little more (an estimate)."""
    s = str(text)
    return sum(1.25 if ch.isupper() or ch in "ЖШЩМЮФЫmwMW@%" else 1.0 for ch in s)


def lines_needed(text: Any, width: float) -> int:
    """Lines a wrapped text needs in a column (or merged cells) of ``width`` units."""
    if text is None or text == "":
        return 1
    room = max(1.0, width - 1.0)  # the cell's inner margins
    lines = 0
    for paragraph in str(text).split("\n"):
        lines += max(1, -(-int(text_units(paragraph) * 10) // int(room * 10)))
    return lines
