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


class Sink(Protocol):
    async def hub_deliver(self, message: dict[str, Any]) -> None: ...


class Hub:
    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.channel: str | None = None
        self.sinks: dict[str, set[Sink]] = defaultdict(set)
        self.joined: set[str] = set()
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._refresher: asyncio.Task[None] | None = None
        self.delivered = 0  # frames written to sockets (for tests and the benchmark)

    # -- membership ------------------------------------------------------------

    async def subscribe(self, group: str, sink: Sink) -> None:
        self.sinks[group].add(sink)
        await self._sync(group)

    async def unsubscribe(self, group: str, sink: Sink) -> None:
        sinks = self.sinks.get(group)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self.sinks[group]
        await self._sync(group)

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
            await self.deliver(message)

    async def deliver(self, message: dict[str, Any]) -> None:
        group = message.get("group", "")
        sinks = self.sinks.get(group)
        if not sinks:
            return
        # A copy: sockets may come and go while we write.
        for sink in tuple(sinks):
            try:
                await sink.hub_deliver(message)
            except Exception:
                log.debug("board hub: a sink failed", exc_info=True)
        self.delivered += len(sinks)

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            with contextlib.suppress(Exception):
                await self._rejoin()

    async def _rejoin(self) -> None:
        async with self._lock:
            assert self.channel is not None
            for group in list(self.joined):
                await self.layer.group_add(group, self.channel)

    async def close(self) -> None:
        for task in (self._reader, self._refresher):
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


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def get_hub() -> Hub:
    """The hub of the running event loop (one per daphne process; one per test loop)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = Hub(get_channel_layer())
        _hubs[loop] = hub
    return hub
