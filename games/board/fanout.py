"""Per-process delivery of board frames: one channel-layer subscription per
process and game, instead of one group member per spectator.

Terms:
- *hub*: one per event loop (one per daphne process). It owns ONE channel of
  the channel layer and adds it to the group of every game that has local
  spectators; a single reader task receives each frame once and writes the
  already-rendered text to the local sockets.
- *sink*: a local socket (a consumer) registered with the hub for a group.

Why (DESIGN.md "Live board"): Channels' per-consumer delivery costs about
0.3–0.5 ms of server CPU per spectator per update (a channel per consumer, a
queue put, a task wake-up, a dispatch); a plain group topped out near 600
spectators a process on this machine. Here the per-spectator cost is one
`send` of a shared message dict to the ASGI server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections import defaultdict
from typing import Any, Protocol

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# Group memberships expire (group_expiry, one day by default in every
# layer); the hub re-adds its channel well before that.
REFRESH_SECONDS = 3600.0

# While local sockets watch, the hub sends itself a ping through the layer this
# often and expects it back within the timeout. When it does not come back
# (Redis down) the local sockets are closed with CLOSE_TRY_AGAIN: their
# browsers say «нет связи» and reconnect, and the board they get on
# reconnect is a fresh snapshot (issue 27-6: before, the board froze with no sign).
WATCH_SECONDS = 2.0
WATCH_TIMEOUT_SECONDS = 2.0
CLOSE_TRY_AGAIN = 1013  # RFC 6455 "Try Again Later"


class LayerUnavailable(Exception):
    """The channel layer does not answer (Redis down): a new socket is refused cleanly."""


class Sink(Protocol):
    def hub_write(self, message: dict[str, Any], prepared: Prepared) -> bool:
        """Write synchronously if possible; False means: await hub_deliver."""
        ...

    async def hub_deliver(self, message: dict[str, Any]) -> None: ...


class Prepared:
    """One message framed once per websocket factory and language (autobahn PreparedMessage).

    Under daphne every socket of a process shares one autobahn factory, so
    the frame bytes (header + UTF-8 payload) are built once and each socket
    only gets them appended to its transport: "write the already-rendered
    frame to the sockets".
    """

    __slots__ = ("_by_key", "message")

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message
        self._by_key: dict[tuple[int, str], Any] = {}

    def text(self, lang: str) -> str:
        return str((self.message.get("html_by_lang") or {}).get(lang) or self.message.get("html") or "")

    def for_factory(self, factory: Any, lang: str) -> Any:
        key = (id(factory), lang)
        prepared = self._by_key.get(key)
        if prepared is None:
            prepared = factory.prepareMessage(self.text(lang).encode("utf-8"), isBinary=False)
            self._by_key[key] = prepared
        return prepared


class Hub:
    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.channel: str | None = None
        self.sinks: dict[str, set[Sink]] = defaultdict(set)
        self.joined: set[str] = set()
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._refresher: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._pong: asyncio.Future[None] | None = None
        self.layer_lost = 0  # times the layer stopped answering (for tests)
        self.delivered = 0  # frames written to sockets (for tests and the benchmark)
        self._waiters: dict[tuple[str, Any, Any], list[asyncio.Future[None]]] = {}

    # -- membership ------------------------------------------------------------

    async def subscribe(self, group: str, sink: Sink) -> None:
        """Raises LayerUnavailable (and keeps nothing of `sink`) when the layer does not answer."""
        self.sinks[group].add(sink)
        try:
            await self._sync(group)
        except Exception as exc:
            self._forget(group, sink)
            raise LayerUnavailable(type(exc).__name__) from exc

    async def unsubscribe(self, group: str, sink: Sink) -> None:
        self._forget(group, sink)
        await self._sync(group)

    def _forget(self, group: str, sink: Sink) -> None:
        sinks = self.sinks.get(group)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self.sinks[group]

    def local_count(self, group: str) -> int:
        return len(self.sinks.get(group, ()))

    async def _sync(self, group: str) -> None:
        """Join or leave the layer group so that membership follows local sinks."""
        async with self._lock:
            want = bool(self.sinks.get(group))
            if want == (group in self.joined):
                return
            await self._ensure_channel()
            assert self.channel is not None
            if want:
                await self.layer.group_add(group, self.channel)
                self.joined.add(group)
            else:
                self.joined.discard(group)
                await self.layer.group_discard(group, self.channel)

    async def _ensure_channel(self) -> None:
        if self.channel is None:
            self.channel = await self.layer.new_channel("board-hub.")
        if self._reader is None or self._reader.done():
            self._reader = asyncio.ensure_future(self._read())
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.ensure_future(self._refresh())
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.ensure_future(self._watch())

    # -- delivery --------------------------------------------------------------

    async def _read(self) -> None:
        backoff = 0.1
        while True:
            channel = self.channel
            assert channel is not None
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                # The layer is down (Redis restarting, say): wait and rejoin.
                # Spectators then see a gap in seq and fetch a snapshot.
                log.warning("board hub: receive failed; retrying in %.1fs", backoff, exc_info=True)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                with contextlib.suppress(Exception):
                    await self._rejoin()
                continue
            backoff = 0.1
            if message.get("type") == "hub.ping":
                if self._pong is not None and not self._pong.done():
                    self._pong.set_result(None)
                continue
            await self.deliver(message)

    def expect(self, group: str, seq: Any, at: Any) -> asyncio.Future[None] | None:
        """A future resolved once this hub has written the frame (group, seq, at).

        Registered BEFORE the frame is sent to the layer (the reader may
        deliver it at the first await). None when no local socket watches.
        """
        if not self.sinks.get(group):
            return None
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault((group, seq, at), []).append(fut)
        return fut

    async def wait(self, fut: asyncio.Future[None] | None, timeout: float) -> None:
        if fut is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            # Dropped by the layer, or superseded: forget the waiter.
            for key, waiters in list(self._waiters.items()):
                if fut in waiters:
                    waiters.remove(fut)
                    if not waiters:
                        del self._waiters[key]

    async def deliver(self, message: dict[str, Any]) -> None:
        group = message.get("group", "")
        try:
            await self._deliver(group, message)
        finally:
            for fut in self._waiters.pop((group, message.get("seq"), message.get("at")), ()):
                if not fut.done():
                    fut.set_result(None)

    async def _deliver(self, group: str, message: dict[str, Any]) -> None:
        sinks = self.sinks.get(group)
        if not sinks:
            return
        prepared = Prepared(message)
        # A copy: sockets may come and go while we write. The synchronous
        # path does not yield, so a frame reaches every local socket before
        # the next one starts (frames stay in seq order per socket).
        for sink in tuple(sinks):
            try:
                if not sink.hub_write(message, prepared):
                    await sink.hub_deliver(message)
            except Exception:
                log.debug("board hub: a sink failed", exc_info=True)
        self.delivered += len(sinks)

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            with contextlib.suppress(Exception):
                await self._rejoin()

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            if not self.sinks or self.channel is None:
                continue
            self._pong = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(self.layer.send(self.channel, {"type": "hub.ping"}), WATCH_TIMEOUT_SECONDS)
                await asyncio.wait_for(self._pong, WATCH_TIMEOUT_SECONDS)
            except asyncio.CancelledError:
                raise
            except Exception:
                await self._lost()

    async def _lost(self) -> None:
        """The layer stopped answering: close every local socket so its browser says so and reconnects."""
        self.layer_lost += 1
        sinks = {sink for group in self.sinks.values() for sink in group}
        log.warning(
            "board hub: the channel layer does not answer; closing %d board sockets (they reconnect)", len(sinks)
        )
        # Forgotten first: the sockets' disconnects then need no layer call.
        self.sinks.clear()
        self.joined.clear()
        for sink in sinks:
            with contextlib.suppress(Exception):
                await sink.close(code=CLOSE_TRY_AGAIN)  # type: ignore[attr-defined]  # every sink is a consumer

    async def _rejoin(self) -> None:
        async with self._lock:
            assert self.channel is not None
            for group in list(self.joined):
                await self.layer.group_add(group, self.channel)

    async def close(self) -> None:
        for task in (self._reader, self._refresher, self._watcher):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.channel is not None:
            for group in list(self.joined):
                with contextlib.suppress(Exception):
                    await self.layer.group_discard(group, self.channel)
        self.joined.clear()
        self.sinks.clear()


def write_prepared(proto: Any, prepared: Any) -> None:
    """Write a prepared frame to one daphne (autobahn over Twisted TCP) socket.

    Twisted's `transport.write` only buffers and registers the socket with the
    selector (two epoll_ctl calls and a loop callback per socket per frame);
    when nothing is pending on the socket we send at once, as asyncio's own
    transports do, and hand any remainder to Twisted. Anything unusual
    (TLS, compression, autobahn's send queue, data already buffered, another
    transport) takes autobahn's ordinary path.
    """
    transport = getattr(proto, "transport", None)
    sock = getattr(transport, "socket", None)
    data = getattr(prepared, "payloadHybi", None)
    if (
        sock is None
        or data is None
        or getattr(proto, "_perMessageCompress", True) is not None
        or getattr(proto, "send_queue", True)
        or not getattr(transport, "connected", False)
        or getattr(transport, "disconnecting", True)
        or getattr(transport, "_tempDataLen", 1)
        or len(getattr(transport, "dataBuffer", b"x")) != getattr(transport, "offset", -1)
    ):
        proto.sendPreparedMessage(prepared)
        return
    try:
        sent = sock.send(data)
    except (BlockingIOError, InterruptedError):
        sent = 0
    except OSError:
        return  # the connection is broken; Twisted notices it on the next read
    if sent < len(data):
        transport.write(data[sent:])  # type: ignore[union-attr]  # not None: it has a socket


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def peek_hub() -> Hub | None:
    """The hub of the running loop if it exists (never creates one)."""
    try:
        return _hubs.get(asyncio.get_running_loop())
    except RuntimeError:
        return None


def get_hub() -> Hub:
    """The hub of the running event loop (one per daphne process; one per test loop)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = Hub(get_channel_layer())
        _hubs[loop] = hub
    return hub
