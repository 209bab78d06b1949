"""Excel protocol export: the workbook is written, loaded back with openpyxl and
read cell by cell against what happened in the three shared example games."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from games import exports, services
from games import reading as game_reading
from games.models import Game

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]


def import_example(examples_dir, name, host):
    data = json.loads((examples_dir / f"{name}.json").read_text())
    return services.game_import_log(host=host, data=data)


class _Examples(dict):
    """The example games, imported on first use (an import replays the log)."""

    def __init__(self, examples_dir, host):
        super().__init__()
        self.examples_dir, self.host = examples_dir, host

    def __missing__(self, name):
        self[name] = game = import_example(self.examples_dir, name, self.host)
        return game

    def all(self):
        return [self[n] for n in ("red_win", "black_win", "tie_and_lift")]


@pytest.fixture
def examples(examples_dir, host):
    return _Examples(examples_dir, host)


def workbook_of(games, lang="ru", details=None):
    return load_workbook(io.BytesIO(exports.workbook_bytes(exports.build_games_workbook(games, lang, details=details))))


def find(ws, text, col=None):
    """(row, column) of the first cell holding exactly `text`."""
    for row in ws.iter_rows():
        for cell in row:
            if cell.value == text and (col is None or cell.column == col):
                return cell.row, cell.column
    raise AssertionError(f"{text!r} not found in {ws.title}")


def row_values(ws, row, first, last):
    return [ws.cell(row, c).value for c in range(first, last + 1)]


def players_table(ws):
    """seat -> (nickname, role letter, fouls marks, removal mark, left, points, extra, ci, best-move points, discipline marks)."""
    top, _ = find(ws, "№", col=1)
    out = {}
    for r in range(top + 2, top + 12):
        seat = ws.cell(r, 1).value
        out[seat] = tuple(ws.cell(r, c).value for c in range(2, 15))
    return out


def vote_block(ws, day):
    """The voting block of a Day: candidates, nominators, vote rows, the «Покинул» line."""
    r, c = find(ws, f"День {day}", col=16)
    candidates = [v for v in row_values(ws, r, c + 1, c + 10) if isinstance(v, int)]
    block = {"candidates": candidates, "rows": []}
    r += 1
    while ws.cell(r, c).value not in (None,) and not str(ws.cell(r, c).value).startswith("День"):
        label = ws.cell(r, c).value
        values = row_values(ws, r, c + 1, c + len(candidates)) if candidates else []
        if label == "Выставил":
            block["nominators"] = values
        elif label == "Покинул":
            block["left"] = ws.cell(r, c + 1).value
        elif label in ("Голосование", "Переголосование", "Подъём"):
            block["rows"].append(
                (label, values if label != "Подъём" else [ws.cell(r, c + 1).value, ws.cell(r, c + 2).value])
            )
        else:
            block.setdefault("notes", []).append(label)
        r += 1
    return block


# --- the «Протокол» sheet -------------------------------------------------------------


@pytest.mark.django_db
def test_red_win_protocol_sheet(examples):
    game = examples["red_win"]
    wb = workbook_of([game.pk])
    assert wb.sheetnames == ["Протокол", "Ночи", "Голоса", "Дисциплина", "Журнал"]
    ws = wb["Протокол"]
    assert ws["A1"].value == "ПРОТОКОЛ ИГРЫ"
    host_row, _ = find(ws, "Ведущий", col=1)
    assert ws.cell(host_row, 3).value == "host"
    table = players_table(ws)
    assert [table[s][0] for s in range(1, 11)] == PLAYERS
    # Roles (S2): Ш / Д / М, blank for a civilian.
    assert [table[s][1] for s in range(1, 11)] == ["Ш", "Д", "М", "М", None, None, None, None, None, None]
    # How and when each player left.
    assert table[3][7] == "Д1 голосование"
    assert table[5][7] == "Н1 убит"
    assert table[2][7] == "Д2 голосование"
    assert table[1][7] == "Н2 убит"
    assert table[4][7] == "Д3 голосование"
    assert table[6][7] is None
    # Outside a tournament: points from the result (red won), extra and Ci blank.
    assert [table[s][8] for s in range(1, 11)] == [1, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    assert all(table[s][9] is None and table[s][10] is None for s in range(1, 11))
    # No fouls, nobody removed.
    assert all(v is None for s in range(1, 11) for v in table[s][2:7])
    r, _ = find(ws, "Победа", col=1)
    assert ws.cell(r, 3).value == "Красные (мирные)"
    # Best move (N6): player 5 named 2, 4, 6 — two blacks.
    r, _ = find(ws, "Лучший ход", col=1)
    assert row_values(ws, r + 1, 3, 7) == [5, 2, 4, 6, "принят, чёрных: 2"]
    # Nights in brief.
    r, _ = find(ws, "Ночь", col=1)
    assert row_values(ws, r, 1, 3) == ["Ночь", "Выстрел", "Проверка Дона"]
    assert row_values(ws, r + 1, 1, 12) == [
        1,
        "убит 5 Echo",
        "1 Alpha — шериф",
        None,
        None,
        None,
        None,
        None,
        None,
        "2 Bravo — чёрный",
        None,
        None,
    ]
    assert ws.cell(r + 2, 2).value == "убит 1 Alpha"
    assert ws.cell(r + 2, 3).value is None  # the Don had left on Day 2: no check (N4)
    assert ws.cell(r + 2, 10).value == "4 Delta — чёрный"
    # Protest field and the host's signature line are there, blank.
    r, _ = find(ws, "Протест", col=1)
    assert ws.cell(r, 3).value is None
    assert ws.freeze_panes == "A6"


@pytest.mark.django_db
def test_red_win_voting_blocks(examples):
    ws = workbook_of([examples["red_win"].pk])["Протокол"]
    day1 = vote_block(ws, 1)
    assert day1["candidates"] == [3, 4]  # nomination order (V2)
    assert day1["nominators"] == [1, 5]
    # 7 for seat 3; 2 named for seat 4 plus seat 4 himself, who did not vote (V4).
    assert day1["rows"] == [("Голосование", [7, 3])]
    assert day1["left"] == "3 Charlie"
    day2 = vote_block(ws, 2)
    assert day2["candidates"] == [2]
    # Voters who did not vote go to the last candidate (V4): 6 named + 2.
    assert day2["rows"] == [("Голосование", [8])]
    assert day2["left"] == "2 Bravo"
    day3 = vote_block(ws, 3)
    assert day3["candidates"] == [4] and day3["rows"] == [("Голосование", [6])] and day3["left"] == "4 Delta"


@pytest.mark.django_db
def test_black_win_protocol(examples):
    ws = workbook_of([examples["black_win"].pk])["Протокол"]
    table = players_table(ws)
    assert [table[s][1] for s in range(1, 11)] == ["Д", "М", "М", None, None, None, None, None, None, "Ш"]
    assert [table[s][8] for s in range(1, 11)] == [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    r, _ = find(ws, "Победа", col=1)
    assert ws.cell(r, 3).value == "Чёрные (мафия)"
    r, _ = find(ws, "Лучший ход", col=1)
    assert row_values(ws, r + 1, 3, 7) == [10, 1, 2, 4, "принят, чёрных: 2"]
    day1 = vote_block(ws, 1)
    # V5: one candidate on Day 1, no vote, nobody leaves.
    assert day1["candidates"] == [5] and day1["rows"] == [] and day1["left"] == "никто"
    assert any("V5" in n for n in day1["notes"])
    day2 = vote_block(ws, 2)
    assert day2["candidates"] == [4, 5] and day2["nominators"] == [2, 3]
    assert day2["rows"] == [("Голосование", [5, 4])]
    assert day2["left"] == "4 Delta"
    day3 = vote_block(ws, 3)
    assert day3["candidates"] == [7] and day3["rows"] == [("Голосование", [7])] and day3["left"] == "7 Golf"


@pytest.mark.django_db
def test_tie_and_lift_protocol(examples):
    ws = workbook_of([examples["tie_and_lift"].pk])["Протокол"]
    day1 = vote_block(ws, 1)
    assert day1["candidates"] == [2, 4]
    # Vote, the same tie on the revote (V8/V9), then the lift vote (V10) carried.
    assert day1["rows"] == [
        ("Голосование", [5, 5]),
        ("Переголосование", [5, 5]),
        ("Подъём", [6, "из 10 за подъём — покидают"]),
    ]
    assert day1["left"] == "2 Bravo, 4 Delta"
    table = players_table(ws)
    assert table[2][7] == "Д1 подъём" and table[4][7] == "Д1 подъём"
    assert table[1][7] == "Н1 убит"
    # Still running: no result, no points yet.
    r, _ = find(ws, "Победа", col=1)
    assert ws.cell(r, 3).value == "Игра не окончена"
    assert all(table[s][8] is None for s in range(1, 11))
    # Day 2 under way: no nominations, no outcome yet.
    day2 = vote_block(ws, 2)
    assert day2["candidates"] == [] and day2["left"] == "—"


# --- «Ночи», «Дисциплина», «Журнал» ----------------------------------------------------------


@pytest.mark.django_db
def test_nights_sheet(examples):
    ws = workbook_of([examples["red_win"].pk])["Ночи"]
    # Each black's column names his seat; a black who had left reads «выбыл».
    assert row_values(ws, 1, 1, 10) == [
        "Ночь",
        "Дон №2",
        "Мафия №3",
        "Мафия №4",
        "Итог",
        "Проверка Дона",
        "Ответ",
        "Проверка Шерифа",
        "Ответ",
        "Лучший ход",
    ]
    assert row_values(ws, 2, 1, 10) == [
        "Ночь 1",
        "2 → 5",
        "выбыл",
        "4 → 5",
        "убит 5 Echo",
        "1 Alpha",
        "шериф",
        "2 Bravo",
        "чёрный",
        "5: 2, 4, 6 — принят, чёрных: 2",
    ]
    assert row_values(ws, 3, 1, 10) == [
        "Ночь 2",
        "выбыл",
        "выбыл",
        "4 → 1",
        "убит 1 Alpha",
        None,
        None,
        "4 Delta",
        "чёрный",
        None,
    ]
    assert ws.max_row == 3
    assert ws.freeze_panes == "B2"
    tie = workbook_of([examples["tie_and_lift"].pk])["Ночи"]
    assert row_values(tie, 2, 1, 9) == [
        "Ночь 1",
        "8 → 1",
        "9 → 1",
        "10 → 1",
        "убит 1 Alpha",
        "5 Echo",
        "шериф",
        "8 Hotel",
        "чёрный",
    ]


@pytest.fixture
def disciplined(host):
    """Day 1 of a game with a foul, a wink, a tech pause, a warning and an undone nomination."""
    game = services.game_create(host=host, title="discipline", players=PLAYERS)

    def rec(action):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)

    rec({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]})
    rec({"do": "start"})
    rec({"do": "next"})
    rec({"do": "next"})  # Day 1, seat 1 speaks
    rec({"do": "foul", "seat": 4, "reason": "speech_out_of_turn"})
    rec({"do": "wink", "by": 2, "target": 5})
    rec({"do": "tech_pause", "seat": 6})
    rec({"do": "nominate", "by": 1, "target": 7})
    services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    rec({"do": "nominate", "by": 1, "target": 8})
    rec({"do": "warning", "seat": 9, "reason": "free text reason"})
    return game


@pytest.mark.django_db
def test_discipline_sheet(disciplined):
    ws = workbook_of([disciplined.pk])["Дисциплина"]
    r, _ = find(ws, "Наказания", col=1)
    assert row_values(ws, r + 1, 1, 7) == ["Время", "Фаза", "№", "Игрок", "Наказание", "Причина", "Последствие"]
    foul = row_values(ws, r + 2, 2, 6)
    assert foul[:4] == ["День 1", 4, "Delta", "Фол (1-й)"]
    assert foul[4].startswith("Речь не в свою игровую минуту")  # the catalogue's text (F16)
    assert ws.cell(r + 2, 1).value is not None and ws.cell(r + 2, 1).number_format == "hh:mm:ss"
    assert row_values(ws, r + 3, 2, 6) == ["День 1", 9, "India", "Предупреждение (1-е)", "free text reason"]
    r, _ = find(ws, "Подмигивания", col=1)
    assert row_values(ws, r + 2, 2, 5) == ["День 1", 2, "2 Bravo", "5 Echo"]
    r, _ = find(ws, "Технические паузы", col=1)
    assert row_values(ws, r + 2, 2, 4) == ["День 1", 6, "Foxtrot"]


@pytest.mark.django_db
def test_protocol_marks_fouls(disciplined):
    table = players_table(workbook_of([disciplined.pk])["Протокол"])
    assert table[4][2:6] == (exports.FOUL_MARK, None, None, None)
    assert table[4][6] is None  # not removed


@pytest.mark.django_db
def test_log_sheet_lists_every_action_and_marks_the_undone(disciplined):
    ws = workbook_of([disciplined.pk])["Журнал"]
    assert row_values(ws, 1, 1, 8) == ["№", "Время", "Фаза", "Действие", "Итог", "Кем", "Отменено", "Данные"]
    actions = list(disciplined.actions.order_by("seq"))
    assert ws.max_row == len(actions) + 1
    rows = {ws.cell(r, 1).value: row_values(ws, r, 1, 8) for r in range(2, ws.max_row + 1)}
    undone = next(a for a in actions if a.undone_at)
    assert rows[undone.seq][3] == "Выставление: 1 → 7"
    assert rows[undone.seq][6].startswith("отменено ")
    assert ws.cell(list(rows).index(undone.seq) + 2, 4).font.strike
    kept = next(a for a in actions if a.payload == {"do": "nominate", "by": 1, "target": 8})
    assert rows[kept.seq][3] == "Выставление: 1 → 8" and rows[kept.seq][6] is None
    assert rows[kept.seq][2] == "День 1, речь"
    assert rows[kept.seq][5] == "host"
    assert json.loads(rows[kept.seq][7]) == kept.payload
    assert rows[1][3].startswith("Рассадка: 1 Alpha, 2 Bravo")


@pytest.mark.django_db
def test_log_sheet_notes_check_answers(examples):
    ws = workbook_of([examples["red_win"].pk])["Журнал"]
    texts = {ws.cell(r, 4).value: ws.cell(r, 5).value for r in range(2, ws.max_row + 1)}
    assert texts["Дон проверил 1"] == "шериф"
    assert texts["Шериф проверил 2"] == "чёрный"
    assert texts["Выстрелы: 2 → 5; 4 → 5"] == "убит 5"


# --- languages, several games, layout ------------------------------------------------------------


@pytest.mark.django_db
def test_english_headings(examples):
    wb = workbook_of([examples["red_win"].pk], lang="en")
    assert wb.sheetnames == ["Protocol", "Nights", "Votes", "Discipline", "Log"]
    ws = wb["Protocol"]
    assert ws["A1"].value == "GAME PROTOCOL"
    table = players_table(ws)
    assert [table[s][1] for s in range(1, 4)] == ["S", "D", "M"]
    r, _ = find(ws, "Winner", col=1)
    assert ws.cell(r, 3).value == "Red (town)"


@pytest.mark.django_db
def test_several_games_one_protocol_sheet_each(examples):
    ids = [examples[n].pk for n in ("red_win", "black_win", "tie_and_lift")]
    wb = workbook_of(ids)
    assert wb.sheetnames == [f"Протокол #{i}" for i in ids]
    assert players_table(wb[f"Протокол #{ids[1]}"])[1][1] == "Д"
    full = workbook_of(ids, details=True)
    assert full.sheetnames[-4:] == ["Ночи", "Голоса", "Дисциплина", "Журнал"]
    nights = full["Ночи"]
    assert nights.cell(1, 1).value == "Игра" and nights.cell(2, 1).value == f"#{ids[0]}"


@pytest.mark.django_db
def test_print_setup_and_layout(examples):
    wb = workbook_of([examples["red_win"].pk])
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape"
        assert int(ws.page_setup.paperSize) == 9  # A4
        assert ws.sheet_properties.pageSetUpPr.fitToPage
        assert ws.page_setup.fitToWidth == 1
    assert wb["Протокол"].page_setup.fitToHeight == 1
    ws = wb["Протокол"]
    assert "A1:N1" in {str(r) for r in ws.merged_cells.ranges}
    assert ws.column_dimensions["B"].width >= 15
    assert ws["A8"].border.left.style == "thin"


@pytest.mark.django_db
def test_fetches_many_games_in_a_fixed_number_of_queries(examples, django_assert_max_num_queries):
    ids = [g.pk for g in examples.all()]
    with django_assert_max_num_queries(2):
        protocols = exports.collect_protocols(ids)
    assert [p.header.game_id for p in protocols] == ids


@pytest.mark.django_db
def test_nickname_is_never_a_formula(host):
    game = services.game_create(host=host, players=["=1+1", *PLAYERS[1:]])
    ws = workbook_of([game.pk])["Протокол"]
    top, _ = find(ws, "№", col=1)
    cell = ws.cell(top + 2, 2)
    assert cell.value == "=1+1" and cell.data_type == "s"


@pytest.mark.django_db
def test_game_in_setup_exports(host):
    game = services.game_create(host=host)
    wb = workbook_of([game.pk])
    assert wb["Журнал"].max_row == 1


# --- the download and the command ------------------------------------------------------------


@pytest.mark.django_db
def test_host_downloads_a_running_game_others_get_403(client, examples, host, other_user):
    game = examples["tie_and_lift"]
    url = reverse("exports:protocol_xlsx", args=[game.pk])
    assert url == f"/games/{game.pk}/protocol.xlsx"
    assert client.get(url).status_code == 403
    client.force_login(other_user)
    assert client.get(url).status_code == 403
    assert client.get(reverse("exports:log_json", args=[game.pk])).status_code == 403
    client.force_login(host)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == exports.XLSX_CONTENT_TYPE
    assert f'filename="protocol-{game.pk}.xlsx"' in response["Content-Disposition"]
    wb = load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    assert vote_block(wb["Протокол"], 1)["left"] == "2 Bravo, 4 Delta"


@pytest.mark.django_db
def test_everyone_downloads_a_finished_game(client, examples):
    game = examples["red_win"]
    response = client.get(reverse("exports:protocol_xlsx", args=[game.pk]))
    assert response.status_code == 200
    wb = load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    assert wb.sheetnames[0] == "Протокол"
    en = client.get(reverse("exports:protocol_xlsx", args=[game.pk]) + "?lang=en")
    assert load_workbook(io.BytesIO(b"".join(en.streaming_content))).sheetnames[0] == "Protocol"
    log = client.get(reverse("exports:log_json", args=[game.pk]))
    assert log.status_code == 200
    assert json.loads(log.content) == game_reading.game_export_log(game=game)


@pytest.mark.django_db
def test_missing_game_is_404(client):
    assert client.get("/games/999999/protocol.xlsx").status_code == 404


@pytest.mark.django_db
def test_export_xlsx_command(examples, tmp_path):
    out = tmp_path / "protocols.xlsx"
    ids = [examples["red_win"].pk, examples["black_win"].pk]
    call_command("export_xlsx", *map(str, ids), "-o", str(out), stdout=io.StringIO())
    wb = load_workbook(out)
    assert wb.sheetnames == [f"Протокол #{i}" for i in ids]
    single = tmp_path / "one.xlsx"
    call_command("export_xlsx", str(ids[0]), "-o", str(single), "--lang", "en", stdout=io.StringIO())
    assert load_workbook(single).sheetnames == ["Protocol", "Nights", "Votes", "Discipline", "Log"]


@pytest.mark.django_db
def test_export_xlsx_command_unknown_game(tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no such game: 424242"):
        call_command("export_xlsx", "424242", "-o", str(tmp_path / "x.xlsx"))
    assert not Game.objects.exists()


# --- a tournament game: header and points from tournaments.scoring -------------------------


@pytest.mark.django_db
def test_tournament_game_header_and_points(examples_dir, host, client):
    from tournaments import services as tservices
    from tournaments.standings import game_seat_scores

    tournament = tservices.tournament_create(name="Кубок Cristalix", organizer=host)
    stage = tservices.stage_create(tournament=tournament, name="Финал")
    rnd = tservices.round_create(stage=stage, tables=1)
    table = rnd.tables.get()
    tservices.table_set_host(table=table, host=host)
    tservices.participants_add(tournament=tournament, entries=PLAYERS)
    for seat, participant in enumerate(tournament.participants.order_by("pk"), start=1):
        tservices.table_seat_set(table=table, seat_no=seat, participant=participant)
    tservices.round_start_games(round=rnd, by=host)
    table.refresh_from_db()
    game = table.game
    actions = json.loads((examples_dir / "red_win.json").read_text())["actions"]
    for action in actions:
        if action["do"] not in ("expect", "seat") and not action.get("reject"):
            services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    tservices.extra_points_set(game=game, seat_no=6, points="0.3", by=host)
    scores = game_seat_scores(game)
    assert scores, "a finished tournament game has scores"

    ws = workbook_of([game.pk])["Протокол"]
    r, _ = find(ws, "Турнир", col=1)
    assert ws.cell(r, 3).value == "Кубок Cristalix"
    r, _ = find(ws, "Этап", col=1)
    assert ws.cell(r, 3).value == "Финал"
    r, c = find(ws, "Стол №")
    assert ws.cell(r, c + 1).value == table.number
    r, c = find(ws, "Игра №")
    assert ws.cell(r, c + 2).value == rnd.number  # the label spans two columns
    table_rows = players_table(ws)
    for seat in range(1, 11):
        points, extra, ci = table_rows[seat][8:11]
        assert points == pytest.approx(scores[seat]["points"])
        assert (extra or 0) == pytest.approx(scores[seat]["extra"] or 0)
        assert (ci or 0) == pytest.approx(scores[seat]["ci"] or 0)
    assert table_rows[6][9] == pytest.approx(0.3)
    # The best move of the N1 victim (seat 5: two blacks named) has its points column (N6).
    assert scores[5]["best_move"] > 0 and table_rows[5][11] == pytest.approx(scores[5]["best_move"])
    assert all(table_rows[s][11] is None for s in range(1, 11) if s != 5)


# --- endings and removals (no database: a prepared protocol) -----------------------------------

OPENING = [
    {"do": "seat", "players": PLAYERS},
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
    {"do": "next"},
    {"do": "next"},  # Day 1, seat 1 speaks
]


def protocol_sheet_of(actions, lang="ru"):
    entries = [exports.LogEntry(seq=i, payload=a) for i, a in enumerate(actions, start=1)]
    proto = exports.prepare_protocol(header=exports.Header(game_id=7, host="host"), entries=entries)
    assert proto.error == ""
    wb = exports.new_workbook()
    exports.write_game_protocol_sheets(wb, [proto], lang)
    return load_workbook(io.BytesIO(exports.workbook_bytes(wb)))


def test_ppk_ending():
    wb = protocol_sheet_of([*OPENING, {"do": "ppk", "team": "black", "seat": 3}])
    ws = wb["Протокол"]
    r, _ = find(ws, "Победа", col=1)
    assert ws.cell(r, 3).value == "Красные (мирные) — ППК команде чёрных (W5)"
    assert [players_table(ws)[s][8] for s in range(1, 11)] == [1, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    discipline = wb["Дисциплина"]
    r, _ = find(discipline, "Наказания", col=1)
    assert row_values(discipline, r + 2, 2, 5) == ["День 1", 3, "Charlie", "ППК (чёрных)"]


def test_annulled_game_has_no_points():
    ws = protocol_sheet_of([*OPENING, {"do": "annul", "reason": "outsider"}])["Протокол"]
    r, _ = find(ws, "Победа", col=1)
    assert ws.cell(r, 3).value == "Игра аннулирована — переигровка (W6)"
    assert all(players_table(ws)[s][8] is None for s in range(1, 11))


def test_fourth_foul_removal_is_marked():
    fouls = [{"do": "foul", "seat": 6}] * 4
    wb = protocol_sheet_of([*OPENING, *fouls])
    table = players_table(wb["Протокол"])
    assert table[6][2:7] == (exports.FOUL_MARK,) * 4 + ("У",)
    assert table[6][7] == "Д1 4 фола"
    # F7: the removal cancels the Day's vote.
    assert any("F7" in str(c.value) for row in wb["Протокол"].iter_rows() for c in row if c.value)
    discipline = wb["Дисциплина"]
    r, _ = find(discipline, "Наказания", col=1)
    fourth = row_values(discipline, r + 5, 5, 7)
    assert fourth[0] == "Фол (4-й)"
    assert fourth[2].startswith("покинул игру: 4 фола")


def test_disqualification_in_english():
    wb = protocol_sheet_of([*OPENING, {"do": "disqualify", "seat": 8, "reason": "speech_out_of_turn"}], lang="en")
    table = players_table(wb["Protocol"])
    assert table[8][6] == "R" and table[8][7] == "D1 disqualified"
    discipline = wb["Discipline"]
    r, _ = find(discipline, "Penalties", col=1)
    row = row_values(discipline, r + 2, 2, 7)
    assert row[:4] == ["Day 1", 8, "Hotel", "Disqualifying foul"]
    assert row[4].startswith("Speaking outside one's own minute")


@pytest.mark.django_db
def test_player_rows_keep_their_height_beside_a_day_note(examples):
    # black_win: the V5 note of Day 1 falls on a player's row; the row keeps 16 pt.
    ws = workbook_of([examples["black_win"].pk])["Протокол"]
    top, _ = find(ws, "№", col=1)
    assert all(ws.row_dimensions[r].height == 16 for r in range(top + 2, top + 12))
