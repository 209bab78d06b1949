"""Issue 29's leftovers: the draw post's kind is a declared choice; the blacks' channel opens only
for the договорка; nicknames with seat numbers are set and restored (a test double for
`Member.edit(nick=…)` and `GuildChannel.set_permissions`, the bridge's path real)."""

from __future__ import annotations

import pytest

from discord_bridge import voice_services
from discord_bridge.models import ChatPost, PostKind
from games import services as game_services

from .helpers import link


@pytest.mark.django_db
def test_the_draw_post_kind_is_one_of_the_declared_choices(host, django_capture_on_commit_callbacks):
    assert voice_services.DRAW_KIND in PostKind.values
    players, seed = game_services.draw_seating([f"P{i}" for i in range(1, 11)])
    game = game_services.game_create(host=host, players=players, seating_seed=seed)
    with django_capture_on_commit_callbacks(execute=True):
        link(game)
    post = ChatPost.objects.filter(game=game, kind=voice_services.DRAW_KIND, to_user_id__isnull=True).get()
    post.full_clean()  # a kind outside the choices is refused by the model's own validation
    assert post.get_kind_display() != "draw"


# --- the harness: dpytest, with Discord's side of the permission overwrites and nicknames --------

import discord  # noqa: E402
import discord.ext.test as dpytest  # noqa: E402
import pytest_asyncio  # noqa: E402
from asgiref.sync import sync_to_async  # noqa: E402

from discord_bridge import bot as bot_module  # noqa: E402
from discord_bridge import voice_bot  # noqa: E402
from discord_bridge.models import SeatNickname, SilenceEvent, VoiceJournal  # noqa: E402

from .helpers import ROLES, harness_intents, prove  # noqa: E402


@pytest_asyncio.fixture
async def harness(monkeypatch):
    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    dpytest.configure(client, members=12, text_channels=2)
    config = dpytest.get_config()
    overwrites: list[tuple[int, int, dict]] = []
    renames: list[tuple[int, str | None]] = []

    async def set_permissions(channel, target, *, overwrite=None, reason=None, **kwargs):
        overwrites.append((channel.id, target.id, dict(iter(overwrite)) if overwrite is not None else {}))

    async def edit(member, *, nick=discord.utils.MISSING, reason=None, **kwargs):
        if nick is discord.utils.MISSING:
            raise AssertionError(f"unexpected edit {kwargs}")
        if member.id == config.members[7].id:  # seat 8 owns the server: Discord refuses (50013)
            raise discord.HTTPException(
                FakeResponse(403, "Forbidden"), {"code": 50013, "message": "Missing Permissions"}
            )
        renames.append((member.id, nick))
        # Discord answers with a GUILD_MEMBER_UPDATE: through discord.py's parser.
        data = dpytest.backend.facts.dict_from_member(member)
        data["nick"] = nick
        dpytest.backend.get_state().parse_guild_member_update(data)
        return member

    monkeypatch.setattr(discord.abc.GuildChannel, "set_permissions", set_permissions)
    monkeypatch.setattr(discord.Member, "edit", edit)
    yield config, overwrites, renames
    await dpytest.empty_queue()


class FakeResponse:
    def __init__(self, status: int, reason: str) -> None:
        self.status, self.reason = status, reason


def seats_of(config, seats=range(1, 11)) -> dict[str, str]:
    return {str(seat): str(config.members[seat - 1].id) for seat in seats}


@sync_to_async
def linked_game(host, config, **settings):
    from discord_bridge import services

    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    prove(
        services.link_save(
            game=game,
            guild_id=config.guilds[0].id,
            text_channel_id=None,
            voice_channel_id=None,
            webhook_url="",
            seats=seats_of(config),
        )
    )  # proven as the bot proves them (issue 25-8)
    voice_services.save_settings(
        game=game, mute_enabled=True, unmute_on_tech_pause=True, alerts_enabled=True, **settings
    )
    return game


@sync_to_async
def act(game, action, host):
    game.refresh_from_db()
    return game_services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)


# --- chore 3: the blacks' channel opens for the договорка only --------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_blacks_channel_opens_at_the_dogovorka_and_closes_at_free_seating_and_after_the_game(harness, host):
    config, overwrites, _ = harness
    guild = config.guilds[0]
    mafia_channel = guild.text_channels[1]
    game = await linked_game(host, config, mafia_guild_id=guild.id, mafia_channel_id=mafia_channel.id)
    await act(game, ROLES, host)
    assert await voice_bot.apply_mafia_channel(config.client) == 0  # setup: nothing to open yet
    await act(game, {"do": "start"}, host)  # «у Мафии минута на договорку» (line 37)
    assert await voice_bot.apply_mafia_channel(config.client) == 1
    assert overwrites == [
        (
            mafia_channel.id,
            guild.default_role.id,
            {**dict(iter(discord.PermissionOverwrite())), "send_messages": True, "speak": True},
        )
    ]
    assert await voice_bot.apply_mafia_channel(config.client) == 0  # applied once
    await act(game, {"do": "next"}, host)  # «Свободная посадка» (line 41): closed
    assert await voice_bot.apply_mafia_channel(config.client) == 1
    assert overwrites[-1][2]["send_messages"] is False and overwrites[-1][2]["speak"] is False
    await act(game, {"do": "annul"}, host)
    assert await voice_bot.apply_mafia_channel(config.client) == 0  # already closed
    kinds = await sync_to_async(
        lambda: list(
            VoiceJournal.objects.filter(game=game, kind__startswith="mafia_")
            .order_by("at", "pk")
            .values_list("kind", "ok")
        )
    )()
    assert kinds == [("mafia_open", True), ("mafia_closed", True)]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_game_ended_during_the_dogovorka_closes_the_blacks_channel(harness, host):
    config, overwrites, _ = harness
    guild = config.guilds[0]
    game = await linked_game(host, config, mafia_guild_id=guild.id, mafia_channel_id=guild.text_channels[1].id)
    await act(game, ROLES, host)
    await act(game, {"do": "start"}, host)
    await voice_bot.apply_mafia_channel(config.client)
    await act(game, {"do": "annul"}, host)
    assert await voice_bot.apply_mafia_channel(config.client) == 1
    assert overwrites[-1][2]["send_messages"] is False


# --- chore 1: nicknames with seat numbers, restored after the game ---------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_seat_numbers_in_nicknames_are_set_by_the_link_setting_and_restored_after_the_game(harness, host):
    config, _, renames = harness
    members = config.members
    dpytest.backend.update_member(members[1], nick="Бриз")  # seat 2 has a nickname of his own
    data = dpytest.backend.facts.dict_from_member(members[2])
    data["nick"] = None  # seat 3 has none (his account's name shows)
    dpytest.backend.get_state().parse_guild_member_update(data)
    await dpytest.run_all_events()
    own = {m.id: m.nick for m in members}
    names = {m.id: m.display_name for m in members}
    game = await linked_game(host, config)
    await act(game, ROLES, host)
    await act(game, {"do": "start"}, host)
    assert await voice_bot.apply_nicknames(config.client) == 0  # off by default
    await sync_to_async(voice_services.save_settings)(
        game=game, mute_enabled=True, unmute_on_tech_pause=True, alerts_enabled=True, seat_nicknames=True
    )
    assert await voice_bot.apply_nicknames(config.client) == 9  # seat 8 is the server's owner: refused
    await dpytest.run_all_events()
    assert dict(renames)[members[1].id] == "2. Бриз"
    assert dict(renames)[members[0].id] == f"1. {names[members[0].id]}"
    failed = await sync_to_async(
        lambda: list(VoiceJournal.objects.filter(game=game, ok=False).values_list("kind", "seat", "detail"))
    )()
    assert failed and failed[0][:2] == ("nick", 8) and "50013" in failed[0][2]
    assert await voice_bot.apply_nicknames(config.client) == 0  # once, and the refused one not hammered
    # The bot's own renames (Discord's member updates for them) are no player's profile change (chore 5).
    assert not await sync_to_async(SilenceEvent.objects.filter(game=game).exists)()
    renames.clear()
    # The host turns the setting off mid-game: their own nicknames back, and that is no violation either.
    await sync_to_async(voice_services.save_settings)(
        game=game, mute_enabled=True, unmute_on_tech_pause=True, alerts_enabled=True, seat_nicknames=False
    )
    assert await voice_bot.apply_nicknames(config.client) == 9
    await dpytest.run_all_events()
    assert dict(renames)[members[1].id] == "Бриз" and dict(renames)[members[0].id] == own[members[0].id]
    assert dict(renames)[members[2].id] is None  # he had none: none again
    assert not await sync_to_async(SilenceEvent.objects.filter(game=game).exists)()
    assert (
        await sync_to_async(
            SeatNickname.objects.filter(game=game, restored_at__isnull=True, set_at__isnull=False).count
        )()
        == 0
    )
    await act(game, {"do": "annul"}, host)
    assert await voice_bot.apply_nicknames(config.client) == 0  # nothing left to restore


@pytest.mark.django_db
def test_the_strip_names_each_failure_by_its_chore_and_saves_the_nickname_setting(client, host):
    from django.urls import reverse

    from discord_bridge.models import VoiceControl

    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    link(game)
    voice_services.journal(
        game_id=game.pk, kind="invite", seat=4, ok=False, detail="Discord 403/50007: Cannot send messages to this user"
    )
    voice_services.journal(
        game_id=game.pk, kind="nick", seat=8, ok=False, detail="Discord 403/50013: Missing Permissions"
    )
    voice_services.journal(game_id=game.pk, kind="mafia_open", seat=None)
    client.force_login(host)
    html = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert "№4: приглашение не отправлено — Discord 403/50007" in html and "мут не снят" not in html
    assert "№8: ник не изменён — Discord 403/50013" in html
    assert 'data-mafia-channel="mafia_open"' in html
    client.post(
        reverse("discord:voice_settings", args=[game.pk]),
        {"settings": "1", "mute_enabled": "on", "seat_nicknames": "on"},
    )
    assert VoiceControl.objects.get(game=game).seat_nicknames
