"""Health probes: is this worker alive, and may it take requests?

- `/healthz/live` (liveness): the process answers. Touches nothing else; a
  supervisor restarts a worker only when this fails.
- `/healthz` and `/healthz/ready` (readiness): the database answers a query
  *and accepts a write* (a SQLite file that is full or read-only, or a
  PostgreSQL in recovery, refuses it). 503 when not: the rolling update
  (deploy/rolling-update.sh) waits for 200 before it moves on. The channel
  layer is checked too (a message sent through it must come back: with Redis,
  the path of every live-board frame between workers) but only *reported*:
  when Redis is down every worker is equally without it, host actions are
  still recorded, and taking workers out would turn a frozen board into a
  site outage (issue 27-6). Then the answer is 200 with "status": "degraded".

The answer is a small JSON body for nginx, systemd or a monitor. No sign-in,
plain HTTP allowed (settings.SECURE_REDIRECT_EXEMPT), never an error's text
(connection strings carry passwords).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache

# Long enough for a loaded Redis, short enough for a proxy's probe.
CHANNEL_LAYER_TIMEOUT_S = 2.0


def _database_answers() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        row = cursor.fetchone()
    if row is None or row[0] != 1:
        raise RuntimeError("unexpected answer")


# One row, rewritten by every readiness probe. A plain table made on first use
# rather than a model: it holds nothing, and no migration must run before a
# fresh worker can say whether its database takes writes.
_PROBE_TABLE = "healthz_write_probe"


def _database_accepts_a_write() -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {_PROBE_TABLE} (id integer PRIMARY KEY, at varchar(40) NOT NULL)")
        cursor.execute(
            f"INSERT INTO {_PROBE_TABLE} (id, at) VALUES (1, %s) ON CONFLICT (id) DO UPDATE SET at = excluded.at",
            [timezone.now().isoformat()],
        )


def _database_ready() -> None:
    _database_answers()
    _database_accepts_a_write()


async def check_database() -> None:
    await sync_to_async(_database_ready, thread_sensitive=True)()


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
# Parts whose failure makes the worker not ready (503); the others are reported.
REQUIRED = ("database",)


@never_cache
async def healthz_live(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


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
    not_ready = [name for name in failed if name in REQUIRED]
    body: dict[str, object] = {
        "status": "fail" if not_ready else ("degraded" if failed else "ok"),
        **parts,
        "ms": round((time.monotonic() - started) * 1000, 1),
    }
    if failed:
        body["failed"] = failed
    return JsonResponse(body, status=503 if not_ready else 200)
