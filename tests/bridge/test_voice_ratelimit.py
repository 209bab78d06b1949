"""Issue 29: ten mutes at once must not trip Discord's rate limits — measured.

discord.py's own HTTP client (its per-bucket rate limiter included) talks to a local Discord-like
REST server that keeps a rate-limit bucket for PATCH /guilds/{guild}/members/{user} the way
Discord announces it (X-RateLimit-Limit / -Remaining / -Reset-After / -Bucket, and a 429 with
retry_after past it). The bridge's path is the real one: the host's action, the plan, the bot's
reconcile, `Member.edit(mute=True)`, discord.py's HTTP. dpytest keeps the guild and the voice
states in discord.py's cache; only its fake HTTP is replaced by the real client.

Discord does not document this route's limit; the buckets below are the commonly observed one
(10 per 10 s) and a stricter one (5 per 5 s), to see what happens when ten mutes exceed it.
"""

from __future__ import annotations

import asyncio
import json
import math
import time

import discord
import discord.ext.test as dpytest
import pytest
import pytest_asyncio
from aiohttp import web
from asgiref.sync import sync_to_async

from discord_bridge import bot as bot_module
from discord_bridge import voice_bot
from discord_bridge.models import VoiceJournal
from games import services as game_services

from .helpers import ROLES, harness_intents, prove
from .test_voice_chores import VoiceServer


def as_json(payload, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """Discord's Content-Type exactly (discord.py reads a body as JSON only then)."""
    return web.Response(
        body=json.dumps(payload).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


class RateLimitedDiscord:
    """PATCH member within a fixed-window bucket per guild; GET /users/@me for the login."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self.started = 0.0
        self.count = 0
        self.patches: list[tuple[float, int, int]] = []  # (time, user id, status)
        self.on_mute = None  # Discord's gateway then sends VOICE_STATE_UPDATE with the new mute
        self.app = web.Application()
        self.app.router.add_get("/api/v10/users/@me", self.me)
        self.app.router.add_patch("/api/v10/guilds/{guild}/members/{user}", self.edit_member)

    async def me(self, request: web.Request) -> web.Response:
        return as_json(
            {"id": "1", "username": "bot", "discriminator": "0000", "avatar": None, "global_name": None, "bot": True}
        )

    async def edit_member(self, request: web.Request) -> web.Response:
        now = time.monotonic()
        user = int(request.match_info["user"])
        # Discord announces Reset-After rounded up to the millisecond, and a client that
        # sleeps exactly that long may come back a hair early by the event loop's clock:
        # the window counts as over within 5 ms of its end (else a faithful client meets
        # a 429 it could not avoid, 2 runs in 4 on a loaded machine).
        if now - self.started >= self.window - 0.005:
            self.started, self.count = now, 0
        reset_after = math.ceil((self.window - (now - self.started)) * 1000) / 1000
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Bucket": "member-edit",
        }
        if self.count >= self.limit:
            self.patches.append((now, user, 429))
            # Discord's 429s come through its proxy (`Via`): discord.py takes a 429 without it
            # for a Cloudflare ban and gives up instead of waiting.
            headers |= {
                "X-RateLimit-Remaining": "0",
                "Retry-After": f"{reset_after:.3f}",
                "X-RateLimit-Scope": "user",
                "Via": "1.1 google",
            }
            return as_json(
                {"message": "You are being rate limited.", "retry_after": reset_after, "global": False},
                status=429,
                headers=headers,
            )
        self.count += 1
        self.patches.append((now, user, 200))
        headers["X-RateLimit-Remaining"] = str(self.limit - self.count)
        body = await request.json()
        if self.on_mute is not None:
            self.on_mute(user, bool(body.get("mute")))
        member = {
            "user": {
                "id": str(user),
                "username": f"u{user}",
                "discriminator": "0000",
                "avatar": None,
                "global_name": None,
            },
            "nick": None,
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": bool(body.get("mute")),
            "flags": 0,
        }
        return as_json(member, headers=headers)


@pytest_asyncio.fixture
async def real_http(monkeypatch):
    servers: list[web.AppRunner] = []
    clients: list[discord.http.HTTPClient] = []

    async def start(limit: int, window: float):
        fake = RateLimitedDiscord(limit, window)
        runner = web.AppRunner(fake.app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        servers.append(runner)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
        client = bot_module.ProtocolBot(intents=harness_intents())
        await client._async_setup_hook()
        dpytest.configure(client, members=12, voice_channels=1)
        http = discord.http.HTTPClient(client.loop)
        await http.static_login("test-token")
        clients.append(http)
        client._connection.http = http  # members' edits go through discord.py's real HTTP client now
        return fake, dpytest.get_config()

    yield start
    for http in clients:
        await http.close()
    for runner in servers:
        await runner.cleanup()


async def ten_mutes(start, host, limit: int, window: float):
    fake, config = await start(limit, window)
    voice = VoiceServer(config.client, config.guilds[0])
    channel = config.guilds[0].voice_channels[0]
    for member in config.members[:10]:
        voice.state(member, channel.id)
    await dpytest.run_all_events()  # those joins are handled before the game exists
    fake.on_mute = lambda user, mute: voice.state(config.guilds[0].get_member(user), channel.id, mute=mute)

    @sync_to_async
    def game_at_start():
        from discord_bridge import services

        game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
        prove(
            services.link_save(
                game=game,
                guild_id=config.guilds[0].id,
                text_channel_id=None,
                voice_channel_id=channel.id,
                webhook_url="",
                seats={str(s): str(config.members[s - 1].id) for s in range(1, 11)},
            )
        )  # proven as the bot proves them (issue 25-8)
        game_services.game_record_action(game=game, action=ROLES, expected_seq=game.seq, by=host)
        game.refresh_from_db()
        return game

    game = await game_at_start()
    pressed = time.monotonic()
    await sync_to_async(
        lambda: game_services.game_record_action(game=game, action={"do": "start"}, expected_seq=game.seq, by=host)
    )()
    await voice_bot.apply_due(config.client)
    loop_free = time.monotonic() - pressed  # the bot's loop goes on (the V1 line, the DMs) from here
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and [s for _, _, s in fake.patches].count(200) < 10:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)  # anything sent twice would arrive now
    landed = max(t for t, _, s in fake.patches if s == 200) - pressed  # when Discord applied the tenth
    while voice_bot._running:
        await asyncio.sleep(0.05)
    failures = await sync_to_async(
        lambda: list(VoiceJournal.objects.filter(game=game, ok=False).values_list("seat", "detail"))
    )()
    muted = await sync_to_async(lambda: VoiceJournal.objects.filter(game=game, kind="mute", ok=True).count())()
    return fake, landed, loop_free, failures, muted


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ten_mutes_at_once_stay_inside_a_10_per_10s_bucket(real_http, host):
    fake, landed, loop_free, failures, muted = await ten_mutes(real_http, host, limit=10, window=10.0)
    statuses = [s for _, _, s in fake.patches]
    print(
        f"\n10 mutes, bucket 10/10 s: the tenth applied {landed * 1000:.0f} ms after the key, the bot's loop free after {loop_free * 1000:.0f} ms, {statuses.count(429)} × 429"
    )
    assert muted == 10 and failures == []
    assert statuses == [200] * 10  # not one 429, and no request sent twice
    assert landed < 1.0
    assert loop_free < 3.0  # the bot waits JOBS_WAIT_SECONDS, not the bucket's 10 s (margin: a loaded machine)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_stricter_bucket_is_waited_out_and_every_mute_lands(real_http, host):
    fake, landed, loop_free, failures, muted = await ten_mutes(real_http, host, limit=5, window=2.0)
    statuses = [s for _, _, s in fake.patches]
    print(
        f"\n10 mutes, bucket 5/2 s: the tenth applied {landed * 1000:.0f} ms after the key, the bot's loop free after {loop_free * 1000:.0f} ms, {statuses.count(429)} × 429"
    )
    assert muted == 10 and failures == []  # discord.py waits the bucket out; nothing is lost
    assert statuses.count(200) == 10 and len({u for _, u, s in fake.patches if s == 200}) == 10  # each once
    assert loop_free < 1.9, f"the bot's loop waited {loop_free:.2f} s: the bucket's own wait is 2 s"
