"""/healthz: is this worker able to serve a game?

A worker is healthy when its database answers a query and a message it sends
through the channel layer comes back to it (with Redis, that is the path every
live-board frame takes between workers). The answer is 200 with a small JSON
body, or 503 naming the part that failed, for nginx, systemd or a monitor.
It needs no sign-in and stays on plain HTTP (settings.SECURE_REDIRECT_EXEMPT),
and it never shows an error's text (connection strings carry passwords).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

# Long enough for a loaded Redis, short enough for a proxy's probe.
CHANNEL_LAYER_TIMEOUT_S = 2.0


def _database_answers() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        row = cursor.fetchone()
    if row is None or row[0] != 1:
        raise RuntimeError("unexpected answer")


async def check_database() -> None:
    await sync_to_async(_database_answers, thread_sensitive=True)()


async def check_channel_layer() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    channel = await layer.new_channel(prefix="healthz.")
    nonce = uuid.uuid4().hex
    try:
        await layer.send(channel, {"type": "healthz.ping", "nonce": nonce})
        message = await asyncio.wait_for(layer.receive(channel), CHANNEL_LAYER_TIMEOUT_S)
        if message.get("nonce") != nonce:
            raise RuntimeError("another message came back")
    finally:
        # A cancelled receive is how Channels ends a channel (the Redis
        # pub/sub layer unsubscribes then); without it every probe would
        # leave a subscription behind.
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(layer.receive(channel), 0.001)


CHECKS = {"database": check_database, "channel_layer": check_channel_layer}


@never_cache
async def healthz(request: HttpRequest) -> JsonResponse:
    started = time.monotonic()
    parts: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            await check()
        except Exception as exc:  # any failure is the answer, not a 500
            parts[name] = f"failed: {type(exc).__name__}"
        else:
            parts[name] = "ok"
    failed = [name for name, state in parts.items() if state != "ok"]
    body: dict[str, object] = {
        "status": "fail" if failed else "ok",
        **parts,
        "ms": round((time.monotonic() - started) * 1000, 1),
    }
    if failed:
        body["failed"] = failed
    return JsonResponse(body, status=503 if failed else 200)
