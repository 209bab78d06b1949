"""Issue 29, chore 7 (line 75: in a dispute the host restarts Discord and checks the vote again).

«перепроверить» asks the bot to re-read the game channel's history around the vote, in Discord's
own order (snowflakes), and the panel shows every «+» whose assignment changes: one the bot never
received, one deleted while it was away, one that the re-read makes a repeat (V3). The history is
a test double at discord.py's boundary (`TextChannel.history`: dpytest's ids are counters, not
times); the bridge's path — the host's button, the bot's loop step, the tally — is the real one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import discord
import discord.ext.test as dpytest
import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from discord_bridge import bot as bot_module
from discord_bridge import services, voice_bot
from discord_bridge.models import DiscordLink, VoteRecheck

from .helpers import game_at_voting, harness_intents, prove


@dataclass
class Said:
    id: int
    author: Any
    content: str
    created_at: datetime


@pytest_asyncio.fixture
async def harness():
    client = bot_module.ProtocolBot(intents=harness_intents())
    await client._async_setup_hook()
    dpytest.configure(client, members=12, text_channels=1)
    yield dpytest.get_config()
    await dpytest.empty_queue()


def snowflake(at: datetime, n: int = 0) -> int:
    return discord.utils.time_snowflake(at) + n


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_recheck_rereads_the_history_and_shows_each_plus_whose_assignment_changes(harness, host, monkeypatch):
    config = harness
    members = config.members
    channel = config.guilds[0].text_channels[0]
    seats = {str(s): str(members[s - 1].id) for s in range(1, 11)}

    @sync_to_async
    def counted_vote():
        game = game_at_voting(host)  # candidates 5, then 3
        prove(
            services.link_save(
                game=game,
                guild_id=config.guilds[0].id,
                text_channel_id=channel.id,
                voice_channel_id=None,
                webhook_url="",
                seats=seats,
            )
        )  # issue 25-8
        started = game.updated_at
        line_at = started + timedelta(seconds=5)
        click5, click3 = line_at + timedelta(seconds=1), line_at + timedelta(seconds=6)
        DiscordLink.objects.filter(game=game).update(
            vote_key=game.clock_key,
            vote_line_at=line_at,
            vote_clicks=[[5, click5.isoformat()], [3, click3.isoformat()]],
        )
        return game, line_at, click5, click3

    game, line_at, click5, click3 = await counted_vote()
    t = {
        "p1": click5 + timedelta(milliseconds=900),
        "p2": click3 + timedelta(milliseconds=500),
        "p4_late": click3 + timedelta(milliseconds=800),
        "p4": click5 + timedelta(milliseconds=1200),
    }
    ids = {k: snowflake(v, i) for i, (k, v) in enumerate(t.items())}
    # What the bot received: №1 for 5, №2 for 3, and №4's «+» in the count of 3 (his earlier one,
    # in the count of 5, never reached the bot).
    for seat, key in ((1, "p1"), (2, "p2"), (4, "p4_late")):
        await sync_to_async(services.receive_plus)(
            channel_id=channel.id, message_id=ids[key], author_id=members[seat - 1].id, sent_at=t[key]
        )
    before = (await sync_to_async(lambda: (game.refresh_from_db(), services.vote_tally(game).votes))())[1]
    assert before == {5: [1], 3: [2, 4]}

    # Discord's history now: №2 deleted his «+» while the bot was away; №4's first «+» is there.
    history = [
        Said(snowflake(line_at), config.client.user, "--------------", line_at),
        Said(ids["p1"], members[0], "+", t["p1"]),
        Said(ids["p4"], members[3], "+", t["p4"]),
        Said(ids["p4_late"], members[3], "+", t["p4_late"]),
        Said(snowflake(click3, 9), members[10], "+", click3),  # the host's own (no seat): not a vote
    ]
    reads: list[dict[str, Any]] = []

    def fake_history(self, **kwargs):
        reads.append({"channel": self.id, **kwargs})

        async def gen():
            after = kwargs.get("after")
            before_ = kwargs.get("before")
            for m in sorted(history, key=lambda m: m.id, reverse=not kwargs.get("oldest_first")):
                if (after is None or m.id > after.id) and (before_ is None or m.id < before_.id):
                    yield m

        return gen()

    monkeypatch.setattr(discord.TextChannel, "history", fake_history)

    web = Client()
    await sync_to_async(web.force_login)(host)
    html = (await sync_to_async(web.get)(reverse("discord:panel", args=[game.pk]))).content.decode()
    assert "data-vote-recheck" in html
    response = await sync_to_async(web.post)(reverse("discord:vote_recheck", args=[game.pk]))
    assert response.status_code == 200
    assert await voice_bot.apply_rechecks(config.client) == 1
    assert reads and reads[0]["channel"] == channel.id and reads[0]["oldest_first"] is True
    assert reads[0]["after"].id < snowflake(line_at)  # around the vote: from before its line

    recheck = await sync_to_async(VoteRecheck.objects.get)(game=game)
    assert recheck.done_at is not None and recheck.read == 5
    changes = {c["message_id"]: (c["seat"], c["before"], c["after"]) for c in recheck.changes}
    assert changes == {
        str(ids["p2"]): (2, {"status": "ok", "candidate": 3}, None),  # gone from the channel
        str(ids["p4"]): (4, None, {"status": "ok", "candidate": 5}),  # never received: for 5 in Discord's order
        str(ids["p4_late"]): (4, {"status": "ok", "candidate": 3}, {"status": "repeat", "candidate": 3}),
    }
    late = next(c for c in recheck.changes if c["message_id"] == str(ids["p4_late"]))
    assert late["before"] == {"status": "ok", "candidate": 3} and late["after"] == {
        "status": "repeat",
        "candidate": 3,
    }  # V3
    html = (await sync_to_async(web.get)(reverse("discord:panel", args=[game.pk]))).content.decode()
    assert (
        "№4 «+»: не получен → за №5" in html
        and "№2 «+»: за №3 → нет в канале" in html
        and "№4 «+»: за №3 → повтор" in html
    )
    # The re-check records nothing: the host decides the vote.
    assert (await sync_to_async(lambda: (game.refresh_from_db(), services.vote_tally(game).votes))())[1] == before
    # Nothing due any more.
    assert await voice_bot.apply_rechecks(config.client) == 0


@pytest.mark.django_db
def test_a_recheck_without_a_counted_vote_is_refused(client, host):
    from .helpers import game_at_mafia_shot, link

    game = game_at_mafia_shot(host)
    link(game)
    client.force_login(host)
    assert client.post(reverse("discord:vote_recheck", args=[game.pk])).status_code == 422
    assert not VoteRecheck.objects.exists()
