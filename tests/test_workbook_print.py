"""The game workbook as an organizer prints and signs it (issue 16): page
setup, text that fits, every voter of every round against the log, the
discipline marks per seat, the date cell; and, marked `live`, the PDF that
LibreOffice prints from it."""

import datetime as dt
import io
import json

import pytest
from openpyxl import load_workbook

from games import exports, services
from games.rules import replay
from tests.test_exports import find, players_table
from tests.workbook_checks import assert_text_fits, soffice, xlsx_to_pdf_pages

LONG = [(f"{i}_" + "Ж" * 30 + "_nickname_of_sixty_four_characters").ljust(64, "x")[:64] for i in range(1, 11)]


def _example(examples_dir, name):
    return json.loads((examples_dir / f"{name}.json").read_text())["actions"]


def _played(actions):
    return [a for a in actions if a["do"] != "expect" and not a.get("reject")]


def _protocol(actions, *, players=None, start=dt.datetime(2026, 11, 28, 21, 5)):
    actions = _played(actions)
    if players is not None:
        actions = [{"do": "seat", "players": players} if a["do"] == "seat" else a for a in actions]
    entries = [
        exports.LogEntry(seq=i, payload=a, created_at=start + dt.timedelta(seconds=30 * i), by="host")
        for i, a in enumerate(actions, start=1)
    ]
    proto = exports.prepare_protocol(header=exports.Header(game_id=1, host="host", date=start.date()), entries=entries)
    assert proto.error == ""
    return proto


def _book(protos, lang="ru"):
    wb = exports.new_workbook()
    exports.write_game_protocol_sheets(wb, protos, lang)
    return exports.workbook_bytes(wb)


def _load(protos, lang="ru"):
    return load_workbook(io.BytesIO(_book(protos, lang)))


def test_long_nicknames_fit_and_every_sheet_is_set_up_for_print(examples_dir):
    assert all(len(n) == 64 for n in LONG)
    wb = _load([_protocol(_example(examples_dir, "red_win"), players=LONG)])
    assert wb.sheetnames == ["Протокол", "Ночи", "Голоса", "Дисциплина", "Журнал"]
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape" and int(ws.page_setup.paperSize) == 9
        assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToWidth == 1
    protocol = wb["Протокол"]
    assert protocol.page_setup.fitToHeight == 1  # one sheet of paper
    for name in ("Ночи", "Голоса", "Журнал"):
        assert wb[name].print_title_rows == "$1:$1"
    # The 64-character nicknames are there, whole, and their rows have the lines they need.
    assert [players_table(protocol)[s][0] for s in range(1, 11)] == LONG
    top, _ = find(protocol, "№", col=1)
    assert all(protocol.row_dimensions[r].height > 16 for r in range(top + 2, top + 12))
    for ws in wb.worksheets:
        assert_text_fits(ws)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_no_text_cell_is_narrower_than_its_text_in_any_sheet(examples_dir, lang):
    """Every sheet of single- and multi-game workbooks, with long nicknames, removals, a lift vote."""
    books = [
        [_protocol(DISCIPLINE)],
        [_protocol(_example(examples_dir, "tie_and_lift"), players=LONG)],
        [
            _protocol(DISCIPLINE),
            _protocol(_example(examples_dir, "tie_and_lift")),
            _protocol(_example(examples_dir, "black_win"), players=LONG),
        ],
    ]
    for protos in books:
        wb = _load(protos, lang)
        for ws in wb.worksheets:
            assert_text_fits(ws)
    multi = _load(books[2], lang)
    assert multi.worksheets[-2].print_title_rows == "$1:$1"  # «Дисциплина» of several games


def test_the_night_rows_wrap_and_grow(examples_dir):
    ws = _load([_protocol(_example(examples_dir, "red_win"), players=LONG)])["Протокол"]
    r, _ = find(ws, "Ночь", col=1)
    assert ws.cell(r + 1, 2).value == f"убит 5 {LONG[4]}"
    assert ws.cell(r + 1, 3).value == f"1 {LONG[0]} — шериф"
    assert ws.row_dimensions[r + 1].height >= 2 * 11  # 80 characters: two lines at least
    assert_text_fits(ws)


def _expected_rounds(actions):
    """Every voter of every round, computed here from the log (V4: voters not
    named go to the last candidate): [(day, {candidate: [voters]}, {V4 voters})]."""
    out = []
    played = _played(actions)
    for i, a in enumerate(played):
        if a["do"] not in ("votes", "lift_vote"):
            continue
        before = replay(played[:i])
        table = list(before.at_table)
        if a["do"] == "lift_vote":
            yes = sorted(a["yes"])
            out.append((before.day, {"yes": yes, "no": [v for v in table if v not in yes]}, set()))
            continue
        named = {int(v): int(c) for c, voters in a["for"].items() for v in voters}
        last = before.nominees[-1]
        ballots = {c: [] for c in before.nominees}
        for v in table:
            ballots[named.get(v, last)].append(v)
        out.append((before.day, ballots, {v for v in table if v not in named}))
    return out


@pytest.mark.parametrize("name", ["red_win", "black_win", "tie_and_lift"])
def test_votes_sheet_and_journal_list_every_voter_of_every_round(examples_dir, name):
    actions = _example(examples_dir, name)
    wb = _load([_protocol(actions)])
    ws = wb["Голоса"]
    assert [c.value for c in ws[1]] == ["День", "Голосование", "Кандидат", "Голосов", "Голосовавшие"]
    sheet_rows = [[c.value for c in row] for row in ws.iter_rows(min_row=2) if isinstance(row[0].value, int)]
    expected_rows = []
    for day, ballots, auto in _expected_rounds(actions):
        for cand, voters in ballots.items():
            text = ", ".join(f"{v}*" if v in auto else str(v) for v in voters) or "—"
            expected_rows.append((day, cand, len(voters), text))
    got = [
        (r[0], r[2] if r[2] in ("за подъём", "против") else int(str(r[2]).split()[0]), r[3], r[4]) for r in sheet_rows
    ]
    expected = [(d, {"yes": "за подъём", "no": "против"}.get(c, c), n, t) for d, c, n, t in expected_rows]
    assert got == expected
    assert expected  # every example has a vote
    # The journal says the same, V4 voters marked.
    journal = wb["Журнал"]
    vote_lines = [
        journal.cell(r, 4).value
        for r in range(2, journal.max_row + 1)
        if str(journal.cell(r, 4).value).startswith(("Голосование", "Переголосование", "Подъём"))
    ]
    assert len(vote_lines) == len(expected_rows and _expected_rounds(actions))
    for line, (_day, ballots, auto) in zip(vote_lines, _expected_rounds(actions), strict=True):
        for cand, voters in ballots.items():
            if cand in ("yes", "no"):
                continue
            listed = ", ".join(f"{v}*" if v in auto else str(v) for v in voters) or "—"
            assert f"{cand} ({len(voters)}): {listed}" in line


def test_red_win_day1_journal_names_the_v4_voter(examples_dir):
    """The issue's case: Day 1 reads «4: 2, 3» where the count is 3 — seat 4 did not vote (V4)."""
    journal = _load([_protocol(_example(examples_dir, "red_win"))])["Журнал"]
    line = next(
        journal.cell(r, 4).value
        for r in range(2, journal.max_row + 1)
        if str(journal.cell(r, 4).value).startswith("Голосование")
    )
    assert "4 (3): 2, 3, 4*" in line and "(* V4)" in line


DISCIPLINE = [
    {
        "do": "seat",
        "players": ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"],
    },
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
    {"do": "next"},
    {"do": "next"},
    {"do": "warning", "seat": 5},
    {"do": "grey_card", "seat": 6},
    {"do": "tech_pause", "seat": 7},
    {"do": "foul", "seat": 8},
    {"do": "warning", "seat": 9},
    {"do": "warning", "seat": 9},  # the 2nd warning removes (F4)
    {"do": "ppk", "team": "black", "seat": 3},
]


def test_protocol_shows_each_seats_whole_discipline():
    wb = _load([_protocol(DISCIPLINE)])
    ws = wb["Протокол"]
    top, _ = find(ws, "№", col=1)
    assert ws.cell(top, 14).value == "Дисц." and ws.cell(top, 13).value == "ЛХ"
    marks = {ws.cell(r, 1).value: ws.cell(r, 14).value for r in range(top + 2, top + 12)}
    assert marks == {1: None, 2: None, 3: "ППК", 4: None, 5: "П1", 6: "СК", 7: "Т1", 8: None, 9: "П2", 10: None}
    table = players_table(ws)
    assert table[8][2] == exports.FOUL_MARK and table[9][6] == "У"  # removed by 2 warnings
    legend = next(
        c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith("✕ — фол")
    )
    assert (
        "П2 — предупреждений (F4)" in legend
        and "СК — серая карточка (F15)" in legend
        and "ППК — нарушитель ППК (W5)" in legend
    )
    assert find(ws, "Главный судья / организатор", col=1)
    en = _load([_protocol(DISCIPLINE)], "en")
    assert any(c.value == "Team loss (PPK) (black)" for row in en["Discipline"].iter_rows() for c in row)
    assert any(c.value == "Team loss (PPK): black (3)" for row in en["Log"].iter_rows() for c in row)


def test_a_draw_outside_a_tournament_writes_the_result():
    from tests.conftest import PROJECT_ROOT

    actions = json.loads(
        (PROJECT_ROOT / "tests/rules/scenarios/W4_draw_after_night_3_day1_leaver_outside_window.json").read_text()
    )["actions"]
    ws = _load([_protocol(actions)])["Протокол"]
    assert [players_table(ws)[s][8] for s in range(1, 11)] == ["ничья"] * 10


@pytest.mark.django_db
def test_the_date_is_the_day_of_the_first_action(examples_dir, host):
    from games.models import GameAction

    game = services.game_import_log(host=host, data=json.loads((examples_dir / "red_win.json").read_text()))
    first = game.actions.order_by("seq").first()
    played = dt.datetime(2026, 11, 28, 20, 0, tzinfo=dt.UTC)
    GameAction.objects.filter(pk=first.pk).update(created_at=played)
    ws = load_workbook(io.BytesIO(exports.workbook_bytes(exports.build_games_workbook([game.pk]))))["Протокол"]
    r, c = find(ws, "Дата", col=9)
    cell = ws.cell(r, c + 1)
    assert cell.is_date and cell.value.date() == dt.date(2026, 11, 28) and cell.number_format == "DD.MM.YYYY"


@pytest.mark.live
@pytest.mark.skipif(soffice() is None, reason="LibreOffice (libreoffice-calc-nogui) is not installed")
def test_pdf_protocol_with_64_character_nicknames_is_one_page(examples_dir, tmp_path):
    proto = _protocol(_example(examples_dir, "red_win"), players=LONG)
    wb = exports.new_workbook()
    exports.write_protocol_sheet(wb, proto)  # «Протокол» alone
    assert xlsx_to_pdf_pages(exports.workbook_bytes(wb), tmp_path) == 1
