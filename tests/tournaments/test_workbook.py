"""The tournament workbook as an organizer prints it: the standings sheet's
page setup, widths that fit, numbers as numbers in one format; annulled games
kept (W6) and marked."""

import io
import random

import pytest
from openpyxl import load_workbook

from games import exports as game_exports
from games.exports import cells
from tests.tournaments.helpers import play_random, seated_tournament
from tests.workbook_checks import assert_text_fits, soffice, xlsx_to_pdf_pages
from tournaments import exports, services, standings
from tournaments.models import Participant, Round

pytestmark = pytest.mark.django_db

LONG = "Очень_длинный_ник_игрока_для_проверки_ширины_колонки"


def played_tournament(host, *, players=20, rounds=2, seed=7):
    t = seated_tournament(host, [host, host], players=players, rounds=rounds)
    Participant.objects.filter(tournament=t, nickname="Player01").update(nickname=LONG)
    rng = random.Random(seed)
    for stage in t.stages.order_by("order"):
        for rnd in stage.rounds.order_by("number"):
            res = services.round_start_games(round=rnd, by=host)
            assert not res.skipped, res.skipped
            for table in rnd.tables.order_by("number"):
                play_random(table, rng)
    return t


def workbook(t, lang="ru"):
    return load_workbook(io.BytesIO(exports.tournament_workbook_bytes(t, lang)))


def test_standings_sheet_prints_landscape_one_page_wide(host):
    t = played_tournament(host)
    wb = workbook(t)
    ws = wb["Турнирная таблица"]
    assert ws.page_setup.orientation == "landscape"
    assert int(ws.page_setup.paperSize) == 9
    assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.page_setup.fitToWidth == 1 and ws.page_setup.fitToHeight == 0
    assert ws.print_title_rows == "$4:$5"
    assert ws.print_title_cols == "$A:$B"
    for sheet in wb.worksheets:  # the standings and every game's protocol
        assert_text_fits(sheet)
    assert len(wb.worksheets) == 1 + 4
    # Numbers are numbers, points share one format with the typographic minus.
    header = [c.value for c in ws[4]]
    rows = [r for r in ws.iter_rows(min_row=6) if isinstance(r[0].value, int)]
    assert len(rows) == 20
    nick_col = header.index("Ник")
    assert any(r[nick_col].value == LONG for r in rows)
    for name in ("За результат", "Штрафы", "Итого", "Э1 Т1"):
        col = header.index(name)
        for r in rows:
            if r[col].value is not None:
                assert r[col].data_type == "n" and r[col].number_format == cells.POINTS_FORMAT, (name, r[col].value)
    for name in ("Игры", "Победы", "Ничьи", "Фолы"):
        assert all(isinstance(r[header.index(name)].value, int) for r in rows)
    # Role columns: games and wins as two number columns under the role.
    sheriff = header.index("Шериф")
    assert [c.value for c in ws[5]][sheriff : sheriff + 2] == ["И", "П"]
    assert all(isinstance(r[sheriff].value, int) and isinstance(r[sheriff + 1].value, int) for r in rows)
    assert sum(r[header.index("Игры")].value for r in rows) == 20 * 2
    assert workbook(t, "en")["Standings"].print_title_cols == "$A:$B"


def test_standings_page_has_draws_and_the_workbook_number_format(client, host):
    from tournaments.templatetags.tournament_tags import score

    assert score(-0.5) == "\u22120,50" and score(2) == "2,00" and score(0) == "0,00"
    t = played_tournament(host, rounds=1)
    page = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert 'title="Ничьи"' in page
    head = page[page.index("<thead>") : page.index("</thead>")]
    assert head.index("Ничьи") > head.index("Победы")
    body = page[page.index("<tbody>") :]
    assert "\u22120," in body or "0,00" in body


def test_an_annulled_game_stays_in_the_workbook_and_the_history(client, host):
    """W6: the annulled protocol is kept; the replay does not push it out of the tournament."""
    from games.models import Game
    from tests.tournaments.helpers import play_scripted
    from tournaments.standings import compute

    t = seated_tournament(host, [host], players=10, rounds=1)
    rnd = t.stages.get().rounds.get()
    services.round_start_games(round=rnd, by=host)
    table = rnd.tables.get()
    first = table.game_id
    play_scripted(table, end={"do": "annul"})
    services.round_start_games(round=rnd, by=host)
    table.refresh_from_db()
    assert table.game_id != first and list(table.annulled_games.values_list("pk", flat=True)) == [first]
    play_scripted(table, n1_victim=5)  # the replay: red wins by ППК of black
    wb = workbook(t)
    assert wb.sheetnames == ["Турнирная таблица", f"Э1 Т1 С1 А#{first}", "Э1 Т1 С1"]
    annulled = wb[f"Э1 Т1 С1 А#{first}"]
    values = [c.value for row in annulled.iter_rows() for c in row]
    assert "Игра аннулирована — переигровка (W6)" in values and "Test cup" in values
    # Not counted: no points on the annulled protocol, one game each in the standings.
    r = next(r for r in annulled.iter_rows() if r[0].value == 1 and r[1].value)
    assert r[9].value is None
    assert all(row.games == 1 for row in compute(t).rows)
    # The player's history lists it, marked.
    pid = Participant.objects.get(tournament=t, nickname=Game.objects.get(pk=first).seats.get(seat_no=1).nickname).pk
    page = client.get(f"/tournaments/{t.pk}/players/{pid}/").content.decode()
    assert f'data-annulled-game="{first}"' in page and "аннулирована (W6) — не учтена" in page


@pytest.mark.live
@pytest.mark.skipif(soffice() is None, reason="LibreOffice (libreoffice-calc-nogui) is not installed")
def test_pdf_standings_of_20_players_is_one_page_wide(host, tmp_path):
    """Printed by LibreOffice: 20 players and 10 rounds of per-round columns fit
    one page wide (and, being 20 rows, one page in all)."""
    t = played_tournament(host, rounds=10)
    data = standings.compute(t)
    wb = game_exports.new_workbook()
    rounds = [
        (rnd.stage_id, rnd.stage.order, rnd.number)
        for rnd in Round.objects.filter(stage__tournament=t).select_related("stage").order_by("number")
    ]
    exports.write_standings_sheet(wb, data, "ru", rounds=rounds)
    assert xlsx_to_pdf_pages(game_exports.workbook_bytes(wb), tmp_path) == 1
    # The whole workbook prints too: the standings page plus one protocol page per game.
    assert xlsx_to_pdf_pages(exports.tournament_workbook_bytes(t), tmp_path) == 1 + 20
