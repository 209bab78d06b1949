"""The Discord bot: the edge where discord.py meets the bridge.

It turns DMs from linked players into proposals and «+» messages in a game's
text channel into vote marks (discord_bridge.services, which push them to the
host's console through the channel layer); it answers each DM with a short
receipt of the sender's own message; and it delivers the queued posts that
are its to deliver (wink relays by DM, and the chat lines of games linked
without a webhook). It never records a game action: the host confirms.
It also reports who is in each linked game's voice channel (on ready, on
every voice state update, and with each heartbeat), so the host can pick
the seats' Discord members from a list.

discord.py reconnects by itself (`Client.start(reconnect=True)`); a heartbeat
row tells the console whether the bot is up.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

import discord
from asgiref.sync import sync_to_async
from django.utils import timezone

from discord_bridge import core, services, silence_bot, voice_bot
from discord_bridge.models import BotHeartbeat, ChatPost, DiscordLink

log = logging.getLogger(__name__)

POLL_SECONDS = 0.1  # the outbox: the V1 line is due to the 100 ms
HEARTBEAT_SECONDS = 15
NOT_LINKED = "Вы не привязаны ни к одной игре: попросите ведущего указать ваш Discord в настройках игры."


def bot_intents() -> discord.Intents:
    """What the bot needs, and no more (README "Discord").

    - Message Content (privileged): the text of «+» and other messages in the
      game's text channel. A DM's text reaches a bot without it.
    - not Server Members (privileged): the voice channel's members come with
      the voice states (the default `voice_states` intent); asking for members
      makes discord.py chunk every guild before it is ready.
    """
    intents = discord.Intents.default()
    intents.message_content = True
    intents.members = False
    intents.dm_messages = True
    intents.guild_messages = True
    intents.voice_states = True
    return intents


class ProtocolBot(discord.Client):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("intents", bot_intents())
        super().__init__(**kwargs)
        self._background: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        self._background = asyncio.create_task(self._loops())

    async def _loops(self) -> None:
        # One task (cancelled as one): the outbox's chores, and the voice plan in a loop of its own.
        await asyncio.gather(self._outbox_loop(), self._voice_loop())

    async def close(self) -> None:
        if self._background is not None:
            self._background.cancel()
        await super().close()

    async def on_message(self, message: discord.Message) -> None:
        await handle_message(self, message)

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        await handle_edit(payload.message_id, payload.data.get("content"))

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        await handle_delete(payload.message_id)

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        await silence_bot.on_reaction(payload)  # issue 29, chore 5: reactions during the game

    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        await silence_bot.on_member_update(before, after)  # chore 5 (only with the Server Members intent)

    async def on_user_update(self, before: discord.User, after: discord.User) -> None:
        await silence_bot.on_member_update(before, after)

    async def on_disconnect(self) -> None:
        await _db(BotHeartbeat.gateway)(False)

    async def on_resumed(self) -> None:
        await _db(BotHeartbeat.gateway)(True)

    async def on_ready(self) -> None:
        await _db(BotHeartbeat.gateway)(True)
        await snapshot_voice_channels(self)
        await voice_bot.reconcile_all(self)  # issue 29: nobody left muted across a restart
        await backfill(self)

    async def on_voice_state_update(
        self, member: discord.Member, before: discord.VoiceState, after: discord.VoiceState
    ) -> None:
        # Issue 29 first (mute on join, alerts), then the seat picker's snapshot, which a mute or a
        # deafen skips: every handler reaches its alert after as many database calls (they share one
        # thread, in order), so alerts are journalled in the gateway's order; a join's mute waits less.
        await voice_bot.on_voice_state(self, member, before, after)
        await handle_voice_state_update(self, before, after)

    async def _outbox_loop(self) -> None:
        await self.wait_until_ready()
        beat = 0.0
        while not self.is_closed():
            try:
                loop = asyncio.get_running_loop()
                if loop.time() - beat >= HEARTBEAT_SECONDS:
                    await sync_to_async(BotHeartbeat.beat)(str(self.user or ""))
                    # The sweep only starts delivery threads: no HTTP in the database thread.
                    await sync_to_async(services.sweep_stale_webhook_posts)()
                    await snapshot_voice_channels(self)  # a channel linked since the last event
                    beat = loop.time()
                await check_channels(self)  # issue 25-8: the host's access to a newly linked channel
                await ask_pending(self)  # issue 25-8: «Вы — №4 в игре …? да»
                await deliver_due_posts(self)
                await voice_bot.apply_invites(self)  # issue 29: the blacks' server invites
                await voice_bot.apply_other_chores(self)  # issue 29: chores 1, 3, 5, 7, 8 (see there)
            except Exception:  # the loop must outlive a database hiccup
                log.exception("outbox loop")
            await asyncio.sleep(POLL_SECONDS)

    async def _voice_loop(self) -> None:
        """Issue 29: the step's mute plan, within 1 s of the host's key, polled on its own every 100 ms.
        Not in the outbox loop: its chores make Discord requests of their own, and discord.py sleeps out
        a rate limit inside the request, so one kick or invite could hold the mutes for seconds (the
        game's end, measured in a whole game in a browser, came 1.0 s late behind the invites' revocation)."""
        await self.wait_until_ready()
        while not self.is_closed():
            try:
                await voice_bot.apply_due(self)
            except Exception:  # the loop must outlive a database hiccup
                log.exception("voice loop")
            await asyncio.sleep(POLL_SECONDS)


def _db(fn: Any) -> Any:
    return sync_to_async(fn)


async def handle_message(client: discord.Client, message: discord.Message, *, replay: bool = False) -> None:
    """`replay`: read again from history (backfill): a message already stored gets no second receipt."""
    if message.author.bot or (client.user is not None and message.author.id == client.user.id):
        return
    sent_at = message.created_at
    if message.guild is None:
        if await voice_bot.answer_question(message, replay=replay):  # issue 29: «фолы», «тех»
            return
        try:
            confirmation = await _db(services.receive_confirmation)(author_id=message.author.id, text=message.content)
        except Exception:
            log.exception("a seat confirmation could not be stored")
            await message.channel.send(services.NOT_STORED)
            return
        if confirmation is not None:  # a pending member (issue 25-8): his DM is routed nowhere
            if not replay or confirmation.changed:
                await message.channel.send(confirmation.reply)
            return
        try:
            received = await _db(services.receive_dm)(
                message_id=message.id, author_id=message.author.id, text=message.content, sent_at=sent_at
            )
            await _db(BotHeartbeat.saw_message)(message.id)
        except Exception:  # the database is down or refused it: the player must know it did not count
            log.exception("a DM could not be stored")
            await message.channel.send(services.NOT_STORED)
            return
        if replay and (received is None or not received.created):
            return
        # The receipt repeats only the sender's own message (never anyone else's).
        await message.channel.send(received.receipt if received is not None else NOT_LINKED)
        return
    try:
        if core.is_plus(message.content):
            await _db(services.receive_plus)(
                channel_id=message.channel.id, message_id=message.id, author_id=message.author.id, sent_at=sent_at
            )
        else:
            await _db(services.receive_chat)(
                channel_id=message.channel.id,
                message_id=message.id,
                author_id=message.author.id,
                text=message.content,
                sent_at=sent_at,
            )
        await _db(BotHeartbeat.saw_message)(message.id)
    except Exception:
        log.exception("a channel message could not be stored")
    await silence_bot.on_message(message)  # issue 29, chore 5: chat outside the vote


async def handle_edit(message_id: int, content: Any) -> None:
    """on_raw_message_edit: an embed-only update carries no content and changes nothing."""
    if isinstance(content, str):
        await _db(services.receive_edit)(message_id=message_id, text=content)


async def handle_delete(message_id: int) -> None:
    await _db(services.receive_delete)(message_id=message_id)


BACKFILL_LIMIT = 100


async def backfill(client: discord.Client) -> int:
    """on_ready after a restart: what was said while the bot was away (the linked text
    channels' and the linked players' DM history since the last message it saw), handled
    as if it had just arrived; idempotent by message id. Returns how many were handled."""
    since, channels, users = await _db(services.backfill_targets)()
    after = discord.Object(id=since) if since else None
    handled = 0
    sources: list[Any] = [client.get_channel(c) for c in channels]
    for user_id in users:
        user = client.get_user(user_id)
        if user is not None:
            sources.append(user.dm_channel or await user.create_dm())
    for source in sources:
        if source is None or not hasattr(source, "history"):
            continue
        try:
            # Without a last seen id: the newest BACKFILL_LIMIT messages, handled oldest first.
            history = (
                source.history(limit=BACKFILL_LIMIT, after=after, oldest_first=True)
                if after
                else source.history(limit=BACKFILL_LIMIT)
            )
            messages = [m async for m in history]
            for message in sorted(messages, key=lambda m: m.id):
                await handle_message(client, message, replay=True)
                handled += 1
        except Exception:  # one unreadable history (no access, no DM yet) must not stop the others
            log.warning("backfill of %s failed", getattr(source, "id", "?"), exc_info=True)
    return handled


async def check_channels(client: discord.Client) -> int:
    """Issue 25-8: for each link whose channels wait for it, check that the host's own Discord
    account is a member of the server who may see (and write in) the text channel and see
    (and connect to) the voice channel. Returns how many links were checked."""
    checks = await _db(services.channels_to_check)()
    for check in checks:
        proven, problem = await host_access(client, check)
        await _db(services.channels_checked)(check, proven, problem)
    return len(checks)


async def ask_pending(client: discord.Client) -> int:
    """Issue 25-8: DM each pending member the question once; a «да» proves his seat
    (services.receive_confirmation). Returns how many were asked."""
    asked = 0
    for question in await _db(services.questions_due)():
        problem = ""
        try:
            user = client.get_user(question.user_id) or await client.fetch_user(question.user_id)
            await user.send(question.text)
            asked += 1
        except discord.HTTPException as exc:  # unknown user, DMs closed: the host sees why
            problem = f"Discord {exc.status}: не удалось написать"
        await _db(services.question_asked)(question, problem)
    return asked


async def host_access(client: discord.Client, check: services.ChannelCheck) -> tuple[list[str], str]:
    guild = client.get_guild(check.guild_id) if check.guild_id else None
    if guild is None:
        return [], "сервер не указан или бот не на этом сервере"
    if check.host_discord_id is None:
        return [], "у ведущего не указан свой Discord id (профиль игрока): доступ к каналам не проверить"
    member = guild.get_member(check.host_discord_id)
    if member is None:
        try:
            member = await guild.fetch_member(check.host_discord_id)
        except discord.HTTPException:
            return [], "ведущий (его Discord id) не участник этого сервера"
    proven, problems = [], []
    for kind, channel_id in (("text", check.text_channel_id), ("voice", check.voice_channel_id)):
        if channel_id is None:
            continue
        channel = guild.get_channel(channel_id)
        if channel is None:
            problems.append(f"канал {channel_id} не на этом сервере")
            continue
        perms = channel.permissions_for(member)
        if perms.view_channel and (perms.send_messages if kind == "text" else perms.connect):
            proven.append(kind)
        else:
            problems.append(f"у ведущего нет доступа к каналу {channel_id}")
    return proven, "; ".join(problems)


async def handle_voice_state_update(
    client: discord.Client, before: discord.VoiceState, after: discord.VoiceState
) -> None:
    """Someone joined, left or moved: snapshot the channels he left and joined (discord.py has
    already updated `channel.members` when it dispatches the event). A mute or deafen in the same
    channel (the echo of each of the bot's own mutes) changes no channel's members: no snapshot."""
    if before.channel == after.channel:
        return
    channel_ids = {c.id for c in (before.channel, after.channel) if c is not None}
    if channel_ids:
        await snapshot_voice_channels(client, only=channel_ids)


async def snapshot_voice_channels(client: discord.Client, only: set[int] | None = None) -> int:
    """Report the members of the linked voice channels the bot can see; returns how many it reported."""
    linked = await sync_to_async(services.linked_voice_channels)()
    reported = 0
    for channel_id in sorted(linked if only is None else linked & only):
        channel = client.get_channel(channel_id)
        if not isinstance(channel, discord.VoiceChannel | discord.StageChannel):
            continue
        members = [core.VoiceMember(m.id, m.display_name) for m in channel.members if not m.bot]
        await sync_to_async(services.save_voice_snapshot)(voice_channel_id=channel_id, members=members)
        reported += 1
    return reported


async def deliver_due_posts(client: discord.Client) -> int:
    """Send what is due: wink relays by DM, channel lines for games without a webhook."""
    # A post due within the next poll is awaited to its mark, not a poll late (V1).
    now = timezone.now()
    posts = await sync_to_async(services.due_bot_posts)(now + timedelta(seconds=POLL_SECONDS))
    sent = 0
    for post in posts:
        wait = (post.due_at - timezone.now()).total_seconds()
        if wait > 0:
            await asyncio.sleep(wait)
        claimed = await sync_to_async(services.claim_post)(post.pk)
        if claimed is None:
            continue
        try:
            ok, error, sent_message = await _send(client, claimed)
        except Exception:  # never leave a post `sending`: it may or may not be in the channel
            log.exception("bot delivery of post %s", claimed.pk)
            ok, error, sent_message = False, "возможно отправлено: внутренняя ошибка", None
            await sync_to_async(services.finish_post)(claimed, ok=False, attempts=1, error=error, uncertain=True)
            continue
        await sync_to_async(services.finish_post)(
            claimed,
            ok=ok,
            attempts=1,
            error=error,
            message_id=sent_message.id if sent_message is not None else None,
            posted_at=sent_message.created_at if sent_message is not None else None,
        )
        sent += ok
    return sent


async def _send(client: discord.Client, post: ChatPost) -> tuple[bool, str, discord.Message | None]:
    try:
        if post.to_user_id is not None:
            user = client.get_user(post.to_user_id) or await client.fetch_user(post.to_user_id)
            return True, "", await user.send(post.text)
        link = await sync_to_async(DiscordLink.objects.filter(game_id=post.game_id).first)()
        if link is not None and link.text_channel_id and not link.text_proven:
            # Issue 25-8: never post into a channel the host's access to is not proven.
            return (
                False,
                "the text channel is not proven: the host's Discord account must see it (or the organizer sets it)",
                None,
            )
        channel = client.get_channel(link.text_channel_id) if link and link.text_channel_id else None
        if channel is None or not isinstance(channel, discord.abc.Messageable):
            return False, "the game's text channel is not linked or not visible to the bot", None
        message = await channel.send(post.text, allowed_mentions=discord.AllowedMentions.none())
        return True, "", message
    except discord.HTTPException as exc:
        return False, f"Discord {exc.status}: {exc.text}"[:300], None
