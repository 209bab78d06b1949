"""Issue 29, chore 5 (lines 13, 25, 59): chat and profile silence.

A seated player's message in the game's text channel outside the vote, his reaction, and his
nickname or avatar change during the game are shown to the host as possible violations, each with
a one-key foul proposal — never a foul by itself. dpytest carries the messages, reactions and
member updates through discord.py's own parsers (messages get snowflakes of their real time, as
Discord's have); the bridge's path is the real one, from the bot's event handlers to the panel.
"""

from __future__ import annotations

from datetime import datetime

import discord
import discord.ext.test as dpytest
import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from discord_bridge import bot as bot_module
from discord_bridge import services
from discord_bridge.models import SilenceEvent
from games import reading as game_reading
from games import services as game_services
from games.models import GameAction

from .helpers import ROLES, harness_intents, prove


@pytest_asyncio.fixture
async def harness():
    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    dpytest.configure(client, members=12, text_channels=2)
    config = dpytest.get_config()
    yield config
    await dpytest.empty_queue()


def seats_of(config) -> dict[str, str]:
    return {str(seat): str(config.members[seat - 1].id) for seat in range(1, 11)}


@sync_to_async
def linked_game(host, config):
    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    prove(
        services.link_save(
            game=game,
            guild_id=config.guilds[0].id,
            text_channel_id=config.guilds[0].text_channels[0].id,
            voice_channel_id=None,
            webhook_url="",
            seats=seats_of(config),
        )
    )  # proven as the bot proves them (issue 25-8)
    return game


@sync_to_async
def act(game, action, host):
    game.refresh_from_db()
    return game_services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)


@sync_to_async
def step_of(game):
    game.refresh_from_db()
    return game_reading.game_state(game).step


async def to_step(game, host, step):
    while await step_of(game) != step:
        await act(game, {"do": "next"}, host)


async def say(member, channel, text, at: datetime | None = None):
    """A message as Discord sends it: its id is a snowflake of the moment it was sent."""
    message = dpytest.backend.make_message(
        text, member, channel, id_num=discord.utils.time_snowflake(at or timezone.now())
    )
    await dpytest.run_all_events()
    return message


async def react(member, message, emoji):
    """MESSAGE_REACTION_ADD through discord.py's parser (dpytest's own payload lacks discord.py 2.7's
    `type` field)."""
    dpytest.backend.get_state().parse_message_reaction_add(
        {
            "message_id": str(message.id),
            "channel_id": str(message.channel.id),
            "guild_id": str(message.guild.id),
            "user_id": str(member.id),
            "emoji": {"id": None, "name": emoji},
            "type": 0,
            "burst": False,
            "member": dpytest.backend.facts.dict_from_member(member),
        }
    )
    await dpytest.run_all_events()


def fouls_of(game, seat):
    game.refresh_from_db()
    return game_reading.game_state(game).fouls.get(seat, 0)


def events(game):
    return list(SilenceEvent.objects.filter(game=game).order_by("at", "pk").values_list("kind", "seat"))


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_chat_reactions_and_profile_changes_of_seated_players_are_shown_never_recorded(harness, host):
    config = harness
    members = config.members
    channel = config.guilds[0].text_channels[0]
    other_channel = config.guilds[0].text_channels[1]
    game = await linked_game(host, config)
    await say(members[2], channel, "всем привет")  # before the game: not a game phase
    await act(game, ROLES, host)
    await act(game, {"do": "start"}, host)
    await to_step(game, host, "speech")
    seq = (await sync_to_async(lambda: (game.refresh_from_db(), game.seq))())[1]

    said = await say(members[2], channel, "5 красный")  # №3 writes in the game's chat (line 13)
    await say(members[10], channel, "ведущий пишет")  # the host: no seat
    await say(members[11], channel, "зритель")  # a spectator: no seat
    await say(members[4], other_channel, "в другом канале")  # not the game's chat
    await react(members[6], said, "👍")  # №7 reacts
    dpytest.backend.update_member(members[8], nick="Девятый-шериф")  # №9 changes his nickname (line 25)
    await dpytest.run_all_events()
    assert await sync_to_async(events)(game) == [("chat", 3), ("reaction", 7), ("nick", 9)]
    # Information only: nothing was recorded.
    assert (await sync_to_async(lambda: (game.refresh_from_db(), game.seq))())[1] == seq

    # The same facts again (a RESUME replays them): shown once.
    await bot_module.handle_message(config.client, said, replay=True)
    assert len(await sync_to_async(events)(game)) == 3

    # №5 changes his server avatar: shown too.
    data = dpytest.backend.facts.dict_from_member(members[4])
    data["avatar"] = "a" * 32
    dpytest.backend.get_state().parse_guild_member_update(data)
    await dpytest.run_all_events()
    assert (await sync_to_async(events)(game))[-1] == ("avatar", 5)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_votes_own_chat_is_the_votes_and_the_game_over_is_silence_no_more(harness, host):
    from .helpers import game_at_voting

    config = harness
    members = config.members
    channel = config.guilds[0].text_channels[0]

    @sync_to_async
    def voting_game():
        game = game_at_voting(host)
        prove(
            services.link_save(
                game=game,
                guild_id=config.guilds[0].id,
                text_channel_id=channel.id,
                voice_channel_id=None,
                webhook_url="",
                seats=seats_of(config),
            )
        )  # proven as the bot proves them (issue 25-8)
        return game

    game = await voting_game()
    await say(members[0], channel, "+")  # a «+» in the vote: the vote's (V1), not a chat violation
    await say(members[1], channel, "за 5")  # in the vote step the bridge's V1 marks judge it
    assert await sync_to_async(events)(game) == []
    await act(game, {"do": "annul"}, host)
    await say(members[2], channel, "gg")  # the game is over
    assert await sync_to_async(events)(game) == []


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_strip_offers_one_key_foul_and_records_it_once(harness, host):
    config = harness
    members = config.members
    channel = config.guilds[0].text_channels[0]
    game = await linked_game(host, config)
    await act(game, ROLES, host)
    await act(game, {"do": "start"}, host)
    await to_step(game, host, "speech")
    await say(members[3], channel, "я мирный")
    await say(members[5], channel, "ок")
    web = Client()
    await sync_to_async(web.force_login)(host)
    html = (await sync_to_async(web.get)(reverse("discord:panel", args=[game.pk]))).content.decode()
    assert "№4 написал в чат" in html and "«я мирный»" in html and 'data-silence-foul="4"' in html
    event = await sync_to_async(SilenceEvent.objects.get)(game=game, seat=4)
    seq = (await sync_to_async(lambda: (game.refresh_from_db(), game.seq))())[1]
    url = reverse("discord:silence_foul", args=[game.pk, event.pk])
    response = await sync_to_async(web.post)(url, {"expected_seq": seq})
    assert response.status_code == 200
    foul = await sync_to_async(lambda: GameAction.objects.filter(game=game).order_by("-seq").first().payload)()
    assert foul["do"] == "foul" and foul["seat"] == 4 and "чат" in foul["reason"]
    assert await sync_to_async(fouls_of)(game, 4) == 1
    # Pressed again (a double click, a stale page): never a second foul.
    again = await sync_to_async(web.post)(url, {"expected_seq": seq + 1})
    assert again.status_code == 409
    assert await sync_to_async(fouls_of)(game, 4) == 1
    # The other one the host dismisses: no foul, gone from the strip.
    other = await sync_to_async(SilenceEvent.objects.get)(game=game, seat=6)
    await sync_to_async(web.post)(reverse("discord:silence_dismiss", args=[game.pk, other.pk]))
    html = (await sync_to_async(web.get)(reverse("discord:panel", args=[game.pk]))).content.decode()
    assert 'data-silence-foul="6"' not in html and 'data-silence-foul="4"' not in html
    assert await sync_to_async(fouls_of)(game, 6) == 0


@pytest.mark.django_db
def test_only_the_games_host_sees_and_presses_the_silence_proposals(client, host, other_user):
    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    event = SilenceEvent.objects.create(
        game=game, kind="chat", seat=2, user_id=1, at=timezone.now(), key="chat:1", detail="секрет"
    )
    client.force_login(other_user)
    assert (
        client.post(reverse("discord:silence_foul", args=[game.pk, event.pk]), {"expected_seq": game.seq}).status_code
        == 403
    )
    client.logout()
    assert client.post(reverse("discord:silence_dismiss", args=[game.pk, event.pk])).status_code in (302, 403)
    event.refresh_from_db()
    assert event.is_open
