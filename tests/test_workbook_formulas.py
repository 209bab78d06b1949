"""Issue 11, finding 4: user text in every workbook is literal text, never a formula.

Payloads starting with = + - @ tab and carriage return go into every place
user text reaches a workbook (tournament and game names, nicknames, penalty
reasons); every sheet of every workbook is read back and no cell may be a
formula (data type 'f'), every payload cell must be a string ('s')."""

from __future__ import annotations

import io

import pytest
from openpyxl import load_workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.workbook import Workbook

from games import exports as game_exports
from games import services as game_services
from mafia_protocol import xlsx
from tests.tournaments.helpers import play_scripted
from tournaments import services
from tournaments.models import Table

PAYLOADS = ["=1+1", '=HYPERLINK("http://x","y")', "+1+1", "-1+1", "@SUM(A1)", "\t=2+2", "\r=3+3"]
FILLER = [f"Player{i:02d}" for i in range(1, 14)]


def _formula_cells(raw: bytes) -> tuple[list[str], list[str], set[str]]:
    """(formula cells, sheet titles, every string value) of a workbook file."""
    wb = load_workbook(io.BytesIO(raw))
    formulas, strings = [], set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f":
                    formulas.append(f"{ws.title}!{c.coordinate}={c.value!r}")
                if isinstance(c.value, str):
                    strings.add(c.value)
    return formulas, wb.sheetnames, strings


def _in_some_cell(payload: str, strings: set[str]) -> bool:
    # Nicknames are trimmed on entry (a leading tab or CR does not survive): look for the rest.
    core = payload.strip()
    return any(core in s for s in strings)


@pytest.mark.django_db
def test_tournament_standings_workbook_has_no_formula_cells(host, client):
    t = services.tournament_create(name="=1+1 cup", organizer=host, preset="cristalix")
    services.participants_add(tournament=t, entries=[*PAYLOADS, *FILLER][:20])
    stage = services.stage_create(tournament=t)
    services.stage_generate_seating(stage=stage, rounds=1, seed="f")
    services.stage_set_host(stage=stage, table_number=1, host=host)
    services.stage_set_host(stage=stage, table_number=2, host=host)
    rnd = stage.rounds.get()
    services.round_start_games(round=rnd, by=host)
    for table in Table.objects.filter(round=rnd):
        play_scripted(table, n1_victim=5, penalties=[{"do": "foul", "seat": 6, "reason": "=cmd|' /C calc'!A0"}])
    raw = client.get(f"/tournaments/{t.pk}/standings.xlsx").content
    formulas, sheets, strings = _formula_cells(raw)
    assert len(sheets) >= 3  # the standings and a protocol sheet per game
    assert formulas == []
    for payload in [*PAYLOADS, "=1+1 cup"]:
        assert _in_some_cell(payload, strings), payload


@pytest.mark.django_db
def test_game_workbook_has_no_formula_cells(host):
    players = [p.strip() for p in PAYLOADS] + ["Kilo", "Lima", "Mike"]
    game = game_services.game_create(host=host, title='=HYPERLINK("http://x","y")', players=players)
    from tests.tournaments.helpers import record, scripted_log

    record(
        game,
        scripted_log(
            n1_victim=5,
            penalties=[
                {"do": "warning", "seat": 6, "reason": "@SUM(1+1)\nи ещё"},
                {"do": "foul", "seat": 7, "reason": "-2+3"},
            ],
        ),
    )
    for lang in ("ru", "en"):
        raw = game_exports.workbook_bytes(game_exports.build_games_workbook([game.pk], lang, details=True))
        formulas, sheets, strings = _formula_cells(raw)
        assert len(sheets) >= 3 and formulas == [], formulas
        for payload in [*players[:7], '=HYPERLINK("http://x","y")', "-2+3"]:
            assert _in_some_cell(payload, strings), (lang, payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_text_cell_helper_writes_literal_strings(payload):
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("s")
    ws.append([xlsx.text_cell(ws, payload), xlsx.cell(ws, payload), *xlsx.row(ws, [payload, 3, None])])
    buf = io.BytesIO()
    wb.save(buf)
    cells = list(load_workbook(io.BytesIO(buf.getvalue())).active.iter_rows())[0]
    for c in cells[:3]:
        assert c.data_type == "s" and c.value.strip() == payload.strip()
    assert cells[3].value == 3


def test_plain_write_only_cell_would_be_a_formula():
    """The danger the helper exists for: openpyxl's own type guessing."""
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("s")
    assert WriteOnlyCell(ws, value="=1+1").data_type == "f"
    assert xlsx.text_cell(ws, "=1+1").data_type == "s"
