"""Checks shared by the workbook tests: text that fits its cell, print setup, PDF page counts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from openpyxl.utils import column_index_from_string, get_column_letter

from games.exports import cells


def assert_text_fits(ws) -> None:
    """No text cell narrower than its text (an estimate, cells.lines_needed):
    unwrapped text must fit the width of its cell (merged cells included);
    wrapped text must have the lines it needs in the row's height."""
    merged = {(r.min_row, r.min_col): r for r in ws.merged_cells.ranges}
    printed_cols = None
    if ws.print_area:  # columns kept off the print (the journal's raw JSON) are for machines
        last = str(ws.print_area).split(":")[-1].replace("$", "")
        printed_cols = column_index_from_string("".join(ch for ch in last if ch.isalpha()))
    for row in ws.iter_rows():
        for cell in row:
            if cell.data_type != "s" or not cell.value or not cell.has_style or not cell.border.left.style:
                continue  # only the cells of the tables (boxed); free notes may overflow
            if printed_cols is not None and cell.column > printed_cols:
                continue
            rng = merged.get((cell.row, cell.column))
            cols = range(cell.column, (rng.max_col if rng else cell.column) + 1)
            rows = range(cell.row, (rng.max_row if rng else cell.row) + 1)
            width = sum(ws.column_dimensions[get_column_letter(c)].width or 8.43 for c in cols)
            size = cell.font.sz or 10
            if not (cell.alignment and cell.alignment.wrap_text):
                assert cells.text_units(cell.value) * size / 10 <= width + 0.5, (
                    ws.title,
                    cell.coordinate,
                    cell.value,
                    width,
                )
                continue
            height = sum(ws.row_dimensions[r].height or 15 for r in rows)
            need = cells.lines_needed(cell.value, width * 10 / size) * size * 1.15
            assert height + 0.5 >= need, (ws.title, cell.coordinate, cell.value, width, height, need)


def soffice() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


def xlsx_to_pdf_pages(xlsx: bytes, workdir: Path) -> int:
    """Render a workbook to PDF with LibreOffice (a private profile, so parallel
    runs never share one) and count its pages."""
    src = workdir / "book.xlsx"
    src.write_bytes(xlsx)
    profile = tempfile.mkdtemp(prefix="lo-profile-", dir="/tmp")
    subprocess.run(
        [
            soffice(),
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(workdir),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=240,
        env={**os.environ, "HOME": profile},
    )
    shutil.rmtree(profile, ignore_errors=True)
    return pdf_pages((workdir / "book.pdf").read_bytes())


def pdf_pages(pdf: bytes) -> int:
    """Pages of a PDF: its /Type /Page objects (not /Pages)."""
    return len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
