"""The voice chores at discord.py's edge (issue 29): server mute and unmute, voice state events.

The bot applies the plan the web process stored (discord_bridge.voice_services.plan, on each
game change): it mutes the seated members who should be muted and are in the game's voice
channel, and unmutes exactly those it muted itself (the VoiceMute journal), never anyone a
moderator muted, never the host or a spectator (they are no seat's member). A member not in
voice cannot be server-muted (Discord error 40032): the host is told, and the bot tries again
when he joins. On start it reconciles every live game from the journal and the channel's state.

Permissions: Mute Members (server mute and unmute). discord.py waits out Discord's rate limits
per route by itself; ten mutes are sent at once and each waits for its own bucket.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from asgiref.sync import sync_to_async

from discord_bridge import voice, voice_services

log = logging.getLogger(__name__)

NOT_IN_VOICE = "Discord 40032: not in the voice channel; muted when he joins"
NOT_IN_VOICE_UNMUTE = "Discord 40032: not in voice; unmuted when he joins"
NO_GUILD = "the game's server is not visible to the bot"
MUTE_REASON = "Mafia protocol: night (the host's mute)"
UNMUTE_REASON = "Mafia protocol: day, the game's end, or the host's unmute all"


def _db(fn: Any) -> Any:
    return sync_to_async(fn)


# A mute or unmute in flight, per (game, member): a reconcile started meanwhile (a voice event, the
# next poll) never sends it again. Measured (tests/bridge/test_voice_ratelimit.py): without this,
# the voice events of the first mutes re-sent the mutes still waiting in discord.py's rate-limit
# bucket, 37 requests for 10 members.
_in_flight: set[tuple[int, int]] = set()
_running: set[asyncio.Task[None]] = set()
# discord.py sleeps out an exhausted bucket inside the request that exhausted it (the 10th mute
# returns only when the bucket resets, ~10 s later, though Discord applied it at once): the bot's
# loop waits this long for the requests, and lets the rest finish as tasks of their own.
JOBS_WAIT_SECONDS = 0.5


def _reason(exc: discord.HTTPException) -> str:
    return f"Discord {exc.status}/{exc.code}: {exc.text}"[:300]


def _in_channel(member: discord.Member | None, channel_id: int | None) -> bool:
    vs = member.voice if member is not None else None
    return vs is not None and vs.channel is not None and vs.channel.id == channel_id


async def apply_due(client: discord.Client) -> int:
    """The outbox loop's step: apply every plan not applied yet. Returns how many games."""
    game_ids = await _db(voice_services.due_game_ids)()
    for game_id in game_ids:
        await reconcile_game(client, game_id, announce_absent=True)
    return len(game_ids)


async def reconcile_all(client: discord.Client) -> None:
    """on_ready (a start or a restart): the journal and the channels' state decide."""
    for game_id in await _db(voice_services.reconcilable_game_ids)():
        await reconcile_game(client, game_id, announce_absent=True)


async def reconcile_game(client: discord.Client, game_id: int, *, announce_absent: bool = False) -> None:
    """Leave the game's voice channel as its plan says. `announce_absent`: tell the host who could
    not be (un)muted because he is not in voice (on a new plan, not on every voice event)."""
    plan = await _db(voice_services.reconcile_for)(game_id)
    if plan is None:
        return
    guild = client.get_guild(plan.guild_id) if plan.guild_id else None
    if guild is None:
        if announce_absent and (plan.desired or plan.mine):
            await _db(voice_services.journal)(
                game_id=game_id, kind=voice_services.MUTE, seat=None, ok=False, detail=NO_GUILD
            )
        await _db(voice_services.mark_applied)(game_id, plan.revision)
        return
    jobs: list[Any] = []
    for user_id, seat in plan.desired.items():
        member = guild.get_member(user_id)
        if not _in_channel(member, plan.voice_channel_id) or member is None or member.voice is None:
            if announce_absent and user_id not in plan.mine:
                await _db(voice_services.journal)(
                    game_id=game_id, kind=voice_services.MUTE, seat=seat, ok=False, detail=NOT_IN_VOICE
                )
            continue
        if member.voice.mute and user_id not in plan.mine:
            continue  # a moderator's mute: not the bot's, so never lifted by it
        if (
            not member.voice.mute and (game_id, user_id) not in _in_flight
        ):  # new, or the bot's mute lifted by someone while it was away
            jobs.append(_tracked(game_id, user_id, _mute(game_id, guild.id, member, seat)))
    for user_id, seat in plan.mine.items():
        if user_id in plan.desired:
            continue
        member = guild.get_member(user_id)
        if member is None or member.voice is None or member.voice.channel is None:
            if announce_absent:
                await _db(voice_services.journal)(
                    game_id=game_id, kind=voice_services.UNMUTE, seat=seat, ok=False, detail=NOT_IN_VOICE_UNMUTE
                )
            continue
        if not member.voice.mute:  # already unmuted (by a moderator): nothing to do but forget
            await _db(voice_services.forget_mute)(game_id=game_id, user_id=user_id)
            continue
        if (game_id, user_id) not in _in_flight:
            jobs.append(_tracked(game_id, user_id, _unmute(game_id, member, seat)))
    if jobs:
        tasks = [asyncio.ensure_future(job) for job in jobs]
        _, pending = await asyncio.wait(tasks, timeout=JOBS_WAIT_SECONDS)
        for task in pending:  # waiting in a rate-limit bucket: kept alive, never sent twice
            _running.add(task)
            task.add_done_callback(_running.discard)
    await _db(voice_services.mark_applied)(game_id, plan.revision)


async def _tracked(game_id: int, user_id: int, job: Any) -> None:
    _in_flight.add((game_id, user_id))
    try:
        await job
    finally:
        _in_flight.discard((game_id, user_id))


async def _mute(game_id: int, guild_id: int, member: discord.Member, seat: int) -> None:
    await _db(voice_services.will_mute)(game_id=game_id, guild_id=guild_id, user_id=member.id, seat=seat)
    try:
        await member.edit(mute=True, reason=MUTE_REASON)
    except discord.HTTPException as exc:
        await _db(voice_services.forget_mute)(game_id=game_id, user_id=member.id)
        await _db(voice_services.journal)(
            game_id=game_id, kind=voice_services.MUTE, seat=seat, ok=False, detail=_reason(exc)
        )
        return
    await _db(voice_services.journal)(game_id=game_id, kind=voice_services.MUTE, seat=seat)


async def _unmute(game_id: int, member: discord.Member, seat: int) -> None:
    try:
        await member.edit(mute=False, reason=UNMUTE_REASON)
    except discord.HTTPException as exc:  # kept in the journal: tried again on his next voice event
        await _db(voice_services.journal)(
            game_id=game_id, kind=voice_services.UNMUTE, seat=seat, ok=False, detail=_reason(exc)
        )
        return
    await _db(voice_services.forget_mute)(game_id=game_id, user_id=member.id)
    await _db(voice_services.journal)(game_id=game_id, kind=voice_services.UNMUTE, seat=seat)


def _presence(state: discord.VoiceState) -> voice.VoicePresence:
    return voice.VoicePresence(
        channel_id=state.channel.id if state.channel is not None else None, deaf=bool(state.self_deaf or state.deaf)
    )


async def on_voice_state(
    client: discord.Client, member: discord.Member, before: discord.VoiceState, after: discord.VoiceState
) -> None:
    """A member joined, left, moved or (un)deafened: the host's alerts, then the games concerned
    are reconciled (a member joining mid-Night is muted; one the bot still has muted is unmuted)."""
    if member.bot:
        return
    try:
        from discord_bridge import silence_bot

        await silence_bot.see_profile(member)  # chore 5: a voice state carries his profile
        was, now = _presence(before), _presence(after)
        if was != now:  # the echo of a server mute (the bot's own, each time) is no alert: not looked up
            await _db(voice_services.alert)(user_id=member.id, before=was, after=now)
        channel_ids = {c.id for c in (before.channel, after.channel) if c is not None}
        game_ids = set(await _db(voice_services.games_on_voice_channel)(channel_ids)) if channel_ids else set()
        if after.channel is not None:
            game_ids |= set(await _db(voice_services.games_muting_user)(member.id))
        for game_id in sorted(game_ids):
            await reconcile_game(client, game_id)
    except Exception:  # one bad event must not stop the bot
        log.exception("voice state update of %s", member.id)


async def answer_question(message: discord.Message, *, replay: bool = False) -> bool:
    """A DM that is «фолы» or «тех»: answered here (True); anything else goes to the bridge (False)."""
    answered = await _db(voice_services.answer_question)(
        author_id=message.author.id, message_id=message.id, text=message.content or ""
    )
    if answered is None:
        return False
    text, new = answered
    if new or not replay:
        await message.channel.send(text)
    return True


# --- chore 3: the blacks' server -----------------------------------------------------------------

INVITE_MAX_AGE = 15 * 60  # seconds: short-lived; one use
INVITE_TEXT = "Ссылка на сервер вашей команды (одноразовая, 15 минут): {url}"


async def apply_invites(client: discord.Client) -> int:
    """Create and DM each pending black's invite once; after the game, revoke every code and remove
    the blacks from the server (Kick Members). Needs Create Invite on the blacks' channel."""
    work = await _db(voice_services.invite_work)()
    done = 0
    for invite in work.to_send:
        channel = client.get_channel(work.channel_ids.get(invite.game_id, 0))
        if not isinstance(channel, discord.abc.GuildChannel):
            await _db(voice_services.invite_sent)(invite.pk, error="the blacks' channel is not visible to the bot")
            continue
        try:
            created = await channel.create_invite(
                max_age=INVITE_MAX_AGE, max_uses=1, unique=True, reason="Протокол мафии: договорка"
            )
        except discord.HTTPException as exc:
            await _db(voice_services.invite_sent)(invite.pk, error=_reason(exc))
            continue
        try:
            user = client.get_user(invite.user_id) or await client.fetch_user(invite.user_id)
            await user.send(INVITE_TEXT.format(url=created.url))
        except discord.HTTPException as exc:  # never leave an invite alive that nobody got
            await _delete_invite(client, created.code)
            await _db(voice_services.invite_sent)(invite.pk, error=_reason(exc))
            continue
        await _db(voice_services.invite_sent)(invite.pk, code=created.code)
        done += 1
    for invite in work.to_revoke:
        error = ""
        if invite.code:
            error = await _delete_invite(client, invite.code)
        guild = client.get_guild(work.guild_ids.get(invite.game_id, 0))
        if guild is not None:
            try:
                member = guild.get_member(invite.user_id) or await guild.fetch_member(invite.user_id)
            except discord.NotFound:
                member = None
            except discord.HTTPException as exc:
                member, error = None, _reason(exc)
            if member is not None:
                try:
                    await member.kick(reason="Протокол мафии: игра окончена")
                except discord.HTTPException as exc:
                    error = _reason(exc)
        await _db(voice_services.invite_revoked)(invite.pk, error=error)
        done += 1
    await watch_joins(client)
    return done


JOIN_CHECK_SECONDS = 3.0
_last_join_check: dict[int, float] = {}


async def watch_joins(client: discord.Client, *, force: bool = False) -> int:
    """Who of the invited blacks is on their server now (a member lookup by id: no Server Members
    intent needed), every few seconds. Returns how many were newly seen."""
    loop = asyncio.get_running_loop()
    if not force and loop.time() - _last_join_check.get(id(client), 0.0) < JOIN_CHECK_SECONDS:
        return 0
    _last_join_check[id(client)] = loop.time()
    rows, guilds = await _db(voice_services.invites_to_watch)()
    seen = 0
    for invite in rows:
        guild = client.get_guild(guilds.get(invite.game_id, 0))
        if guild is None:
            continue
        try:
            member = guild.get_member(invite.user_id) or await guild.fetch_member(invite.user_id)
        except discord.HTTPException:  # NotFound: not joined yet
            continue
        if member is not None:
            await _db(voice_services.invite_joined)(invite.pk)
            seen += 1
    return seen


async def _delete_invite(client: discord.Client, code: str) -> str:
    try:
        await client.delete_invite(code)
    except discord.NotFound:
        return ""  # used up or expired: nothing alive
    except discord.HTTPException as exc:
        return _reason(exc)
    return ""


# --- chore 7: the vote re-check ------------------------------------------------------------------


async def apply_rechecks(client: discord.Client) -> int:
    """Read the game channel's history around each vote the host asked to re-check (line 75), in
    Discord's order, and hand it to the tally. Needs Read Message History. Returns how many."""
    from discord_bridge import recheck_services

    done = 0
    for work in await _db(recheck_services.due)():
        channel = client.get_channel(work.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            await _db(recheck_services.finish)(
                work.recheck_id, [], error="the game's text channel is not visible to the bot"
            )
            continue
        try:
            history = channel.history(
                limit=recheck_services.READ_LIMIT,
                oldest_first=True,
                after=discord.Object(id=discord.utils.time_snowflake(work.after)),
                before=discord.Object(id=discord.utils.time_snowflake(work.before, high=True)) if work.before else None,
            )
            read = [recheck_services.Read(m.id, m.author.id, m.content or "", m.created_at) async for m in history]
        except discord.HTTPException as exc:
            await _db(recheck_services.finish)(work.recheck_id, [], error=_reason(exc))
            continue
        await _db(recheck_services.finish)(work.recheck_id, read)
        done += 1
    return done


# --- chore 8: tournament round notices -----------------------------------------------------------


async def apply_round_notices(client: discord.Client) -> int:
    """DM each queued round notice or correction once (a failure is kept with Discord's reason)."""
    from discord_bridge import round_notices

    done = 0
    for notice in await _db(round_notices.due)():
        try:
            user = client.get_user(notice.user_id) or await client.fetch_user(notice.user_id)
            await user.send(notice.text)
        except discord.HTTPException as exc:
            await _db(round_notices.sent)(notice.pk, error=_reason(exc))
            continue
        await _db(round_notices.sent)(notice.pk)
        done += 1
    return done


# --- chore 3: the blacks' channel open for the договорка only ------------------------------------

MAFIA_OPEN_REASON = "Протокол мафии: договорка (минута чёрных)"
MAFIA_CLOSED_REASON = "Протокол мафии: свободная посадка или конец игры"


async def apply_mafia_channel(client: discord.Client) -> int:
    """Open the blacks' channel for writing and speaking at «договорка» and close it at «свободная
    посадка» and after the game: the @everyone overwrite of that channel (its other permissions
    kept). Needs Manage Roles (Manage Permissions) on that channel. Returns how many were set."""
    done = 0
    for work in await _db(voice_services.mafia_channel_work)():
        channel = client.get_channel(work.channel_id)
        if not isinstance(channel, discord.abc.GuildChannel):
            await _db(voice_services.mafia_channel_set)(
                work.game_id, open=work.open, error="the blacks' channel is not visible to the bot"
            )
            continue
        role = channel.guild.default_role
        overwrite = channel.overwrites_for(role)
        overwrite.update(send_messages=work.open, speak=work.open)
        try:
            await channel.set_permissions(
                role, overwrite=overwrite, reason=MAFIA_OPEN_REASON if work.open else MAFIA_CLOSED_REASON
            )
        except discord.HTTPException as exc:
            await _db(voice_services.mafia_channel_set)(work.game_id, open=work.open, error=_reason(exc))
            continue
        await _db(voice_services.mafia_channel_set)(work.game_id, open=work.open)
        done += 1
    return done


# --- chore 1: nicknames with seat numbers --------------------------------------------------------


async def apply_nicknames(client: discord.Client) -> int:
    """«N. nick» for each linked seat while the link's setting is on and the game is not over; his
    own nickname back after it (written down before the rename). Needs Manage Nicknames; Discord
    refuses it for the server's owner and for members above the bot's role (shown, not retried)."""
    done = 0
    for work in await _db(voice_services.nickname_work)():
        guild = client.get_guild(work.guild_id)
        if guild is None:
            continue
        try:
            member = guild.get_member(work.user_id) or await guild.fetch_member(work.user_id)
        except discord.HTTPException:
            continue  # not on the server: nothing to rename
        if work.seat is not None:
            nick = voice.seat_nickname(work.seat, member.display_name)
            await _db(voice_services.will_rename)(
                game_id=work.game_id,
                guild_id=guild.id,
                user_id=member.id,
                seat=work.seat,
                old_nick=member.nick,
                nick=nick,
            )
            try:
                await member.edit(nick=nick, reason="Протокол мафии: номер места")
            except discord.HTTPException as exc:
                await _db(voice_services.renamed)(game_id=work.game_id, user_id=member.id, error=_reason(exc))
                continue
            await _db(voice_services.renamed)(game_id=work.game_id, user_id=member.id)
        else:
            row = await _db(voice_services.will_restore)(game_id=work.game_id, user_id=member.id)
            if row is None:
                continue
            try:
                await member.edit(nick=row.old_nick, reason="Протокол мафии: игра окончена, ник возвращён")
            except discord.HTTPException as exc:
                await _db(voice_services.restored)(game_id=work.game_id, user_id=member.id, error=_reason(exc))
                continue
            await _db(voice_services.restored)(game_id=work.game_id, user_id=member.id)
        done += 1
    return done


OTHER_CHORES_SECONDS = 1.0  # a few queries each: once a second, not on every 100 ms poll
_last_other_chores: dict[int, float] = {}


async def apply_other_chores(client: discord.Client, *, force: bool = False) -> int:
    """The outbox loop's one call for issue 29's chores 1, 3, 5, 7 and 8 (each checks its own work),
    at most once a second: none of them is due to the 100 ms (the mute plan and the V1 line are)."""
    from discord_bridge import silence_bot

    loop = asyncio.get_running_loop()
    if not force and loop.time() - _last_other_chores.get(id(client), 0.0) < OTHER_CHORES_SECONDS:
        return 0
    _last_other_chores[id(client)] = loop.time()
    done = await apply_nicknames(client)
    done += await apply_mafia_channel(client)
    done += await silence_bot.watch_profiles(client)
    done += await apply_rechecks(client)
    done += await apply_round_notices(client)
    return done
