"""Seats picked from the voice channel's members: the bot's snapshot, the pure name matching, the host's form."""

from datetime import timedelta

import discord.ext.test as dpytest
import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from django.urls import reverse
from django.utils import timezone

from discord_bridge import bot as bot_module
from discord_bridge import core, services
from discord_bridge.models import DiscordLink, VoiceSnapshot
from games import reading as game_reading

from .helpers import game_at_mafia_shot, harness_intents, link, user_id
from .voice_harness import voice_state_payload

# --- the pure matching -------------------------------------------------------------------

M = core.VoiceMember


def test_name_key_ignores_case_yo_and_spacing():
    assert core.name_key("  Ёжик  в Тумане ") == core.name_key("ежик В тумане") == "ежик в тумане"
    assert core.name_key("Alice") != core.name_key("Alicia")


def test_match_pairs_seats_with_members_by_display_name():
    nicknames = {1: "Алёна", 2: "bob", 3: "Nobody Here"}
    members = [M(101, "АЛЕНА"), M(102, "Bob"), M(103, "Carol")]
    assert core.match_seats_to_members(nicknames, members) == {1: 101, 2: 102}


def test_an_ambiguous_name_preselects_nobody():
    # Two members called «Bob»: the host picks; two seats called «Eve»: neither is guessed.
    assert core.match_seats_to_members({1: "Bob"}, [M(1, "bob"), M(2, "BOB")]) == {}
    assert core.match_seats_to_members({1: "Eve", 2: "eve"}, [M(3, "Eve")]) == {}
    assert core.match_seats_to_members({1: ""}, [M(3, "")]) == {}


# --- the bot's snapshot (dpytest) ----------------------------------------------------------


@pytest_asyncio.fixture
async def bot():
    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    dpytest.configure(client, members=3, voice_channels=1)
    yield client
    if client._background is not None:
        client._background.cancel()
    await dpytest.empty_queue()


async def gateway_voice_event(client, guild, member, channel_id):
    """Feed the event through discord.py's own parser and let its dispatched handler run."""
    client._connection.parse_voice_state_update(voice_state_payload(guild, member, channel_id))
    await dpytest.run_all_events()  # awaits the dispatched on_voice_state_update
    return await sync_to_async(VoiceSnapshot.objects.first)()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_member_joining_the_linked_voice_channel_is_in_the_snapshot(bot, host):
    config = dpytest.get_config()
    guild, voice = config.guilds[0], config.guilds[0].voice_channels[0]
    alice, bob, _ = config.members

    @sync_to_async
    def linked():
        game = game_at_mafia_shot(host)
        services.link_save(
            game=game, guild_id=guild.id, text_channel_id=None, voice_channel_id=voice.id, webhook_url="", seats={}
        )
        return game

    await linked()
    snapshot = await gateway_voice_event(bot, guild, alice, voice.id)
    assert snapshot is not None and snapshot.voice_channel_id == voice.id
    assert snapshot.members == [{"id": str(alice.id), "name": alice.display_name}]
    assert timezone.now() - snapshot.taken_at < timedelta(seconds=30)

    # A second joins; then the first leaves: the snapshot follows the channel.
    await gateway_voice_event(bot, guild, bob, voice.id)
    ids = {m["id"] for m in (await sync_to_async(VoiceSnapshot.objects.get)(voice_channel_id=voice.id)).members}
    assert ids == {str(alice.id), str(bob.id)}
    await gateway_voice_event(bot, guild, alice, None)
    ids = {m["id"] for m in (await sync_to_async(VoiceSnapshot.objects.get)(voice_channel_id=voice.id)).members}
    assert ids == {str(bob.id)}


@pytest.mark.django_db
def test_a_voice_channel_no_live_game_links_is_not_kept(host):
    assert services.save_voice_snapshot(voice_channel_id=999, members=[M(1, "x")]) is None
    game = game_at_mafia_shot(host)
    link(game)  # voice channel 556
    assert services.save_voice_snapshot(voice_channel_id=556, members=[M(user_id(1), "P1")]) is not None
    assert VoiceSnapshot.objects.count() == 1


# --- the host's settings form ------------------------------------------------------------------


@pytest.fixture
def voiced(host):
    """A game linked to voice channel 556 with no seats yet; the bot saw three members there."""
    game = game_at_mafia_shot(host)
    services.link_save(game=game, guild_id=1, text_channel_id=555, voice_channel_id=556, webhook_url="", seats={})
    services.save_voice_snapshot(
        voice_channel_id=556, members=[M(user_id(1), "p1"), M(user_id(2), "Zed"), M(user_id(3), "P3")]
    )
    return game


@pytest.mark.django_db
def test_settings_show_the_voice_members_preselected_by_nickname_to_the_host(client, host, voiced):
    client.force_login(host)
    html = client.get(reverse("discord:panel", args=[voiced.pk])).content.decode()
    assert 'name="seat_pick_1"' in html and "Zed" in html
    assert f'<option value="{user_id(1)}" selected>p1</option>' in html  # seat 1 is «P1»
    assert f'<option value="{user_id(3)}" selected>P3</option>' in html
    assert f'<option value="{user_id(2)}" selected>' not in html  # «Zed» is nobody's nickname
    assert "data-voice-missing" not in html


@pytest.mark.django_db
def test_the_voice_members_are_the_hosts_only(client, host, other_user, voiced):
    client.force_login(other_user)
    response = client.get(reverse("discord:panel", args=[voiced.pk]))
    assert response.status_code == 403 and b"Zed" not in response.content
    assert (
        client.post(reverse("discord:settings", args=[voiced.pk]), {"seat_pick_2": str(user_id(2))}).status_code == 403
    )
    assert DiscordLink.objects.get(game=voiced).seats == {}
    client.logout()
    assert b"Zed" not in client.get(reverse("discord:panel", args=[voiced.pk])).content


@pytest.mark.django_db
def test_saving_a_pick_links_the_seat_and_a_pick_wins_over_the_typed_id(client, host, voiced):
    client.force_login(host)
    data = {
        "voice_channel_id": "556",
        "seat_pick_2": str(user_id(2)),
        "seat_pick_5": str(user_id(3)),
        "seat_5": str(user_id(9)),
        "seat_6": f"<@{user_id(6)}>",
    }
    response = client.post(reverse("discord:settings", args=[voiced.pk]), data)
    assert response.status_code == 200, response.content.decode()
    assert DiscordLink.objects.get(game=voiced).seats == {
        "2": str(user_id(2)),
        "5": str(user_id(3)),
        "6": str(user_id(6)),
    }
    # The linked member is pre-selected next time.
    html = client.get(reverse("discord:panel", args=[voiced.pk])).content.decode()
    assert f'<option value="{user_id(2)}" selected>Zed</option>' in html


@pytest.mark.django_db
def test_one_member_picked_for_two_seats_is_refused_and_changes_nothing(client, host, voiced):
    client.force_login(host)
    data = {"voice_channel_id": "556", "seat_pick_1": str(user_id(2)), "seat_pick_2": str(user_id(2))}
    response = client.post(reverse("discord:settings", args=[voiced.pk]), data)
    assert response.status_code == 422
    assert DiscordLink.objects.get(game=voiced).seats == {}


@pytest.mark.django_db
def test_without_a_snapshot_the_panel_says_so_and_keeps_the_manual_fields(client, host):
    game = game_at_mafia_shot(host)
    link(game)
    client.force_login(host)
    html = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert "data-voice-missing" in html and "seat_pick_" not in html
    assert f'name="seat_1" value="{user_id(1)}"' in html


@pytest.mark.django_db
def test_a_finished_game_no_longer_collects_its_voice_channel(host, voiced):
    assert services.linked_voice_channels() == {556}
    game_reading.game_state(voiced)  # sanity: the game is live
    voiced.status = "finished"
    voiced.save(update_fields=["status"])
    assert services.linked_voice_channels() == set()
