"""The live board when the channel layer (Redis) stops answering (issue 27-6).

Before: open boards froze with no sign, and a new board socket got HTTP 500.
Now the hub's watch closes its sockets with 1013 («try again»: the page says
«Нет связи, переподключение…» and reconnects), a new socket is accepted and
closed with 1013, and once the layer answers again a reconnect gets a fresh
snapshot (the page catches up).
"""

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.db import connections

from games.board import fanout
from games.board.fanout import get_hub
from tests.test_consumers import act, connect, make_game, seq_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest_asyncio.fixture(autouse=True)
async def close_thread_connections():
    yield
    await database_sync_to_async(connections.close_all)()


class Down(Exception):
    pass


def break_layer(monkeypatch, layer):
    async def refused(*args, **kwargs):
        raise Down("connection refused")

    for name in ("send", "group_add", "group_send"):
        monkeypatch.setattr(layer, name, refused)


async def test_open_boards_are_told_and_new_ones_refused_cleanly_then_catch_up(host, monkeypatch):
    monkeypatch.setattr(fanout, "WATCH_SECONDS", 0.05, raising=False)
    monkeypatch.setattr(fanout, "WATCH_TIMEOUT_SECONDS", 0.2, raising=False)
    game = await make_game(host)
    comm, connected, _ = await connect(f"/ws/games/{game.pk}/board/")
    assert (
        connected and seq_of(await comm.receive_from(timeout=5))[0] == game.public_rev
    )  # the public revision (issue 24)
    hub = get_hub()

    with monkeypatch.context() as m:
        break_layer(m, hub.layer)
        assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 1013}
        assert hub.layer_lost >= 1 and not hub.sinks

        # The host keeps playing: recorded (the database is the truth).
        seq = await act(game, {"do": "next"}, host)

        refused, connected, _ = await connect(f"/ws/games/{game.pk}/board/")
        assert connected  # accepted, then closed with the reason: not a 500
        assert await refused.receive_output(timeout=5) == {"type": "websocket.close", "code": 1013}
        assert not hub.sinks

    back, connected, _ = await connect(f"/ws/games/{game.pk}/board/")
    assert connected
    first = await back.receive_from(timeout=5)
    assert 'data-full="1"' in first and seq_of(first)[0] == seq  # caught up
    await back.disconnect()
