"""Public board page, snapshot endpoint and overlay page (HTTP side)."""

import json
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from games import clock, services
from games.board import frames as board
from games.board import view as board_view
from games.models import Game

PLAYERS = [f"Игрок{i}" for i in range(1, 11)]


def load_actions(examples_dir, name):
    data = json.loads((examples_dir / f"{name}.json").read_text())
    return [a for a in data["actions"] if a["do"] != "expect" and not a.get("reject")]


@pytest.fixture
def game(host):
    game = services.game_create(host=host, title="Финал", players=PLAYERS)
    for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    return game


def play(game, actions, host):
    for action in actions:
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    return game


@pytest.mark.django_db
def test_board_page_is_public_and_carries_seq_ws_path_and_snapshot_url(client, game):
    response = client.get(reverse("board:board", args=[game.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    # The public revision (issue 24), not the log's seq.
    assert f'data-seq="{game.public_rev}"' in html and game.public_rev > 0
    assert f'data-board-ws="/ws/games/{game.pk}/board/?lang=ru"' in html
    assert reverse("board:snapshot", args=[game.pk]) + "?lang=ru" in html
    assert "Игрок7" in html and "Договорка" in html
    assert "js/board.js" in html


@pytest.mark.django_db
def test_board_page_of_an_unknown_game_is_404(client):
    assert client.get(reverse("board:board", args=[424242])).status_code == 404
    assert client.get(reverse("board:snapshot", args=[424242])).status_code == 404


@pytest.mark.django_db
def test_snapshot_is_the_frame_with_a_snapshot_mark(client, game):
    response = client.get(reverse("board:snapshot", args=[game.pk]))
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    html = response.content.decode()
    assert html.startswith('<div id="board-meta" hx-swap-oob="true"')
    assert 'data-full="1"' in html
    for element_id in ("board-clock", "board-head", "board-seats", "board-votes", "board-result"):
        assert f'id="{element_id}" hx-swap-oob="true"' in html


@pytest.mark.django_db
def test_the_clock_is_the_hosts_deadline(client, game, host):
    play(game, [{"do": "next"}, {"do": "next"}], host)  # Day 1, speech of seat 1
    services.game_clock_control(game=game, command="start", by=host)  # the host's Space after «Доброе утро» (26-4)
    html = client.get(reverse("board:snapshot", args=[game.pk])).content.decode()
    remaining = int(re.search(r'data-remaining-ms="(\d+)"', html).group(1))
    assert 0 < remaining <= clock.remaining_ms(game, timezone.now()) + 50 and remaining > 55000
    assert clock.deadline(game, timezone.now()) is not None
    assert 'data-running="1"' in html and "Речь" in html
    services.game_clock_control(game=game, command="pause", by=host)
    html = client.get(reverse("board:snapshot", args=[game.pk])).content.decode()
    assert 'data-running="0"' in html and "Пауза" in html


@pytest.mark.django_db
def test_night_steps_are_masked_on_the_public_board(host, examples_dir):
    game = services.game_create(host=host, title="Ночь")
    actions = load_actions(examples_dir, "red_win")
    for action in actions:
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
        game.refresh_from_db()
        if game.public_state.get("step") in ("mafia_shot", "don_check", "sheriff_check", "best_move"):
            view = board_view.public_view(game)
            assert view["step_label"] == "" and view["speaker"] is None and not view["clock_visible"]
            assert view["phase_label"].startswith("Ночь")


@pytest.mark.django_db
def test_after_the_end_roles_and_protocol_are_shown(client, host, examples_dir):
    game = services.game_create(host=host, title="Конец")
    play(game, load_actions(examples_dir, "red_win"), host)
    assert game.status == "finished"
    html = client.get(reverse("board:board", args=[game.pk])).content.decode()
    assert "Победа красных" in html
    assert "Шериф" in html and "Дон" in html and "Мафия" in html
    assert "Протокол" in html and "Ночь 1" in html


@pytest.mark.django_db
def test_overlay_page_needs_the_games_token(client, game, host):
    url = reverse("board:overlay", args=[game.pk])
    assert client.get(url, {"token": ""}).status_code == 404  # disabled
    services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=0, confirm_no_delay=True)
    assert client.get(url, {"token": "nope"}).status_code == 403
    response = client.get(url, {"token": game.overlay_token})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Шериф" in html  # roles shown, as streams do
    assert f"/ws/games/{game.pk}/overlay/?token={game.overlay_token}&amp;lang=ru" in html
    snap = client.get(reverse("board:overlay-snapshot", args=[game.pk]), {"token": game.overlay_token})
    assert snap.status_code == 200 and 'data-full="1"' in snap.content.decode()
    old = game.overlay_token
    services.game_set_overlay(game=game, by=host, enabled=True, confirm_no_delay=True)
    assert client.get(url, {"token": old}).status_code == 403  # a new token revokes the old one


@pytest.mark.django_db
def test_overlay_snapshot_as_of_the_delay(client, game, host):
    services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=60)
    play(game, [{"do": "next"}], host)
    html = client.get(reverse("board:overlay-snapshot", args=[game.pk]), {"token": game.overlay_token}).content.decode()
    # 60 s ago the game did not exist yet: the overlay shows nothing of it.
    assert 'data-as-of="1"' in html and 'data-seq="0"' in html


@pytest.mark.django_db
def test_as_of_replays_recorded_and_undone_actions(host, game):
    from django.utils import timezone

    play(game, [{"do": "next"}], host)
    t = timezone.now()
    services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    view = board_view.overlay_view(game, as_of=t)
    assert view["seq"] == 4 and view["step_label"] == "Свободная посадка"
    now = board_view.overlay_view(game)
    assert now["seq"] == 5 == game.seq and now["step_label"] == "Договорка"


@pytest.mark.django_db
def test_a_frame_is_rendered_once_per_change(host, game):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    board.body_cache.clear()
    first = board.board_frame_for(game.pk)
    with CaptureQueriesContext(connection) as ctx:
        again = board.board_frame_for(game.pk)
    selects = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(selects) == 1  # only the game row: the body is cached
    assert again.html.split("</section>", 1)[1] == first.html.split("</section>", 1)[1]


@pytest.mark.django_db
def test_broadcast_failure_does_not_break_the_host_action(host, game, monkeypatch):
    async def boom(*args, **kwargs):
        raise RuntimeError("layer down")

    monkeypatch.setattr(board, "_send_all", boom)
    with pytest.raises(RuntimeError):
        board.broadcast_game(game.pk)
    # Through the services the failure is swallowed (games.board.publish uses send_robust).
    outcome = services.game_record_action(game=game, action={"do": "next"}, expected_seq=game.seq, by=host)
    assert Game.objects.get(pk=game.pk).seq == outcome.game.seq


@pytest.mark.django_db
def test_overlay_path_form_and_the_hosts_settings_url_do_not_clash(client, game, host):
    services.game_set_overlay(game=game, by=host, enabled=True)
    assert reverse("board:overlay", args=[game.pk]) == f"/games/{game.pk}/overlay/"
    assert reverse("games:overlay", args=[game.pk]) != f"/games/{game.pk}/overlay/"
    path_form = reverse("board:overlay", args=[game.pk, game.overlay_token])
    assert client.get(path_form).status_code == 200
    assert client.get(reverse("board:overlay", args=[game.pk, "wrong"])).status_code == 403


@pytest.mark.django_db
def test_frames_follow_the_language_of_the_page(client, game, host, django_capture_on_commit_callbacks, monkeypatch):
    from django.conf import settings

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"  # the language switcher's choice
    html = client.get(reverse("board:board", args=[game.pk])).content.decode()
    assert f'data-board-ws="/ws/games/{game.pk}/board/?lang=en"' in html and 'data-lang="en"' in html
    snap = client.get(reverse("board:snapshot", args=[game.pk]), {"lang": "en"}).content.decode()
    assert 'data-lang="en"' in snap
    assert 'data-lang="ru"' in client.get(reverse("board:snapshot", args=[game.pk]), {"lang": "xx"}).content.decode()

    from channels.layers import get_channel_layer

    sent = []
    layer = get_channel_layer()
    original = layer.group_send

    async def spy(group, message):
        sent.append(message)
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", spy)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_record_action(game=game, action={"do": "next"}, expected_seq=game.seq, by=host)
    public = sent[0]
    assert set(public["html_by_lang"]) == {"ru", "en"}  # rendered once per language, not per spectator
    assert 'data-lang="en"' in public["html_by_lang"]["en"] and public["html"] == public["html_by_lang"]["ru"]


@pytest.mark.django_db
def test_board_offers_the_protocol_downloads_only_after_the_end(client, host, examples_dir):
    data = json.loads((examples_dir / "red_win.json").read_text())
    actions = [a for a in data["actions"] if a["do"] != "expect"]
    game = services.game_import_log(host=host, data={"actions": actions[:-1]})
    html = client.get(f"/games/{game.pk}/board/").content.decode()
    assert "protocol.xlsx" not in html
    services.game_record_action(game=game, action=actions[-1], expected_seq=game.seq, by=host)
    html = client.get(f"/games/{game.pk}/board/").content.decode()
    assert f"/games/{game.pk}/protocol.xlsx" in html and f"/games/{game.pk}/log.json" in html
    assert client.get(f"/games/{game.pk}/protocol.xlsx").status_code == 200  # public once over
