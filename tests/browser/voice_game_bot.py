"""The «bot» side of tests/browser/test_voice_game_browser.py: the real ProtocolBot against dpytest's
fake Discord (tests/bridge/voice_harness.py), in a process of its own on the live server's database and
Redis channel layer, as `manage.py discord_bot` runs in production. Its outbox loop, its voice state
handler and its chores are the bridge's own code; only Discord's side is faked, at discord.py's object
boundary: `Member.edit(mute=…)` (VoiceServer), `create_invite` / `delete_invite` / `kick` /
`set_permissions` (recorded), and the blacks' server, which a black joins when his invite reaches him.

Run: `python -m tests.browser.voice_game_bot` from the project root, with the live server's environment.
It talks JSON lines: events on stdout, each `@@ {...}` (everything else there is noise to skip), and
commands on stdin (see `command`). Its stdin closing ends it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from typing import Any

HOST = ("vg-host", "vg-pass-123")
NICKS = ["Бриз", "Вьюга", "Гром", "Дождь", "Ёлка", "Жара", "Заря", "Иней", "Капля", "Луна"]
SEATS = range(1, 11)


_emitting = threading.Lock()


def emit(**event: Any) -> None:
    """One whole line at a time: the event loop and the database thread (sync_to_async) both emit."""
    line = "@@ " + json.dumps(event, ensure_ascii=False) + "\n"
    with _emitting:
        sys.stdout.write(line)
        sys.stdout.flush()


def set_up_the_game(ids: dict[str, Any]) -> dict[str, Any]:
    """What the test starts from: the host, a game whose seating he drew (S1, seed kept), its link to
    the harness's channels and members (seat N = member N; members 11 and 12 are the host's own
    Discord account and a spectator), proven as the bot proves them, and the blacks' server set."""
    from django.contrib.auth import get_user_model

    from discord_bridge import services, voice_services
    from games import services as game_services
    from tests.bridge.helpers import prove

    host = get_user_model().objects.get(username=HOST[0])
    players, seed = game_services.draw_seating(NICKS)
    game = game_services.game_create(host=host, title="Голос: игра целиком", players=players, seating_seed=seed)
    voice_services.save_settings(
        game=game,
        mute_enabled=True,
        unmute_on_tech_pause=True,
        alerts_enabled=True,
        mafia_guild_id=ids["blacks_guild"],
        mafia_channel_id=ids["blacks_channel"],
    )
    link = services.link_save(
        game=game,
        guild_id=ids["guild"],
        text_channel_id=ids["text"],
        voice_channel_id=ids["voice"],
        webhook_url="",
        seats={str(seat): str(ids["members"][seat - 1]) for seat in SEATS},
    )
    prove(link)
    return {"game": game.pk, "seed": seed, "players": players}


def facts(game_id: int) -> dict[str, Any]:
    """The database's side at the end, for the test's assertions."""
    from discord_bridge.models import ChatPost, VoiceJournal, VoiceMute
    from discord_bridge.voice_models import BlackInvite

    return {
        "voice_mutes": list(VoiceMute.objects.filter(game_id=game_id).values_list("seat", flat=True)),
        "invites": sorted(
            (i.seat, i.state, i.code, i.joined_at is not None) for i in BlackInvite.objects.filter(game_id=game_id)
        ),
        "draw_posts": sorted(
            ChatPost.objects.filter(game_id=game_id, kind="draw").values_list("state", "to_user_id", "text"),
            key=lambda row: (row[1] or 0, row[2]),
        ),
        "failures": list(VoiceJournal.objects.filter(game_id=game_id, ok=False).values_list("kind", "seat", "detail")),
    }


def create_the_host() -> None:
    """First of all, so that the host signs in while the bot starts."""
    from django.contrib.auth import get_user_model

    users = get_user_model()
    host = users.objects.filter(username=HOST[0]).first() or users(username=HOST[0])
    host.set_password(HOST[1])
    host.save()


async def main() -> None:
    import discord
    import discord.ext.test as dpytest
    from asgiref.sync import sync_to_async
    from discord.ext.test import backend

    from discord_bridge import bot as bot_module
    from discord_bridge import voice_bot, voice_services
    from discord_bridge.models import VoiceControl
    from tests.bridge.helpers import harness_intents
    from tests.bridge.voice_harness import FakeInvite, FakeResponse, VoiceServer

    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    dpytest.configure(client, members=12, text_channels=1, voice_channels=1)
    config = dpytest.get_config()
    guild = config.guilds[0]
    text, voice_channel = guild.text_channels[0], guild.voice_channels[0]
    members = config.members
    # The club's separate server for the blacks (lines 37-41): the bot is on it, the blacks are not yet.
    blacks_guild = backend.make_guild("Blacks")
    blacks_channel = backend.make_text_channel("mafia", blacks_guild)
    backend.make_member(backend.get_state().user, blacks_guild)

    server = VoiceServer(client, guild, on_edit=lambda user, mute: emit(ev="edit", user=user, mute=mute, t=time.time()))

    async def edit(member: discord.Member, **kwargs: Any) -> Any:
        return await server.edit(member, **kwargs)

    codes = iter(range(1, 1000))
    invited: dict[str, int] = {}

    async def create_invite(channel: Any, **kwargs: Any) -> FakeInvite:
        code = f"code{next(codes)}"
        emit(
            ev="invite", channel=channel.id, code=code, **{k: kwargs.get(k) for k in ("max_age", "max_uses", "unique")}
        )
        return FakeInvite(code)

    async def delete_invite(self: Any, invite: Any, **kwargs: Any) -> None:
        emit(ev="invite_deleted", code=getattr(invite, "code", invite))

    async def kick(member: discord.Member, **kwargs: Any) -> None:
        emit(ev="kick", user=member.id, guild=member.guild.id)

    async def set_permissions(channel: Any, target: Any, *, overwrite: Any = None, **kwargs: Any) -> None:
        emit(ev="permissions", channel=channel.id, send_messages=overwrite.send_messages, speak=overwrite.speak)

    async def fetch_member(guild_: discord.Guild, user_id: int) -> discord.Member:
        member = guild_.get_member(user_id)
        if member is None:  # what Discord answers for a user who is not on the server
            raise discord.NotFound(FakeResponse(404, "Not Found"), {"code": 10007, "message": "Unknown Member"})
        return member

    # Where a latency goes: when the web process stored the plan (its row's updated_at) and when
    # the bot's poll found it; the poll itself is the bridge's own (bot.ProtocolBot._outbox_loop).
    due_game_ids = voice_services.due_game_ids

    def due_and_told(now: Any = None) -> list[int]:
        ids = due_game_ids(now)
        if ids:
            planned = VoiceControl.objects.filter(game_id__in=ids).values_list("updated_at", flat=True)
            emit(ev="due", t=time.time(), planned=max(p.timestamp() for p in planned))
        return ids

    voice_services.due_game_ids = due_and_told
    discord.Member.edit = edit  # type: ignore[method-assign]
    discord.TextChannel.create_invite = create_invite  # type: ignore[method-assign]
    discord.Client.delete_invite = delete_invite  # type: ignore[method-assign]
    discord.Member.kick = kick  # type: ignore[method-assign]
    discord.abc.GuildChannel.set_permissions = set_permissions  # type: ignore[method-assign]
    discord.Guild.fetch_member = fetch_member  # type: ignore[method-assign]

    ids = {
        "guild": guild.id,
        "text": text.id,
        "voice": voice_channel.id,
        "blacks_guild": blacks_guild.id,
        "blacks_channel": blacks_channel.id,
        "members": [m.id for m in members],
    }
    # Seats 1-10, the host's own account (11) and a spectator (12) sit in the game's voice channel.
    for member in members:
        server.state(member, voice_channel.id)
    await dpytest.run_all_events()
    # The bot as discord.py starts it: setup_hook (its outbox loop), then the gateway's READY.
    await client.setup_hook()
    client._ready.set()
    await client.on_ready()
    game = await sync_to_async(set_up_the_game)(ids)
    emit(ev="ready", **ids, **game)

    async def watch_sent() -> None:
        """Every message the bot sent (dpytest queues them); a black who gets his invite uses it."""
        while True:
            message = await dpytest.sent_queue.get()
            channel = message.channel
            to = None
            if isinstance(channel, discord.DMChannel):  # dpytest's DM channel names no recipient: the user's does
                to = next((m.id for m in members if m.dm_channel is not None and m.dm_channel.id == channel.id), None)
            emit(ev="sent", channel=channel.id, to=to, content=message.content, t=time.time())
            if to is not None and message.content.startswith(voice_bot.INVITE_TEXT.split("{")[0]):
                invited[message.content.rsplit("/", 1)[-1]] = to
                user = client.get_user(to)
                if user is not None and blacks_guild.get_member(to) is None:
                    backend.make_member(user, blacks_guild)

    watcher = asyncio.create_task(watch_sent())

    async def command(line: str) -> None:
        cmd = json.loads(line)
        do = cmd["do"]
        member = members[cmd["seat"] - 1] if "seat" in cmd else None
        if do == "deafen":
            server.state(member, voice_channel.id, self_deaf=True)
        elif do == "undeafen":
            server.state(member, voice_channel.id, self_deaf=False)
        elif do == "leave":
            server.state(member, None)
        elif do == "return":
            server.state(member, voice_channel.id)
        elif do == "chat":
            await dpytest.message(cmd["text"], channel=text, member=member)
        elif do == "report":
            report = await sync_to_async(facts)(game["game"])
            emit(
                ev="report",
                muted=sorted(server.muted()),
                in_voice=sorted(m.id for m in voice_channel.members),
                **report,
            )
        await dpytest.run_all_events()
        emit(ev="ack", do=do, t=time.time())

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line or line.strip() == b"quit":
            break
        try:
            await command(line.decode())
        except Exception as exc:  # the test must hear of it, not wait for an ack
            emit(ev="error", error=repr(exc))
    watcher.cancel()
    if client._background is not None:
        client._background.cancel()


if __name__ == "__main__":
    import django

    django.setup()
    create_the_host()
    emit(ev="host")
    asyncio.run(main())
