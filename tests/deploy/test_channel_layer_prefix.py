"""Two deployments on one Redis never see each other's boards (issue 27, finding 4).

Redis pub/sub ignores the db number of REDIS_URL, so the layer's channel
names must differ: CHANNEL_LAYER_PREFIX, by default derived from the
database. Each deployment's settings module is run afresh under its own
environment, as two sites would load it; their layers then talk through the real Redis.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import runpy
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/6")


def layer_config(**env: str) -> dict[str, Any]:
    """The channel layer the settings module builds under `env` (run afresh, as a new worker would)."""
    saved = {k: os.environ.get(k) for k in ("DATABASE_URL", "CHANNEL_LAYER_PREFIX", "SQLITE_PATH", "REDIS_URL", *env)}
    try:
        for key in saved:
            os.environ.pop(key, None)
        os.environ.update(env)
        namespace = runpy.run_path(str(ROOT / "mafia_protocol" / "settings.py"))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return dict(namespace["CHANNEL_LAYERS"]["default"])


def redis_answers() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS, socket_connect_timeout=0.5).ping())
    except Exception:
        return False


def test_the_default_prefix_differs_per_database_and_is_stable(tmp_path):
    a = layer_config(REDIS_URL=REDIS, SQLITE_PATH=str(tmp_path / "a.sqlite3"))
    b = layer_config(REDIS_URL=REDIS, SQLITE_PATH=str(tmp_path / "b.sqlite3"))
    again = layer_config(REDIS_URL=REDIS, SQLITE_PATH=str(tmp_path / "a.sqlite3"))
    pa, pb = a["CONFIG"]["prefix"], b["CONFIG"]["prefix"]
    assert pa != pb and pa == again["CONFIG"]["prefix"]
    assert "a.sqlite3" not in pa  # says nothing about the server
    chosen = layer_config(REDIS_URL=REDIS, SQLITE_PATH=str(tmp_path / "a.sqlite3"), CHANNEL_LAYER_PREFIX="club-b.")
    assert chosen["CONFIG"]["prefix"] == "club-b."


def test_a_bad_prefix_refuses_to_start(tmp_path):
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="CHANNEL_LAYER_PREFIX"):
        layer_config(REDIS_URL=REDIS, SQLITE_PATH=str(tmp_path / "a.sqlite3"), CHANNEL_LAYER_PREFIX="a b")


@pytest.mark.skipif(not redis_answers(), reason="no Redis at REDIS_URL")
def test_two_deployments_on_one_redis_do_not_receive_each_others_frames(tmp_path):
    from channels_redis.pubsub import RedisPubSubChannelLayer

    # Different db numbers, as the README's two sites would use: pub/sub ignores them.
    base = REDIS.rsplit("/", 1)[0]
    a_cfg = layer_config(REDIS_URL=f"{base}/6", SQLITE_PATH=str(tmp_path / "a.sqlite3"))["CONFIG"]
    b_cfg = layer_config(REDIS_URL=f"{base}/7", SQLITE_PATH=str(tmp_path / "b.sqlite3"))["CONFIG"]

    async def scenario() -> tuple[object, object]:
        a, b = RedisPubSubChannelLayer(**a_cfg), RedisPubSubChannelLayer(**b_cfg)
        try:
            a_channel, b_channel = await a.new_channel(), await b.new_channel()
            await a.group_add("game-1-board", a_channel)
            await b.group_add("game-1-board", b_channel)
            await asyncio.sleep(0.1)
            await a.group_send("game-1-board", {"type": "board.update", "from": "A"})
            own = await asyncio.wait_for(a.receive(a_channel), 2)
            try:
                foreign: object = await asyncio.wait_for(b.receive(b_channel), 0.5)
            except TimeoutError:
                foreign = None
            return own, foreign
        finally:
            await a.flush()
            await b.flush()

    # In a thread of its own: the browser tests' Playwright (sync API) keeps an event
    # loop marked running in the main thread for the whole session.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        own, foreign = pool.submit(asyncio.run, scenario()).result(timeout=60)
    assert own == {"type": "board.update", "from": "A"}
    assert foreign is None, "deployment B received deployment A's board frame"
