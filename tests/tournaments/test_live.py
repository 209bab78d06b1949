"""Live standings: game_changed → tournaments.live → group `tournament-<pk>-standings` → the consumer."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services as game_services
from mafia_protocol.asgi import application
from tests.tournaments.helpers import play_scripted, scripted_log, seated_tournament
from tournaments import live, services
from tournaments.models import Table

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
ORIGIN = [(b"origin", b"http://testserver")]


@database_sync_to_async
def setup_tournament(host):
    t = seated_tournament(host, [host], players=10, rounds=2)
    for rnd in t.stages.get().rounds.all():
        services.round_start_games(round=rnd, by=host)
    return t, list(Table.objects.filter(round__stage__tournament=t).order_by("round__number"))


@database_sync_to_async
def play_until_last(table):
    log = scripted_log()
    play_scripted_partial(table, log[:-1])
    return log[-1]


def play_scripted_partial(table, actions):
    from tests.tournaments.helpers import record

    table.refresh_from_db()
    record(table.game, actions)


@database_sync_to_async
def act(table, action):
    table.refresh_from_db()
    game = table.game
    return game_services.game_record_action(game=game, action=action, expected_seq=game.seq, by=game.host)


@database_sync_to_async
def undo(table):
    table.refresh_from_db()
    game_services.game_undo_last_action(game=table.game, expected_seq=None, by=table.game.host)


async def receive_until(comm, needle, timeout=5.0):
    """The first frame containing `needle`. A shared Redis may carry a stray
    frame of another test run whose tournament has the same pk (same group)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        frame = await comm.receive_from(timeout=max(0.1, deadline - loop.time()))
        if needle in frame:
            return frame


async def connect(path):
    comm = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await comm.connect(timeout=5)
    return comm, connected


async def test_snapshot_then_an_update_when_a_game_finishes_and_when_it_is_reopened(host):
    t, (t1, t2) = await setup_tournament(host)
    comm, connected = await connect(f"/ws/tournaments/{t.pk}/standings/?lang=ru")
    assert connected
    snapshot = await comm.receive_from(timeout=5)
    assert 'id="standings"' in snapshot and 'data-games="0"' in snapshot
    last = await play_until_last(t1)
    # Running actions push nothing: the standings did not change.
    assert await comm.receive_nothing(timeout=0.3)
    await act(t1, last)  # the game finishes (ППК of black)
    frame = await receive_until(comm, 'data-games="1"')
    assert "Учтена 1 игра." in frame  # the same singular with or without the ru catalogue
    # Roles of a finished game are public; nothing of the running game t2 is sent.
    await undo(t1)  # reopened: the standings lose the game again
    assert 'data-games="0"' in await receive_until(comm, 'data-games="0"')
    await comm.disconnect()


async def test_english_page_gets_english_frames(host):
    t, _ = await setup_tournament(host)
    comm, connected = await connect(f"/ws/tournaments/{t.pk}/standings/?lang=en")
    assert connected
    snapshot = await comm.receive_from(timeout=5)
    assert 'id="standings"' in snapshot
    await comm.disconnect()


async def test_unknown_tournament_is_refused():
    comm, connected = await connect("/ws/tournaments/999999/standings/")
    assert not connected


async def test_extra_points_and_policy_change_push(host):
    t, (t1, _t2) = await setup_tournament(host)
    await database_sync_to_async(play_scripted)(t1)
    comm, connected = await connect(f"/ws/tournaments/{t.pk}/standings/")
    assert connected
    await comm.receive_from(timeout=5)
    await database_sync_to_async(
        lambda: services.extra_points_set(
            game=Table.objects.get(pk=t1.pk).game, seat_no=1, points="0.5", comment="x", by=host
        )
    )()
    assert 'id="standings"' in await comm.receive_from(timeout=5)
    await database_sync_to_async(
        lambda: services.tournament_set_policy(tournament=t, policy=t.policy.with_changes(win=2), by=host)
    )()
    assert 'id="standings"' in await comm.receive_from(timeout=5)
    await comm.disconnect()


async def test_group_name():
    assert live.group_name(7) == "tournament-7-standings"
