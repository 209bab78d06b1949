"""The live leaderboard socket: hello on connect, "changed" after a game's end is committed."""

import json

import pytest
from channels.testing import WebsocketCommunicator

from mafia_protocol.asgi import application
from players.consumers import push_ratings_changed


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ratings_socket_says_hello_then_changed():
    communicator = WebsocketCommunicator(
        application, "/ws/ratings/", headers=[(b"host", b"testserver"), (b"origin", b"http://testserver")]
    )
    connected, _ = await communicator.connect()
    assert connected
    assert json.loads(await communicator.receive_from()) == {"hello": 1}
    from asgiref.sync import sync_to_async

    await sync_to_async(push_ratings_changed)()
    assert json.loads(await communicator.receive_from()) == {"changed": 1}
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_rated_game_end_pushes_after_commit(host, monkeypatch):
    from players import consumers
    from tests.players.helpers import NAMES, make_players, scripted_game

    pushed = []
    monkeypatch.setattr(consumers, "push_ratings_changed", lambda: pushed.append(1))
    make_players()
    scripted_game(host, NAMES)
    assert pushed  # the end (and only committed changes) told the leaderboards
