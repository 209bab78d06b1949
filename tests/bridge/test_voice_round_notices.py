"""Issue 29, chore 8: a tournament round's seating, once published, reaches each linked participant
by DM — his table, seat, host and start time; a change of seating sends a correction to those it
concerns, and nothing when nothing changed. The DMs go through the bot's delivery on dpytest."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import discord.ext.test as dpytest
import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from discord_bridge import bot as bot_module
from discord_bridge import round_notices, voice_bot
from discord_bridge.models import RoundNotice
from players.names import player_create
from tournaments import services as tournament_services
from tournaments.models import TableSeat

from .helpers import harness_intents

MSK = ZoneInfo("Europe/Moscow")


@pytest_asyncio.fixture
async def harness():
    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    dpytest.configure(client, members=12)
    yield dpytest.get_config()
    await dpytest.empty_queue()


def dms() -> dict[int, list[str]]:
    """The DMs the bot sent, by recipient (dpytest's DM channel names no recipient: its id does)."""
    by_channel = {m.dm_channel.id: m.id for m in dpytest.get_config().members if m.dm_channel is not None}
    out: dict[int, list[str]] = {}
    while not dpytest.sent_queue.empty():
        message = dpytest.get_message()
        out.setdefault(by_channel[message.channel.id], []).append(message.content)
    return out


@sync_to_async
def seated_round(organizer, host, members):
    t = tournament_services.tournament_create(name="Кубок", organizer=organizer)
    tournament_services.participants_add(tournament=t, entries=[f"Игрок{i}" for i in range(1, 12)])
    for i, participant in enumerate(t.participants.order_by("pk")):
        # Ten of them linked to Discord (their player's id); the eleventh has none.
        discord_id = str(members[i].id) if i < 10 else ""
        participant.player = player_create(nickname=participant.nickname, discord_user_id=discord_id)
        participant.save(update_fields=["player"])
    stage = tournament_services.stage_create(tournament=t)
    tournament_services.stage_generate_seating(
        stage=stage, rounds=1, seed="s1", participants=list(t.participants.order_by("pk")[:10])
    )
    rnd = stage.rounds.get(number=1)
    table = rnd.tables.get()
    tournament_services.table_set_host(table=table, host=host)
    return t, rnd, table


def seat_of(table, member_id):
    return (
        TableSeat.objects.select_related("participant__player")
        .get(table=table, participant__player__discord_user_id=str(member_id))
        .seat_no
    )


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_published_round_dms_each_linked_participant_and_a_change_sends_one_correction(
    harness, host, other_user
):
    config = harness
    members = config.members
    client = config.client
    t, rnd, table = await seated_round(host, other_user, members)
    assert await voice_bot.apply_round_notices(client) == 0  # not published: nothing
    starts = datetime(2026, 12, 5, 19, 0, tzinfo=MSK)

    web = Client()
    await sync_to_async(web.force_login)(host)
    response = await sync_to_async(web.post)(
        reverse("discord:round_publish", args=[rnd.pk]), {"starts_at": "2026-12-05T19:00"}
    )
    assert response.status_code in (200, 302)
    assert await voice_bot.apply_round_notices(client) == 10
    got = dms()
    assert set(got) == {m.id for m in members[:10]}
    for member in members[:10]:
        seat = await sync_to_async(seat_of)(table, member.id)
        (text,) = got[member.id]
        assert (
            f"стол 1, место {seat}" in text
            and other_user.username in text
            and "05.12.2026 19:00" in text
            and "Кубок" in text
        )

    # Nothing changed: a second publication or a refresh sends nothing twice.
    await sync_to_async(round_notices.publish)(round=rnd, starts_at=starts)
    await sync_to_async(round_notices.refresh)(rnd.pk)
    assert await voice_bot.apply_round_notices(client) == 0 and dms() == {}

    # Two participants swap seats: exactly those two get a correction with their new seat.
    a, b = members[0], members[1]
    seat_a, seat_b = await sync_to_async(seat_of)(table, a.id), await sync_to_async(seat_of)(table, b.id)
    participant_a = await sync_to_async(lambda: TableSeat.objects.get(table=table, seat_no=seat_a).participant)()
    await sync_to_async(tournament_services.table_seat_set)(table=table, seat_no=seat_b, participant=participant_a)
    assert await voice_bot.apply_round_notices(client) == 2
    got = dms()
    assert set(got) == {a.id, b.id}
    assert got[a.id][0].startswith("Исправление") and f"место {seat_b}" in got[a.id][0]
    assert f"место {seat_a}" in got[b.id][0]

    # The eleventh takes a seat: the one he replaces is told he does not play; he has no Discord id.
    eleventh = await sync_to_async(lambda: t.participants.order_by("pk")[10])()
    await sync_to_async(tournament_services.table_seat_set)(table=table, seat_no=seat_a, participant=eleventh)
    assert await voice_bot.apply_round_notices(client) == 1
    (text,) = dms()[b.id]
    assert "не играете" in text
    rows = await sync_to_async(lambda: RoundNotice.objects.filter(round=rnd).count())()
    assert rows == 13  # 10 notices, 2 corrections, 1 removal; never a duplicate


@pytest.mark.django_db
def test_only_an_organizer_publishes_a_round(client, host, other_user):
    t = tournament_services.tournament_create(name="Кубок", organizer=host)
    stage = tournament_services.stage_create(tournament=t)
    rnd = tournament_services.round_create(stage=stage, tables=1)
    client.force_login(other_user)
    assert (
        client.post(reverse("discord:round_publish", args=[rnd.pk]), {"starts_at": "2026-12-05T19:00"}).status_code
        == 403
    )
    client.force_login(host)
    assert client.post(reverse("discord:round_publish", args=[rnd.pk]), {"starts_at": "не время"}).status_code == 422
