"""Channel-layer notices sent from sync code: a request thread, a management
command, a test.

Under the ASGI server a notice is handed to the server's own event loop and the
caller does not wait for it: the host's click must not wait for turns of a
loop busy with spectators' frames. Elsewhere it is sent from one long-lived
event loop of the process and awaited: asgiref's ``async_to_sync`` starts a
thread and an event loop for each call (~0.5 ms, a tenth of a game's
incremental ratings update) and channels_redis opens its connections per loop.

For notices whose order does not matter (each says "changed, fetch again");
frames that must arrive in order keep their own path (games/board/frames.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Coroutine
from typing import Any

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# How long sync code outside the server waits for a notice to be sent; the layer
# may hang (Redis unreachable): the change is committed, pages re-fetch on reconnect.
SEND_TIMEOUT_SECONDS = 2.0


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The ASGI server's event loop when this sync code runs in a request thread of it."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    if (
        not isinstance(loop, asyncio.AbstractEventLoop)
        or pid != os.getpid()
        or loop.is_closed()
        or not loop.is_running()
    ):
        return None
    return loop


def notify_group(group: str, message: dict[str, Any]) -> None:
    """Send `message` to a channel-layer group; a failure is logged, never raised."""
    layer = get_channel_layer()
    if layer is None:
        return
    loop = server_loop()
    if loop is not None:
        loop.call_soon_threadsafe(_spawn, loop, layer.group_send(group, message), group)
        return
    try:
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _own_loop())
        future.result(timeout=SEND_TIMEOUT_SECONDS)
    except Exception:  # the layer may be down; pages re-fetch on reconnect
        log.warning("notice to group %s failed", group, exc_info=True)


def _spawn(loop: asyncio.AbstractEventLoop, send: Coroutine[Any, Any, None], group: str) -> None:
    task = loop.create_task(_logged(send, group))
    _running.add(task)  # a task only weakly referenced by the loop may be collected before it ends
    task.add_done_callback(_running.discard)


async def _logged(send: Coroutine[Any, Any, None], group: str) -> None:
    try:
        await send
    except Exception:
        log.warning("notice to group %s failed", group, exc_info=True)


_running: set[asyncio.Task[None]] = set()
_own: tuple[int, asyncio.AbstractEventLoop] | None = None
_own_lock = threading.Lock()


def _own_loop() -> asyncio.AbstractEventLoop:
    """This process's loop for notices, in a daemon thread, started on first use
    (again in a forked child: a loop thread does not survive a fork)."""
    global _own
    with _own_lock:
        if _own is None or _own[0] != os.getpid() or _own[1].is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="channel-notices", daemon=True).start()
            _own = (os.getpid(), loop)
        return _own[1]
