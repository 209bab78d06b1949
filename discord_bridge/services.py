"""The bridge's write path: proposals in, confirmations out, posts queued.

The bot calls `receive_dm` / `receive_plus` / `save_voice_snapshot`; the console calls `confirm`,
`dismiss`, `vote_click`, `vote_count_start`, `request_fouls`, `link_save`.
Nothing here writes a game's log itself: a confirmation is one call to
games.services.game_record_action (lock, revision check, engine, broadcast),
and the proposals it came from are marked applied in the same transaction,
so a proposal is applied at most once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.utils import timezone

from discord_bridge import core, webhook
from discord_bridge.models import (
    BotHeartbeat,
    ChatPost,
    DiscordLink,
    PostKind,
    PostState,
    Proposal,
    TournamentDiscordLink,
    VoiceSnapshot,
)
from games import services as game_services
from games.models import Game, GameStatus
from games.rules import RuleViolation

log = logging.getLogger(__name__)

LINE_DELAY = timedelta(seconds=5)  # V1: the count before the line


def host_group(game_id: int) -> str:
    """The host-only channel-layer group: the console joins it; no public consumer ever does."""
    return f"game-{game_id}-host"


class AlreadyApplied(Exception):
    code = "already_applied"
    rule = "SEQ"
    message = "This proposal was already applied; nothing was applied twice."


# --- reading -------------------------------------------------------------------------


def game_view(game: Game) -> core.GameView:
    state = game_services.game_state(game)
    last = game.active_actions().last()
    opened = last.created_at if last is not None else None
    seconds = game.clock_duration_ms / 1000 if game.clock_duration_ms else 15.0
    return core.GameView(
        status=state.status,
        step=state.step,
        roles=dict(state.roles),
        at_table=list(state.at_table),
        window=core.StepWindow(state.step, opened, seconds),
        winks=dict(state.winks),
    )


def game_for_user(author_id: int) -> tuple[Game, int] | None:
    """The live game this Discord user is linked to, and his seat (the most recent link wins)."""
    links = DiscordLink.objects.select_related("game").exclude(game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED]).order_by("-updated_at")
    for link in links:
        seat = link.seat_map().seat_of(author_id)
        if seat is not None:
            return link.game, seat
    return None


def game_for_channel(channel_id: int) -> Game | None:
    link = DiscordLink.objects.select_related("game").filter(text_channel_id=channel_id).exclude(game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED]).order_by("-updated_at").first()
    return link.game if link else None


def open_proposals(game: Game) -> list[Proposal]:
    return list(Proposal.objects.filter(game=game, step_key=game.clock_key, applied_at__isnull=True, dismissed_at__isnull=True).exclude(kind="plus")) + list(
        Proposal.objects.filter(game=game, kind="wink", applied_at__isnull=True, dismissed_at__isnull=True).exclude(step_key=game.clock_key)
    )


def prefill(game: Game) -> dict[str, Any]:
    """What the console pre-fills: the step's action from the ``ok`` proposals, and the vote from «+»."""
    view = game_view(game)
    proposals = [p for p in open_proposals(game) if p.kind != "wink"]
    ok = [_as_core(p) for p in proposals if p.status == core.OK]
    out: dict[str, Any] = {"step": view.step, "action": None, "proposal_ids": [p.pk for p in proposals if p.status == core.OK]}
    if view.status == "setup":
        out["action"] = core.roles_action(ok)
    elif view.step == "mafia_shot" and ok:
        blacks = [s for s in view.at_table if view.roles.get(s) in core.BLACK_ROLES]
        out["action"] = core.shots_action(ok, blacks)
    elif view.step in ("don_check", "sheriff_check"):
        first = next((p for p in ok if p.kind == view.step), None)
        out["action"] = first.action() if first else None
    elif view.step == "voting":
        tally = vote_tally(game)
        if tally is not None and tally.votes:
            out["action"] = tally.action()
    return out


def vote_tally(game: Game) -> core.VoteTally | None:
    link = DiscordLink.objects.filter(game=game).first()
    if link is None or link.vote_key != game.clock_key:
        return None
    pluses = [core.Plus(p.message_id, p.seat, p.sent_at) for p in Proposal.objects.filter(game=game, kind="plus", step_key=game.clock_key)]
    return core.tally_votes(pluses, _windows(link), game_services.game_state(game).at_table)


def _windows(link: DiscordLink) -> core.VoteWindows:
    clicks = [(int(c), datetime.fromisoformat(t)) for c, t in link.vote_clicks]
    return core.VoteWindows(clicks=clicks, line_at=link.vote_line_at)


def _as_core(p: Proposal) -> core.Proposal:
    return core.Proposal(p.kind, p.seat, p.target, p.status, role=p.role or None, step=p.step or None)


def bot_online() -> bool:
    return BotHeartbeat.is_online()


# --- from the bot ----------------------------------------------------------------------


@dataclass
class Received:
    proposal: Proposal
    created: bool

    @property
    def receipt(self) -> str:
        return _as_core(self.proposal).receipt


def receive_dm(*, message_id: int, author_id: int, text: str, sent_at: datetime) -> Received | None:
    """Store a linked player's DM as a proposal (once per Discord message id) and push it to the host."""
    found = game_for_user(author_id)
    if found is None:
        return None
    game, seat = found
    existing = Proposal.objects.filter(message_id=message_id).first()
    if existing is not None:
        return Received(existing, False)  # delivered twice: stored once
    parsed = core.parse_dm(text)
    view = game_view(game)
    already = Proposal.objects.filter(game=game, seat=seat, step_key=game.clock_key, status=core.OK).exclude(kind__in=["wink", "plus", "unknown"]).exists()
    proposal = core.build_proposal(parsed, sender_seat=seat, game=view, sent_at=sent_at, already_sent=already)
    row = _store(game, message_id, author_id, seat, proposal.kind, proposal.target, proposal.status, view.step, text, sent_at, role=proposal.role or "")
    return row


def receive_plus(*, channel_id: int, message_id: int, author_id: int, sent_at: datetime) -> Received | None:
    """A «+» in the game's text channel during a vote (V1, V3)."""
    game = game_for_channel(channel_id)
    if game is None:
        return None
    existing = Proposal.objects.filter(message_id=message_id).first()
    if existing is not None:
        return Received(existing, False)
    link = DiscordLink.objects.get(game=game)
    seat = link.seat_map().seat_of(author_id)
    state = game_services.game_state(game)
    if state.step != "voting":
        status, candidate = core.NOT_HIS_TURN, None
    else:
        candidate, status = _windows(link).candidate_at(sent_at) if link.vote_key == game.clock_key else (None, core.NOT_HIS_TURN)
    return _store(game, message_id, author_id, seat, "plus", candidate, status, state.step, "+", sent_at)


def linked_voice_channels() -> set[int]:
    """The voice channels of the games still being played: the ones whose members the bot reports."""
    live = DiscordLink.objects.exclude(game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED]).exclude(voice_channel_id__isnull=True)
    return {channel for channel in live.values_list("voice_channel_id", flat=True) if channel is not None}


def save_voice_snapshot(*, voice_channel_id: int, members: Iterable[core.VoiceMember], taken_at: datetime | None = None) -> VoiceSnapshot | None:
    """Replace what the bot last saw in a linked voice channel; a channel no live game links is not kept."""
    if voice_channel_id not in linked_voice_channels():
        return None
    rows = [{"id": str(m.user_id), "name": m.display_name[:100]} for m in sorted(members, key=lambda m: core.name_key(m.display_name))]
    snapshot, _ = VoiceSnapshot.objects.update_or_create(voice_channel_id=voice_channel_id, defaults={"members": rows, "taken_at": taken_at or timezone.now()})
    return snapshot


def voice_snapshot(game: Game) -> VoiceSnapshot | None:
    """The last snapshot of this game's voice channel (None: not linked, or the bot never reported it)."""
    link = DiscordLink.objects.filter(game=game).first()
    if link is None or link.voice_channel_id is None:
        return None
    return VoiceSnapshot.objects.filter(voice_channel_id=link.voice_channel_id).first()


def _store(game: Game, message_id: int, author_id: int, seat: int | None, kind: str, target: int | None, status: str, step: str | None, text: str, sent_at: datetime, role: str = "") -> Received:
    try:
        with transaction.atomic():
            row = Proposal.objects.create(
                game=game, message_id=message_id, author_id=author_id, seat=seat, kind=kind, target=target, role=role,
                status=status, step=step or "", step_key=game.clock_key, text=text[:200], sent_at=sent_at,
            )
    except IntegrityError:
        return Received(Proposal.objects.get(message_id=message_id), False)
    push_to_host(game.pk, {"event": "proposal", "id": row.pk})
    return Received(row, True)


def push_to_host(game_id: int, data: dict[str, Any]) -> None:
    """Tell the host's open console (group `game-<pk>-host`) that something arrived; it fetches the panel itself."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(host_group(game_id), {"type": "discord.event", **data})
    except Exception:  # a down channel layer: the console also polls
        log.warning("could not push to the host group of game %s", game_id, exc_info=True)


# --- from the console ----------------------------------------------------------------


def confirm(*, game: Game, action: dict[str, Any], proposal_ids: Iterable[int], expected_seq: int | None, by: Any) -> game_services.Outcome:
    """Record the action the host confirmed (or edited) and mark its proposals applied, atomically."""
    ids = list(proposal_ids)
    with transaction.atomic():
        rows = list(Proposal.objects.select_for_update().filter(game=game, pk__in=ids))
        if any(r.applied_at is not None for r in rows):
            raise AlreadyApplied()
        outcome = game_services.game_record_action(game=game, action=action, expected_seq=expected_seq, by=by)
        now = timezone.now()
        Proposal.objects.filter(pk__in=[r.pk for r in rows]).update(applied_at=now)
        if action.get("do") == "wink":
            _relay_wink(game, int(action["by"]), int(action["target"]), outcome)
    push_to_host(game.pk, {"event": "applied"})
    return outcome


def dismiss(*, game: Game, proposal_id: int) -> None:
    Proposal.objects.filter(game=game, pk=proposal_id, applied_at__isnull=True).update(dismissed_at=timezone.now())


def _relay_wink(game: Game, by: int, target: int, outcome: game_services.Outcome) -> None:
    """N12: the bot tells the target seat «Вам мигнул N» (a DM, queued; the bot delivers it)."""
    link = DiscordLink.objects.filter(game=game).first()
    user = link.seat_map().user_of(target) if link else None
    if user is None:
        return
    seq = outcome.action.seq if outcome.action else game.seq
    enqueue_post(game=game, kind=PostKind.WINK, key=f"wink:{seq}", text=core.wink_relay_text(by), to_user_id=user)


def vote_click(*, game: Game, candidate: int) -> DiscordLink:
    """The host's «кто за N» click: the count of candidate N begins now (V2)."""
    with transaction.atomic():
        link = DiscordLink.objects.select_for_update().get(game=game)
        if link.vote_key != game.clock_key:
            link.vote_key, link.vote_clicks, link.vote_line_at = game.clock_key, [], None
        link.vote_clicks = [*link.vote_clicks, [candidate, timezone.now().isoformat()]]
        link.save(update_fields=["vote_key", "vote_clicks", "vote_line_at", "updated_at"])
    return link


def vote_count_start(*, game: Game, now: datetime | None = None) -> ChatPost | None:
    """The host starts the 5 s count (V1): the line is posted when it ends; «+» after it are late."""
    now = now or timezone.now()
    due = core.line_due(now, LINE_DELAY.total_seconds())
    with transaction.atomic():
        link = DiscordLink.objects.select_for_update().get(game=game)
        if link.vote_key != game.clock_key:
            link.vote_key, link.vote_clicks = game.clock_key, []
        link.vote_line_at = due
        link.save(update_fields=["vote_key", "vote_clicks", "vote_line_at", "updated_at"])
        return enqueue_post(game=game, kind=PostKind.LINE, key=f"line:{game.clock_key}", text=core.LINE, due_at=due)


def request_fouls(*, game: Game) -> ChatPost | None:
    """X3: the host announces the foul counts."""
    state = game_services.game_state(game)
    return enqueue_post(game=game, kind=PostKind.FOULS, key=f"fouls:{game.seq}", text=core.fouls_line(state.fouls, state.at_table))


def post_candidates(game: Game) -> ChatPost | None:
    """V2: the candidates line when the vote begins (called on every change; the key makes it once per vote)."""
    state = game_services.game_state(game)
    if state.step != "voting" or not DiscordLink.objects.filter(game=game).exists():
        return None
    return enqueue_post(game=game, kind=PostKind.CANDIDATES, key=f"candidates:{game.clock_key}", text=core.candidates_line(state.nominees))


def link_save(*, game: Game, guild_id: int | None, text_channel_id: int | None, voice_channel_id: int | None, webhook_url: str, seats: dict[str, Any]) -> DiscordLink:
    """Link a game to Discord (core.BridgeError on a bad seat map or webhook URL; nothing changed then)."""
    seat_map = core.SeatMap.build(seats)
    if webhook_url and not webhook.is_webhook_url(webhook_url):
        raise core.BridgeError("The webhook URL must look like https://discord.com/api/webhooks/…")
    inherited = _tournament_link(game)
    link, _ = DiscordLink.objects.get_or_create(game=game)
    link.guild_id = guild_id or (inherited.guild_id if inherited else None)
    link.text_channel_id = text_channel_id or (inherited.text_channel_id if inherited else None)
    link.voice_channel_id = voice_channel_id or (inherited.voice_channel_id if inherited else None)
    link.webhook_url = webhook_url or (inherited.webhook_url if inherited else "")
    link.seats = seat_map.to_json()
    link.save()
    return link


def _tournament_link(game: Game) -> TournamentDiscordLink | None:
    """A tournament table's game inherits its tournament's channel."""
    table = getattr(game, "tournament_table", None)
    if table is None:
        return None
    return TournamentDiscordLink.objects.filter(tournament_id=table.round.stage.tournament_id).first()


# --- the outbox --------------------------------------------------------------------------


def enqueue_post(*, game: Game, kind: str, key: str, text: str, due_at: datetime | None = None, to_user_id: int | None = None) -> ChatPost | None:
    """Queue a post once per key; a webhook post is delivered on time by a timer after the commit."""
    try:
        with transaction.atomic():
            post = ChatPost.objects.create(game=game, kind=kind, dedupe_key=key, text=text, to_user_id=to_user_id, due_at=due_at or timezone.now())
    except IntegrityError:
        return None  # already queued: never posted twice
    link = DiscordLink.objects.filter(game=game).first()
    if link is not None and link.webhook_url and to_user_id is None:
        transaction.on_commit(lambda: schedule_webhook_delivery(post.pk, post.due_at))
    return post


def schedule_webhook_delivery(post_id: int, due_at: datetime) -> threading.Thread:
    """Deliver on time: the thread starts now, prepares (connection, link), and posts at `due_at`."""
    thread = threading.Thread(target=deliver_webhook_post, args=(post_id,), kwargs={"due_at": due_at}, daemon=True)
    thread.start()
    return thread


def claim_post(post_id: int) -> ChatPost | None:
    """Move a pending post to `sending`; only one deliverer wins, so it is posted once."""
    if ChatPost.objects.filter(pk=post_id, state=PostState.PENDING).update(state=PostState.SENDING) != 1:
        return None
    return ChatPost.objects.select_related("game").get(pk=post_id)


def finish_post(post: ChatPost, *, ok: bool, attempts: int, error: str = "") -> None:
    post.state = PostState.SENT if ok else PostState.FAILED
    post.attempts = post.attempts + attempts
    post.last_error = error[:300]
    post.sent_at = timezone.now() if ok else None
    post.save(update_fields=["state", "attempts", "last_error", "sent_at"])
    if not ok:
        push_to_host(post.game_id, {"event": "post_failed", "id": post.pk})


def deliver_webhook_post(post_id: int, due_at: datetime | None = None) -> webhook.PostResult | None:
    """Deliver one queued post through the game's webhook; failures are recorded, never raised.

    Everything that can be done early (the database connection, the link) is
    done before `due_at`, so the V1 line leaves at its mark, not a query later.
    """
    try:
        post = ChatPost.objects.filter(pk=post_id, state=PostState.PENDING).first()
        link = DiscordLink.objects.filter(game_id=post.game_id).first() if post else None
        if post is None or link is None or not link.webhook_url:
            return None  # already taken, or left for the bot
        # Connect before the mark; post at the mark.
        prepared = webhook.PreparedPost(link.webhook_url, post.text)
        if due_at is not None:
            wait = (due_at - timezone.now()).total_seconds()
            if wait > 0:
                time.sleep(wait)
        if ChatPost.objects.filter(pk=post_id, state=PostState.PENDING).update(state=PostState.SENDING) != 1:
            prepared.close()
            return None  # another deliverer won: never posted twice
        result = prepared.send()
        finish_post(post, ok=result.ok, attempts=result.attempts, error=result.error)
        return result
    except Exception:  # a delivery thread must never die loudly
        log.exception("webhook delivery of post %s failed", post_id)
        return None
    finally:
        from django.db import connection

        connection.close()


def retry_post(*, game: Game, post_id: int) -> None:
    """The host asks again for a failed post."""
    if ChatPost.objects.filter(game=game, pk=post_id, state=PostState.FAILED).update(state=PostState.PENDING, due_at=timezone.now()):
        link = DiscordLink.objects.filter(game=game).first()
        if link is not None and link.webhook_url:
            schedule_webhook_delivery(post_id, timezone.now())


STALE_WEBHOOK_POST = timedelta(seconds=5)


def sweep_stale_webhook_posts(now: datetime | None = None) -> int:
    """Webhook posts still pending well after their mark (the web process that queued them
    restarted before its timer fired): the bot process delivers them, once (claim_post)."""
    now = now or timezone.now()
    stale = ChatPost.objects.filter(state=PostState.PENDING, to_user_id__isnull=True, due_at__lt=now - STALE_WEBHOOK_POST).exclude(game__discord_link__webhook_url="")
    delivered = 0
    for post_id in list(stale.values_list("pk", flat=True)[:20]):
        result = deliver_webhook_post(post_id)
        delivered += bool(result and result.ok)
    return delivered


def due_bot_posts(now: datetime | None = None) -> list[ChatPost]:
    """Posts the bot delivers: DMs (wink relays), and channel lines of games without a webhook."""
    now = now or timezone.now()
    pending = ChatPost.objects.filter(state=PostState.PENDING, due_at__lte=now).select_related("game")
    out = []
    for post in pending:
        link = DiscordLink.objects.filter(game_id=post.game_id).first()
        if link is None:
            continue
        if post.to_user_id is not None or not link.webhook_url:
            out.append(post)
    return out


__all__ = ["RuleViolation"]
