"""Chore 7 of issue 29 (line 75: «ведущий обязан перезапустить Discord и повторно проверить зачет
голоса»): the vote re-check.

The host presses «перепроверить»; the bot re-reads the game channel's history around the vote
(from the vote step's start to its end, in Discord's own order: snowflakes) and hands the messages
here, where they are tallied with the same windows as the live count (the V1 line, the «кто за N»
clicks, V3's first «+»). Every «+» whose assignment differs from the live tally is stored on the
re-check for the panel: one the bot never received, one deleted or edited while it was away, one
the re-read makes a repeat. Nothing is recorded: the host decides the vote.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from discord_bridge import core
from discord_bridge.models import DiscordLink, Proposal
from discord_bridge.voice_models import VoteRecheck
from games.models import Game

# The history read reaches a little before the vote's step and after its end (clocks, latency).
MARGIN = timedelta(seconds=2)
READ_LIMIT = 500


class NoVote(core.BridgeError):
    """No vote was counted in this game's channel yet: nothing to re-check."""


def request(*, game: Game) -> VoteRecheck:
    link = DiscordLink.objects.filter(game=game).first()
    if link is None or not link.vote_key or link.text_channel_id is None:
        raise NoVote("V1: no vote has been counted in the game's text channel yet; nothing to re-check.")
    open_ = VoteRecheck.objects.filter(game=game, vote_key=link.vote_key, done_at__isnull=True).first()
    return open_ or VoteRecheck.objects.create(game=game, vote_key=link.vote_key, requested_at=timezone.now())


@dataclass(frozen=True)
class ReadWork:
    recheck_id: int
    channel_id: int
    after: datetime
    before: datetime | None


def due() -> list[ReadWork]:
    """The re-checks the bot has to read, with the span of the vote they concern."""
    from discord_bridge import services

    work = []
    for recheck in VoteRecheck.objects.filter(done_at__isnull=True).select_related("game"):
        link = DiscordLink.objects.filter(game=recheck.game).first()
        spans = services.step_spans(recheck.game)
        index = next((i for i, s in enumerate(spans) if s.key == recheck.vote_key), None)
        if link is None or link.text_channel_id is None or index is None:
            finish(recheck.pk, [], error="the vote or the game's text channel is not found")
            continue
        after = spans[index].opened_at - MARGIN
        before = spans[index + 1].opened_at + MARGIN if index + 1 < len(spans) else None
        work.append(ReadWork(recheck.pk, link.text_channel_id, after, before))
    return work


@dataclass(frozen=True)
class Read:
    """One message of the history as Discord has it now."""

    message_id: int
    author_id: int
    content: str
    sent_at: datetime


def _mark(status: str, candidate: int | None) -> dict[str, Any]:
    return {"status": status, "candidate": candidate}


def finish(recheck_id: int, messages: Iterable[Read], *, error: str = "") -> VoteRecheck:
    from discord_bridge import services

    recheck = VoteRecheck.objects.select_related("game").get(pk=recheck_id)
    game = recheck.game
    link = DiscordLink.objects.get(game=game)
    read = list(messages)
    changes: list[dict[str, Any]] = []
    if not error:
        spans = services.step_spans(game)
        span = next((s for s in spans if s.key == recheck.vote_key), None)
        at_table = span.at_table if span is not None else ()
        windows = services._windows(link) if link.vote_key == recheck.vote_key else core.VoteWindows(clicks=[])
        seat_map = link.proven_seat_map()
        stored = list(
            Proposal.objects.filter(game=game, kind="plus", step_key=recheck.vote_key).exclude(status=core.WITHDRAWN)
        )
        live = core.tally_votes([core.Plus(p.message_id, p.seat, p.sent_at) for p in stored], windows, at_table)
        pluses = [
            core.Plus(m.message_id, seat_map.seat_of(m.author_id), m.sent_at) for m in read if core.is_plus(m.content)
        ]
        again = core.tally_votes(pluses, windows, at_table)
        seats = {p.message_id: p.seat for p in stored} | {p.message_id: p.seat for p in pluses}
        for message_id in sorted(set(live.marks) | set(again.marks)):
            if seats.get(message_id) is None:
                continue  # not a seated player's: no vote either way
            before = _mark(*live.marks[message_id]) if message_id in live.marks else None
            after = _mark(*again.marks[message_id]) if message_id in again.marks else None
            if before != after:
                changes.append(
                    {"message_id": str(message_id), "seat": seats[message_id], "before": before, "after": after}
                )
    recheck.read, recheck.changes, recheck.error, recheck.done_at = len(read), changes, error[:300], timezone.now()
    recheck.save(update_fields=["read", "changes", "error", "done_at"])
    services.push_to_host(game.pk, {"event": "recheck"})
    return recheck


def latest(game: Game) -> VoteRecheck | None:
    return VoteRecheck.objects.filter(game=game).first()
