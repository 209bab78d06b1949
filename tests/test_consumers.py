"""Websocket consumers of the live board and the overlay (WebsocketCommunicator).

The tests go through the real ASGI application (AllowedHostsOriginValidator,
URL router) and the real services: a host action committed in the sync world
reaches the sockets through games.signals.game_changed → games.board.frames → the
channel layer → the per-process hub.
"""

import asyncio
import json
import re

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import override_settings

from games import services
from games.board import frames as board
from games.board.fanout import get_hub
from mafia_protocol.asgi import application

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

PLAYERS = [f"Игрок{i}" for i in range(1, 11)]
ORIGIN = [(b"origin", b"http://testserver")]
SEQ = re.compile(r'id="board-meta"[^>]*data-seq="(\d+)"[^>]*data-at="(\d+)"')


def seq_of(html):
    m = SEQ.search(html)
    assert m, html[:300]
    return int(m.group(1)), int(m.group(2))


@database_sync_to_async
def make_game(host, *, start=True):
    game = services.game_create(host=host, title="Тестовая игра", players=PLAYERS)
    if start:
        for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}):
            services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    return game


@database_sync_to_async
def act(game, action, host):
    # The board's frames carry the public revision (issue 24), not the log's seq.
    return services.game_record_action(game=game, action=action, expected_seq=None, by=host).game.public_rev


@database_sync_to_async
def undo(game, host):
    return services.game_undo_last_action(game=game, expected_seq=None, by=host).game.public_rev


@database_sync_to_async
def clock(game, command, host):
    services.game_clock_control(game=game, command=command, by=host)


@database_sync_to_async
def set_overlay(game, host, enabled, delay=0):
    services.game_set_overlay(game=game, by=host, enabled=enabled, delay_seconds=delay, confirm_no_delay=True)
    return game.overlay_token


async def connect(path, headers=ORIGIN):
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect(timeout=5)
    return comm, connected, code


async def no_more(comm, timeout=0.2):
    assert await comm.receive_nothing(timeout=timeout)


@pytest.fixture
def ahost(host):
    return host


@pytest_asyncio.fixture(autouse=True)
async def close_thread_connections():
    # Services run in channels' database thread; close its connection after
    # each test so that PostgreSQL can drop the test database at the end.
    yield
    await database_sync_to_async(connections.close_all)()


async def test_board_sends_a_snapshot_on_connect_and_one_frame_per_action(ahost):
    game = await make_game(ahost)
    comm, connected, _ = await connect(f"/ws/games/{game.pk}/board/")
    assert connected
    first = await comm.receive_from(timeout=5)
    assert 'data-full="1"' in first
    # seat and start moved the public revision; the roles (secret) did not.
    assert seq_of(first)[0] == game.public_rev == 2
    assert "Договорка" in first

    seq = await act(game, {"do": "next"}, ahost)
    frame = await comm.receive_from(timeout=5)
    assert seq_of(frame)[0] == seq == 3
    assert "data-full" not in frame
    assert "Свободная посадка" in frame
    await no_more(comm)  # rendered and sent once
    await comm.disconnect()


async def test_every_spectator_gets_the_same_text_and_the_hub_holds_one_membership(ahost):
    game = await make_game(ahost)
    comms = []
    for _ in range(5):
        comm, connected, _ = await connect(f"/ws/games/{game.pk}/board/")
        assert connected
        await comm.receive_from(timeout=5)
        comms.append(comm)
    hub = get_hub()
    group = board.board_group(game.pk)
    assert hub.local_count(group) == 5
    # One channel of this process in the layer group, not five.
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        assert len(layer.groups.get(group, {})) == 1

    await act(game, {"do": "next"}, ahost)
    frames = [await c.receive_from(timeout=5) for c in comms]
    assert len(set(frames)) == 1
    for c in comms:
        await c.disconnect()
    assert hub.local_count(group) == 0
    assert group not in hub.joined


async def test_undo_propagates_the_state_after_the_undo(ahost):
    game = await make_game(ahost)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/board/")
    await comm.receive_from(timeout=5)
    await act(game, {"do": "next"}, ahost)
    after_next = await comm.receive_from(timeout=5)
    assert "Свободная посадка" in after_next
    seq = await undo(game, ahost)
    frame = await comm.receive_from(timeout=5)
    assert seq_of(frame)[0] == seq == seq_of(after_next)[0] + 1
    assert "Договорка" in frame and "Свободная посадка" not in frame
    await comm.disconnect()


async def test_a_public_clock_change_pushes_the_next_public_revision(ahost):
    game = await make_game(ahost)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/board/")
    first = await comm.receive_from(timeout=5)
    await asyncio.sleep(0.01)
    # The договорка's clock waits for «В городе ночь» (issue 26-4): the host's Space starts it.
    await clock(game, "start", ahost)
    frame = await comm.receive_from(timeout=5)
    (s1, at1), (s2, at2) = seq_of(first), seq_of(frame)
    assert s2 == s1 + 1 and at2 > at1
    assert 'data-running="1"' in frame
    await clock(game, "pause", ahost)
    frame = await comm.receive_from(timeout=5)
    assert seq_of(frame)[0] == s2 + 1 and 'data-running="0"' in frame
    await comm.disconnect()


async def test_the_hosts_night_actions_reach_no_spectator(ahost):
    """Issue 24: a Night is one public frame at its start and one at the morning."""
    game = await make_game(ahost)
    for action in [{"do": "next"}, {"do": "next"}] + [{"do": "next"}] * 10:
        await act(game, action, ahost)  # N0, then ten speeches without nominations: Night 1
    comm, _, _ = await connect(f"/ws/games/{game.pk}/board/")
    first = await comm.receive_from(timeout=5)
    # No night clock: no remaining time, no deadline, not running.
    assert (
        "Ночь 1" in first
        and 'data-remaining-ms=""' in first
        and 'data-deadline=""' in first
        and 'data-running="0"' in first
    )
    for action in ({"do": "shots", "by": {"2": 5, "3": 5, "4": 5}}, {"do": "don_check", "target": 1}):
        await act(game, action, ahost)
    await undo(game, ahost)
    await clock(game, "pause", ahost)
    await clock(game, "resume", ahost)
    await no_more(comm, timeout=0.5)
    seq = await act(game, {"do": "don_check", "target": 6}, ahost)
    await act(game, {"do": "sheriff_check", "target": 2}, ahost)
    await no_more(comm, timeout=0.3)
    await act(game, {"do": "best_move", "seats": [2, 3]}, ahost)
    # The morning shows when its clock starts, on the host's Space after «Доброе утро» (issue 26-4).
    await no_more(comm, timeout=0.3)
    await clock(game, "start", ahost)
    frame = await comm.receive_from(timeout=5)
    assert seq_of(frame)[0] == seq + 1 == seq_of(first)[0] + 1
    assert "Утро" in frame
    await comm.disconnect()


async def test_unknown_game_closes_with_4404(ahost):
    comm, connected, _ = await connect("/ws/games/999999/board/")
    assert connected
    out = await comm.receive_output(timeout=5)
    assert out == {"type": "websocket.close", "code": 4404}


async def test_foreign_origin_is_refused(ahost):
    game = await make_game(ahost, start=False)
    comm, connected, _ = await connect(f"/ws/games/{game.pk}/board/", headers=[(b"origin", b"http://evil.example")])
    assert not connected


async def test_plain_mode_delivers_the_same_frames(ahost):
    game = await make_game(ahost)
    with override_settings(BOARD_FANOUT="plain"):
        comm, connected, _ = await connect(f"/ws/games/{game.pk}/board/")
        assert connected
        await comm.receive_from(timeout=5)
        assert get_hub().local_count(board.board_group(game.pk)) == 0
        seq = await act(game, {"do": "next"}, ahost)
        frame = await comm.receive_from(timeout=5)
        assert seq_of(frame)[0] == seq
        await comm.disconnect()


async def test_fanout_flag_is_ignored_unless_allowed(ahost):
    game = await make_game(ahost)
    with override_settings(BOARD_ALLOW_FANOUT_FLAG=False):
        comm, _, _ = await connect(f"/ws/games/{game.pk}/board/?fanout=plain")
        await comm.receive_from(timeout=5)
        assert get_hub().local_count(board.board_group(game.pk)) == 1
        await comm.disconnect()
    with override_settings(BOARD_ALLOW_FANOUT_FLAG=True):
        comm, _, _ = await connect(f"/ws/games/{game.pk}/board/?fanout=plain")
        await comm.receive_from(timeout=5)
        assert get_hub().local_count(board.board_group(game.pk)) == 0
        await comm.disconnect()


async def test_overlay_needs_the_token_and_shows_roles(ahost):
    game = await make_game(ahost)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/overlay/?token=anything")
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}  # disabled

    token = await set_overlay(game, ahost, True)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/overlay/?token=wrong")
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}

    comm, connected, _ = await connect(f"/ws/games/{game.pk}/overlay/?token={token}")
    assert connected
    first = await comm.receive_from(timeout=5)
    assert "Шериф" in first and "Дон" in first
    await act(game, {"do": "next"}, ahost)
    frame = await comm.receive_from(timeout=5)
    assert seq_of(frame)[0] == 4 and "Шериф" in frame
    await comm.disconnect()


async def test_revoking_the_token_closes_open_overlays(ahost):
    game = await make_game(ahost)
    token = await set_overlay(game, ahost, True)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/overlay/?token={token}")
    await comm.receive_from(timeout=5)
    await set_overlay(game, ahost, False)
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}


async def test_overlay_with_a_delay_starts_from_the_past(ahost):
    game = await make_game(ahost)
    token = await set_overlay(game, ahost, True, delay=30)
    await act(game, {"do": "next"}, ahost)  # 30 s ago is before this action (and the game)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/overlay/?token={token}")
    first = await comm.receive_from(timeout=5)
    assert 'data-as-of="1"' in first and 'data-delay-ms="30000"' in first
    assert seq_of(first)[0] < 4
    await comm.disconnect()


async def test_the_public_socket_never_carries_secrets_while_running(ahost):
    game = await make_game(ahost)
    comm, _, _ = await connect(f"/ws/games/{game.pk}/board/")
    frames = [await comm.receive_from(timeout=5)]
    for action in ({"do": "next"}, {"do": "next"}):
        await act(game, action, ahost)
        frames.append(await comm.receive_from(timeout=5))
    await comm.disconnect()
    text = json.dumps(frames, ensure_ascii=False).lower()
    for word in ("шериф", "дон", "мафи", "sheriff", "mafia", "civilian", "role"):
        assert word not in text


async def test_a_socket_gets_the_frames_of_its_pages_language(ahost):
    game = await make_game(ahost)
    ru, _, _ = await connect(f"/ws/games/{game.pk}/board/")
    en, _, _ = await connect(f"/ws/games/{game.pk}/board/?lang=en")
    assert 'data-lang="ru"' in await ru.receive_from(timeout=5)
    assert 'data-lang="en"' in await en.receive_from(timeout=5)
    await act(game, {"do": "next"}, ahost)
    assert 'data-lang="ru"' in await ru.receive_from(timeout=5)
    assert 'data-lang="en"' in await en.receive_from(timeout=5)
    await ru.disconnect()
    await en.disconnect()
