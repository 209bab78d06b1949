"""Issue 21 outside the engine: a stored game recorded under an earlier
reading stays readable (console, protocol, workbook), and the console's
penalty dialog offers what the engine accepts (F18, F19)."""

from __future__ import annotations

import io
import re

import pytest
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from games import exports, services
from games.models import GameAction
from games.reading import game_state

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
HX = {"HTTP_HX_REQUEST": "true"}
SETUP = [
    {"do": "seat", "players": PLAYERS},
    {"do": "roles", "sheriff": 5, "don": 8, "mafia": [9, 10]},
    {"do": "start"},
    {"do": "next"},
    {"do": "next"},
]


@pytest.fixture
def client_host(host):
    c = Client()
    c.force_login(host)
    return c


def imported(host, actions):
    return services.game_import_log(host=host, data={"format": "mafia-protocol-log/1", "actions": actions})


def store_as_recorded(game, payload):
    """An action stored under an earlier reading: written as the log had it,
    without today's engine (the way an old database row looks)."""
    game.refresh_from_db()
    game.seq += 1
    GameAction.objects.create(game=game, seq=game.seq, payload=payload)
    game.save(update_fields=["seq"])
    return game.seq


@pytest.mark.django_db
def test_f18_old_log_with_a_refused_fourth_foul_stays_readable(host, client_host):
    game = imported(host, [*SETUP, *[{"do": "foul", "seat": 4}] * 3])
    old = store_as_recorded(game, {"do": "foul", "seat": 4, "reason_code": "vote_retraction"})  # removed him before F18
    store_as_recorded(game, {"do": "next"})
    state = game_state(game)
    assert 4 in state.at_table and state.speaker == 2  # the refused foul is skipped, the `next` applies
    # The console shows the refusal, not a 500.
    page = client_host.get(reverse("games:console_fragment", args=[game.pk]), **HX)
    assert page.status_code == 200
    html = page.content.decode()
    assert f"№{old} (F18)" in html
    assert "по нынешним правилам не принимается" in html and "is-refused" in html
    # The workbook's journal says so too; the protocol sheet notes it.
    wb = load_workbook(io.BytesIO(exports.workbook_bytes(exports.build_games_workbook([game], "ru", details=True))))
    cells = [str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value]
    assert any("по нынешним правилам не принимается, пропущено (правило F18)" in v for v in cells)
    assert any(f"#{old} (F18)" in v for v in cells)
    # The game goes on through the one write path.
    game.refresh_from_db()
    services.game_record_action(game=game, action={"do": "next"}, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    assert game_state(game).speaker == 3


@pytest.mark.django_db
def test_f18_console_refuses_a_fourth_foul_for_vote_retraction_naming_the_grey_card(host, client_host):
    game = imported(host, [*SETUP, *[{"do": "foul", "seat": 4}] * 3])
    game.refresh_from_db()
    r = client_host.post(
        reverse("games:act", args=[game.pk]),
        {"expected_seq": game.seq, "do": "foul", "seat": 4, "reason": "vote_retraction"},
        **HX,
    )
    html = r.content.decode()
    assert "F18" in html and "серую карточку" in html
    game.refresh_from_db()
    assert 4 in game_state(game).at_table
    game.refresh_from_db()
    r = client_host.post(
        reverse("games:act", args=[game.pk]),
        {"expected_seq": game.seq, "do": "grey_card", "seat": 4, "reason": "double_or_removed_vote_three_fouls"},
        **HX,
    )
    assert r.status_code == 200
    game.refresh_from_db()
    state = game_state(game)
    assert state.grey_cards == {4: 1} and 4 in state.at_table


def _tile(html: str, seat: int) -> str:
    m = re.search(rf'<div class="tile[^"]*"\s+id="tile-{seat}"[^>]*>', html)
    assert m, f"tile {seat} not found"
    return m.group(0)


@pytest.mark.django_db
def test_penalty_dialog_offers_grey_card_for_f18_reasons_and_warning_grey_card_after_leaving(host, client_host):
    game = imported(host, [*SETUP, *[{"do": "foul", "seat": 4}] * 3, {"do": "disqualify", "seat": 6}])
    html = client_host.get(reverse("games:console_fragment", args=[game.pk]), **HX).content.decode()
    three = _tile(html, 4)
    assert 'data-penalties="foul warning grey_card disqualify remove ppk"' in three
    withheld = re.search(r'data-penalty-withheld="([^"]*)"', three).group(1).split()
    assert (
        "foul:vote_retraction" in withheld
        and "foul:gestures_during_vote" in withheld
        and "foul:delaying_speech_three_fouls" in withheld
    )
    assert not any(w.startswith("grey_card:") for w in withheld)
    assert "foul:" not in re.search(r'data-penalty-withheld="([^"]*)"', _tile(html, 3)).group(1)
    departed = _tile(html, 6)
    assert 'data-penalties="warning grey_card"' in departed
    assert 'data-penalty-seat="6"' in html  # his ⋯ menu is there


@pytest.mark.django_db
def test_f19_second_warning_after_leaving_recorded_in_protocol_and_discipline_sheet(host):
    game = imported(
        host, [*SETUP, {"do": "disqualify", "seat": 6}, {"do": "warning", "seat": 6}, {"do": "warning", "seat": 6}]
    )
    state = game_state(game)
    assert state.at_table == [1, 2, 3, 4, 5, 7, 8, 9, 10] and state.warnings == {6: 2} and state.cancelled == {1}
    wb = load_workbook(io.BytesIO(exports.workbook_bytes(exports.build_games_workbook([game], "ru", details=True))))
    ws = wb["Дисциплина"]
    cells = [str(c.value) for row in ws.iter_rows() for c in row if c.value]
    assert any("ЧС на 7 дней (F4)" in v and "после ухода из игры (F19)" in v for v in cells), cells


@pytest.mark.django_db
def test_n7_best_move_with_no_seat_is_not_accepted_in_the_xlsx(host):
    game = imported(
        host,
        [
            *SETUP,
            *[{"do": "next"}] * 10,
            {"do": "shots", "by": {"8": 1, "9": 1, "10": 1}},
            {"do": "next"},
            {"do": "next"},
            {"do": "best_move", "seats": []},
        ],
    )
    assert game_state(game).best_move is None
    wb = load_workbook(io.BytesIO(exports.workbook_bytes(exports.build_games_workbook([game], "ru", details=True))))
    cells = [str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value]
    assert "не принят" in cells
    assert not any(v.startswith("принят, чёрных") for v in cells)


@pytest.mark.django_db
def test_f19_protocol_lines_of_warnings_after_leaving(host):
    from django.utils.translation import override

    from games.console import protocol_text

    actions = [*SETUP, {"do": "disqualify", "seat": 6}, {"do": "warning", "seat": 6}, {"do": "warning", "seat": 6}]
    with override("ru"):
        lines = [line.full for line in protocol_text.replay_lines(actions).lines]
    assert "после ухода из игры (F19)" in lines[-2] and "ЧС" not in lines[-2]
    assert "после ухода из игры (F19)" in lines[-1] and "ЧС на 7 дней (F4)" in lines[-1]
    assert "покидает игру" not in lines[-1]
    with override("en"):
        assert "7-day ban (F4)" in protocol_text.replay_lines(actions).lines[-1].full
