"""Issue 25-8, links that are proven: a member counts for a seat only once the bot saw him in the
game's (proven) voice channel or he said «да» to its DM; a channel only once the bot found the
host's own Discord account sees it, or the tournament's organizer set it. Driven by dpytest."""

import discord
import discord.ext.test as dpytest
import discord.ext.test.factories as dpytest_facts
import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async

from discord_bridge import bot as bot_module
from discord_bridge import services
from discord_bridge.models import ChatPost, DiscordLink, Proposal
from players.models import Player

from .helpers import game_at_mafia_shot, game_at_voting, harness_intents

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest_asyncio.fixture
async def bot():
    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    # Members 0..9: the victim game's players; 10: the victim's host; 11: the attacker.
    dpytest.configure(client, members=12, voice_channels=1)
    yield client
    if client._background is not None:
        client._background.cancel()
    await dpytest.empty_queue()


def config():
    return dpytest.get_config()


async def dm(text, member):
    return await dpytest.message(text, channel=await member.create_dm(), member=member)


@sync_to_async
def discord_account(user, member_id):
    """The host's own Discord id, as his player profile names it."""
    Player.objects.create(nickname=f"host-{user.pk}", user=user, discord_user_id=str(member_id))


@sync_to_async
def save_link(game, *, text=None, voice=None, seats=None, by=None):
    extra = {"by": by} if by is not None else {}
    return services.link_save(
        game=game,
        guild_id=config().guilds[0].id,
        text_channel_id=text,
        voice_channel_id=voice,
        webhook_url="",
        seats=seats or {},
        **extra,
    )


@sync_to_async
def fetch_link(game):
    return DiscordLink.objects.get(game=game)


@sync_to_async
def proposals_of(game):
    return list(Proposal.objects.filter(game=game))


def hide_channel_from(client, channel, member):
    """A CHANNEL_UPDATE as Discord sends it: a member overwrite (type 1) denying View Channel."""
    data = dpytest_facts.dict_from_channel(channel)
    deny = discord.Permissions(view_channel=True, send_messages=True).value
    data["permission_overwrites"] = [{"id": str(member.id), "type": 1, "allow": "0", "deny": str(deny)}]
    client._connection.parse_channel_update(data)


def players(n=10):
    return {str(i + 1): str(m.id) for i, m in enumerate(config().members[:n])}


async def test_a_hostile_host_who_saves_another_games_public_ids_receives_nothing(bot, host, django_user_model):
    """Finding 8 as a hostile host plays it: he types the victims' public ids (server, channel,
    members) into his own game. His Discord account does not see the channel: nothing of the
    players reaches his panel, the bot posts nothing there in his name, and each player is asked."""
    attacker = await sync_to_async(django_user_model.objects.create_user)("attacker", password="x")
    channel = config().channels[0]
    hide_channel_from(bot, channel, config().members[11])
    await discord_account(attacker, config().members[11].id)
    game = await sync_to_async(game_at_voting)(attacker)
    await save_link(game, text=channel.id, seats=players())

    # A Don's shot and a «+» of the victims: routed to no game (before: the attacker's panel,
    # with «принято: 5» to the Don).
    ms = config().members
    await dm("5", ms[0])
    reply = dpytest.get_message()
    assert reply.content.startswith("Сначала подтвердите место. Вы — №1 в игре")
    await dpytest.message("+", channel=channel, member=ms[3])
    assert await proposals_of(game) == []

    assert await bot_module.check_channels(bot) == 1
    link = await fetch_link(game)
    assert not link.text_proven and "нет доступа" in link.channels_problem

    # The line he asks for is not posted into a channel he does not see.
    await sync_to_async(services.vote_count_start)(game=game)
    await sync_to_async(ChatPost.objects.filter(game=game).update)(due_at=services.timezone.now())
    assert await bot_module.deliver_due_posts(bot) == 0
    post = await sync_to_async(ChatPost.objects.get)(game=game, kind="line")
    assert post.state == "failed" and "not proven" in post.last_error
    assert dpytest.sent_queue.empty()

    # Each player is asked by DM; one who says «нет» is unlinked, and the host sees it.
    assert await bot_module.ask_pending(bot) == 10
    questions = [dpytest.get_message() for _ in range(10)]
    assert questions[0].content.startswith("Вы — №1 в игре") and questions[0].content.endswith(
        "Ответьте «да» или «нет»."
    )
    assert await bot_module.ask_pending(bot) == 0  # asked once
    await dm("нет", ms[0])
    assert "не привязаны" in dpytest.get_message().content
    link = await fetch_link(game)
    assert "1" not in link.seats and link.proven_seat_map().by_seat == {}


async def test_a_member_who_says_yes_is_proven_and_only_then_his_dms_count(bot, host):
    ms = config().members
    await discord_account(host, ms[10].id)
    game = await sync_to_async(game_at_mafia_shot)(host)
    await save_link(game, text=config().channels[0].id, seats=players())
    await bot_module.check_channels(bot)
    assert (await fetch_link(game)).text_proven  # the host's account sees and may write in it

    await dm("5", ms[3])  # seat 4 (mafia): pending, so not a shot
    assert dpytest.get_message().content.startswith("Сначала подтвердите место. Вы — №4 в игре")
    assert await proposals_of(game) == []
    await dm("Да", ms[3])
    assert dpytest.get_message().content.startswith("Подтверждено: вы — №4 в игре")
    link = await fetch_link(game)
    assert link.proven_seat_map().by_seat == {4: ms[3].id} and link.pending_seats() == [1, 2, 3, 5, 6, 7, 8, 9, 10]
    await dm("5", ms[3])
    assert dpytest.get_message().content == "принято: 5"
    [proposal] = await proposals_of(game)
    assert (proposal.seat, proposal.kind, proposal.target, proposal.status) == (4, "shot", 5, "ok")


async def test_a_member_seen_in_the_games_proven_voice_channel_is_proven(bot, host):
    from .test_voice import gateway_voice_event

    ms = config().members
    guild, voice = config().guilds[0], config().guilds[0].voice_channels[0]
    await discord_account(host, ms[10].id)
    game = await sync_to_async(game_at_mafia_shot)(host)
    await save_link(game, voice=voice.id, seats=players())
    await gateway_voice_event(bot, guild, ms[2], voice.id)
    # The voice channel is not proven yet: being in it proves nothing.
    assert (await fetch_link(game)).proven_seat_map().by_seat == {}
    await bot_module.check_channels(bot)
    link = await fetch_link(game)
    assert link.channel_proof("voice") == "bot"
    assert link.proven_seat_map().by_seat == {3: ms[2].id}  # the snapshot the bot already took
    await gateway_voice_event(bot, guild, ms[6], voice.id)
    assert (await fetch_link(game)).proven_seat_map().by_seat == {3: ms[2].id, 7: ms[6].id}
    assert (await fetch_link(game)).seat_proofs["7"]["by"] == "voice"


async def test_the_host_must_be_on_the_server_and_relinking_a_seat_voids_its_proof(bot, host, monkeypatch):
    ms = config().members

    async def unknown_member(self, member_id):
        # Discord answers GET /guilds/{id}/members/{user} for a non-member with 404 Unknown
        # Member; dpytest's backend fails on it with an AttributeError instead.
        raise discord.NotFound(
            type("Response", (), {"status": 404, "reason": "Not Found"})(), {"code": 10007, "message": "Unknown Member"}
        )

    monkeypatch.setattr(discord.Guild, "fetch_member", unknown_member)
    await discord_account(host, 999_000_000_000_000_001)  # not a member of the server
    game = await sync_to_async(game_at_mafia_shot)(host)
    await save_link(game, text=config().channels[0].id, seats={"4": str(ms[3].id)})
    await bot_module.check_channels(bot)
    link = await fetch_link(game)
    assert not link.text_proven and link.channels_problem == "ведущий (его Discord id) не участник этого сервера"

    await dm("да", ms[3])
    dpytest.get_message()
    assert (await fetch_link(game)).proven_seat_map().by_seat == {4: ms[3].id}
    # The host puts someone else at seat 4, then back: the «да» was the first member's, for that link.
    await save_link(game, text=config().channels[0].id, seats={"4": str(ms[5].id)})
    assert (await fetch_link(game)).proven_seat_map().by_seat == {}
    await save_link(game, text=config().channels[0].id, seats={"4": str(ms[3].id)})
    assert (await fetch_link(game)).pending_seats() == [4]
