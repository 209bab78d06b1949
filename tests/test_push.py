"""mafia_protocol.push: notices from sync code to a channel-layer group."""

import asyncio
import logging
import threading
import time

from asgiref.sync import sync_to_async

from mafia_protocol import push


class _Recording:
    """A channel layer's group_send, recorded."""

    def __init__(self, error: Exception | None = None, takes: float = 0.0):
        self.loops: list[asyncio.AbstractEventLoop] = []
        self.sent: list[tuple[str, dict]] = []
        self.error = error
        self.takes = takes

    async def group_send(self, group, message):
        self.loops.append(asyncio.get_running_loop())
        await asyncio.sleep(self.takes)
        if self.error is not None:
            raise self.error
        self.sent.append((group, message))


def test_outside_the_server_a_notice_is_sent_before_the_call_returns(monkeypatch):
    """A management command or a test: the notice has gone when the call returns
    (a command may exit right after)."""
    layer = _Recording(takes=0.05)
    monkeypatch.setattr(push, "get_channel_layer", lambda: layer)
    push.notify_group("g", {"type": "x"})
    assert layer.sent == [("g", {"type": "x"})]


def test_outside_the_server_the_notices_share_one_loop_of_the_process(monkeypatch):
    """Not a thread and a loop per notice (asgiref's async_to_sync: ~0.5 ms each)."""
    layer = _Recording()
    monkeypatch.setattr(push, "get_channel_layer", lambda: layer)
    for _ in range(3):
        push.notify_group("g", {"type": "x"})
    assert len(layer.loops) == 3 and len(set(map(id, layer.loops))) == 1


def test_a_layer_that_fails_is_logged_never_raised(monkeypatch, caplog):
    monkeypatch.setattr(push, "get_channel_layer", lambda: _Recording(ConnectionError("redis down")))
    with caplog.at_level(logging.WARNING, logger="mafia_protocol.push"):
        push.notify_group("g", {"type": "x"})
    assert "notice to group g failed" in caplog.text


def test_under_the_server_the_caller_does_not_wait_for_a_busy_loop(monkeypatch, caplog):
    """A host's request thread hands the notice to the server's loop and goes on:
    the loop is busy (here 0.4 s blocked, as by a burst of spectators' frames),
    the click is not held for it; the notice is sent once the loop gets to it,
    and its failure is logged there. The "server" is a loop of a thread of its
    own (whatever loop state other tests leave in the main thread)."""
    layer = _Recording(ConnectionError("redis down"))
    monkeypatch.setattr(push, "get_channel_layer", lambda: layer)
    seen: dict[str, object] = {}

    def host_click() -> float:
        started = time.perf_counter()
        push.notify_group("g", {"type": "x"})
        return time.perf_counter() - started

    async def server() -> None:
        loop = asyncio.get_running_loop()
        seen["loop"] = loop
        loop.call_soon(time.sleep, 0.4)  # the loop's next turn is busy
        seen["took"] = await sync_to_async(host_click)()
        for _ in range(50):
            if layer.loops:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0)

    with caplog.at_level(logging.WARNING, logger="mafia_protocol.push"):
        thread = threading.Thread(target=lambda: asyncio.run(server()))
        thread.start()
        thread.join(10)
    assert seen["took"] < 0.2
    assert layer.loops == [seen["loop"]]
    assert "notice to group g failed" in caplog.text
