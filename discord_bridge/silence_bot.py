"""Chore 5 of issue 29 at discord.py's edge: messages, reactions and profile changes of seated
players (discord_bridge.silence_services turns them into the host's possible violations).

Without the Server Members intent Discord sends no member updates: the bot then sees a profile in
the members that voice states and messages carry, and looks the seated members up by id every
PROFILE_CHECK_SECONDS (a REST call per seated member, well inside the rate limits). With the
intent (a club may enable it), on_member_update and on_user_update report a change at once."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from asgiref.sync import sync_to_async

from discord_bridge import silence_services

log = logging.getLogger(__name__)

PROFILE_CHECK_SECONDS = 10.0
_last_profile_check: dict[int, float] = {}


def _db(fn: Any) -> Any:
    return sync_to_async(fn)


def _profile(member: discord.Member | discord.User) -> tuple[str, str]:
    return member.display_name, member.display_avatar.key


async def see_profile(member: discord.Member | discord.User) -> None:
    if member.bot:
        return
    name, avatar = _profile(member)
    await _db(silence_services.profile_seen)(user_id=member.id, name=name, avatar=avatar)


async def on_message(message: discord.Message) -> None:
    """A guild message (bot.handle_message, after the bridge's own reading of it)."""
    try:
        await _db(silence_services.chat_seen)(
            channel_id=message.channel.id,
            message_id=message.id,
            author_id=message.author.id,
            text=message.content or "",
            sent_at=message.created_at,
        )
        if isinstance(message.author, discord.Member):
            await see_profile(message.author)
    except Exception:  # one bad event must not stop the bot
        log.exception("silence check of message %s", message.id)


async def on_reaction(payload: discord.RawReactionActionEvent) -> None:
    if payload.guild_id is None or (payload.member is not None and payload.member.bot):
        return
    try:
        await _db(silence_services.reaction_seen)(
            channel_id=payload.channel_id,
            message_id=payload.message_id,
            user_id=payload.user_id,
            emoji=str(payload.emoji),
        )
    except Exception:
        log.exception("silence check of a reaction on %s", payload.message_id)


async def on_member_update(before: discord.Member | discord.User, after: discord.Member | discord.User) -> None:
    try:
        await see_profile(before)  # the baseline, if the game had not seen him yet
        await see_profile(after)
    except Exception:
        log.exception("silence check of a profile update of %s", after.id)


async def watch_profiles(client: discord.Client, *, force: bool = False) -> int:
    """Look the running games' seated members up by id (no Server Members intent needed)."""
    loop = asyncio.get_running_loop()
    if not force and loop.time() - _last_profile_check.get(id(client), 0.0) < PROFILE_CHECK_SECONDS:
        return 0
    _last_profile_check[id(client)] = loop.time()
    seen = 0
    for guild_id, user_ids in (await _db(silence_services.seated_members)()).items():
        guild = client.get_guild(guild_id)
        if guild is None:
            continue
        for user_id in user_ids:
            try:
                member = await guild.fetch_member(user_id)
            except discord.HTTPException:  # not on the server (yet): nothing to compare
                continue
            await see_profile(member)
            seen += 1
    return seen
