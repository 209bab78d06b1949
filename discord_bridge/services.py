"""The bridge's write path: proposals in, confirmations out, posts queued.

The bot calls `receive_dm` / `receive_plus` / `save_voice_snapshot`; the console calls `confirm`,
`dismiss`, `vote_click`, `vote_count_start`, `request_fouls`, `link_save`.
Nothing here writes a game's log itself: a confirmation is one call to
games.services.game_record_action (lock, revision check, engine, broadcast),
and the proposals it came from are marked applied in the same transaction,
so a proposal is applied at most once.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import IntegrityError, models, transaction
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
from games import reading as game_reading
from games import services as game_services
from games.models import Game, GameStatus
from games.reading import game_regulations
from games.rules import RuleViolation, apply_in_place, new_state, script
from games.rules.state import GameState

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
    """The game as it is now (its current step's span)."""
    return step_spans(game)[-1].view()


def step_spans(game: Game) -> list[core.StepSpan]:
    """The game's steps as its log tells them: each begins at the time of the action that led
    to it (GameAction.created_at), keyed like the game's clock (games.services' step key).

    A DM is judged by the span that holds its Discord time (core.span_at), so a message
    processed late (a RESUME replay, a slow database) still belongs to the step it was
    sent in. The current span's clock is the game's own (the host may have adjusted it).

    Pauses (the clock does not run, D7, D8): a technical pause runs from its `tech_pause`
    action for the regulations' length, or until the next action or the host ended it early
    (`Game.tech_pause_ended_at`); a D8 time-out is clock state, known while it runs
    (`Game.timeout_since`). Each extends the window of the step it began in.
    """
    regulations = game_regulations(game)
    state = new_state(regulations)
    spans = [_span(state, game.created_at)]
    pauses: list[list[core.Pause]] = [[]]
    pause_at: datetime | None = None
    pause_length = timedelta(seconds=regulations.tech_pause)

    def end_pause(at: datetime | None) -> None:
        nonlocal pause_at
        if pause_at is not None:
            ended = pause_at + pause_length
            if at is not None:
                ended = min(ended, at)
            early = game.tech_pause_ended_at
            if early is not None and early >= pause_at:
                ended = min(ended, early)
            pauses[-1].append((pause_at, ended))
            pause_at = None

    # Steps whose clock waited for the host's announcement (a departed captain's wake-up,
    # «В городе ночь», «Доброе утро»: games.rules.script.clock_waits_for_host, issue 26-4):
    # the wait is not the step's time. The game keeps only the current clock, so a past
    # waiting step's window runs until the step ended (see below).
    waited: list[bool] = [script.clock_waits_for_host(state)]
    for created_at, payload in game.active_actions().values_list("created_at", "payload"):
        if isinstance(payload, dict) and payload.get("do") == "expect":
            continue
        end_pause(created_at)  # any later action ends a technical pause (games.reading.tech_pause_start)
        try:
            apply_in_place(state, payload)
        except RuleViolation:
            break  # an old log the engine reads differently now: the spans so far stand
        if isinstance(payload, dict) and payload.get("do") == "tech_pause":
            pause_at = created_at
        span = _span(state, created_at)
        if span.key != spans[-1].key:
            last = spans[-1]
            spans[-1] = dataclasses.replace(last, closed_by=payload if isinstance(payload, dict) else None)
            spans.append(span)
            pauses.append([])
            waited.append(script.clock_waits_for_host(state))
        else:
            # The same step goes on (a wink, a foul): its clock is not restarted, but who
            # is at the table and the winks are the latest.
            spans[-1] = dataclasses.replace(spans[-1], roles=span.roles, at_table=span.at_table, winks=span.winks)
    end_pause(None)
    if game.timeout_since is not None:
        pauses[-1].append((game.timeout_since, None))  # D8: all clocks stop while it runs
    for i, span in enumerate(spans):
        if not waited[i]:
            continue
        if i + 1 < len(spans):
            pauses[i].append((span.opened_at, spans[i + 1].opened_at))  # in time until the host moved on
        elif span.key == game.clock_key:
            if game.clock_started_at is None:
                pauses[i].append((span.opened_at, None))  # still waiting for the host's Space
            else:
                # The clock has run `clock_elapsed_ms` before its latest start: it has been
                # stopped since the step opened for all the rest (the wait, a host's pause).
                ran_from = game.clock_started_at - timedelta(milliseconds=game.clock_elapsed_ms)
                if ran_from > span.opened_at:
                    pauses[i].append((span.opened_at, ran_from))
    spans = [dataclasses.replace(span, pauses=tuple(p)) for span, p in zip(spans, pauses, strict=True)]
    last = spans[-1]
    if last.key == game.clock_key and game.clock_duration_ms:
        spans[-1] = dataclasses.replace(last, seconds=game.clock_duration_ms / 1000)
    return spans


def _span(state: GameState, opened_at: datetime) -> core.StepSpan:
    key = game_reading.clock_key(state)  # the game's clock key, computed alike
    return core.StepSpan(
        key=key,
        step=state.step,
        status=state.status,
        opened_at=opened_at,
        seconds=float(state.step_seconds or 15),
        roles=dict(state.roles),
        at_table=list(state.at_table),
        winks=dict(state.winks),
    )


def _live_links() -> Any:
    return DiscordLink.objects.select_related("game").exclude(
        game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED]
    )


def game_for_user(author_id: int) -> tuple[Game, int] | None:
    """The one live game this Discord user is linked to, and his seat.

    link_save never lets two live games claim one member; should two rows
    claim him anyway (saved before that check existed), nothing is routed:
    a DM never reaches a game it may not belong to.
    """
    found = [
        (link.game, seat) for link in _live_links() if (seat := link.proven_seat_map().seat_of(author_id)) is not None
    ]
    return found[0] if len(found) == 1 else None


def game_for_channel(channel_id: int, sent_at: datetime | None = None) -> Game | None:
    """The live game of a text channel. Only a tournament's tables share one channel (they
    inherit it); then a «+» goes to the table whose host opened the count running at its
    time (the latest «кто за N» click at or before it, in the vote being counted)."""
    # Issue 25-8: a channel the host's access was not proven for routes nothing.
    links = [link for link in _live_links().filter(text_channel_id=channel_id) if link.text_proven]
    if len(links) <= 1:
        return links[0].game if links else None
    if sent_at is None:
        return None
    sent = core.to_ms(sent_at)
    best: tuple[datetime, Game] | None = None
    for link in links:
        if link.vote_key != link.game.clock_key:
            continue
        for _candidate, raw in link.vote_clicks:
            clicked = core.to_ms(datetime.fromisoformat(raw))
            if clicked <= sent and (best is None or clicked > best[0]):
                best = (clicked, link.game)
    return best[1] if best else None


def open_proposals(game: Game) -> list[Proposal]:
    """The current step's open proposals, open winks of any step, and DMs for steps the host
    had already recorded (shown «уже записано», until he dismisses them)."""
    return list(
        Proposal.objects.filter(
            game=game, step_key=game.clock_key, applied_at__isnull=True, dismissed_at__isnull=True
        ).exclude(kind="plus")
    ) + list(
        Proposal.objects.filter(game=game, applied_at__isnull=True, dismissed_at__isnull=True)
        .filter(models.Q(kind="wink") | models.Q(status=core.RECORDED))
        .exclude(step_key=game.clock_key)
    )


def prefill(game: Game) -> dict[str, Any]:
    """What the console pre-fills: the step's action from the ``ok`` proposals, and the vote from «+»."""
    view = game_view(game)
    proposals = [p for p in open_proposals(game) if p.kind != "wink"]
    ok = [_as_core(p) for p in proposals if p.status == core.OK]
    out: dict[str, Any] = {
        "step": view.step,
        "action": None,
        "proposal_ids": [p.pk for p in proposals if p.status == core.OK],
    }
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
        if tally is not None and tally.has_votes:  # an empty tally is never offered (V4)
            out["action"] = tally.action()
    return out


def vote_tally(game: Game) -> core.VoteTally | None:
    link = DiscordLink.objects.filter(game=game).first()
    if link is None or link.vote_key != game.clock_key:
        return None
    rows = Proposal.objects.filter(game=game, kind="plus", step_key=game.clock_key).exclude(status=core.WITHDRAWN)
    pluses = [core.Plus(p.message_id, p.seat, p.sent_at) for p in rows]
    return core.tally_votes(pluses, _windows(link), game_reading.game_state(game).at_table)


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
    first: str | None = None  # a repeat: what his first message said (N4: the first counts)

    @property
    def receipt(self) -> str:
        p = _as_core(self.proposal)
        if p.status == core.REPEAT and self.first is not None:
            return core.receipt_for(core.REPEAT, "", self.first)
        return p.receipt


NOT_STORED = "не принято, напишите ведущему"  # the database failed: the player must not think it counted


def receive_dm(*, message_id: int, author_id: int, text: str, sent_at: datetime) -> Received | None:
    """Store a linked player's DM as a proposal (once per Discord message id) and push it to the host.

    The DM is judged in the step whose span holds its Discord time (core.span_at),
    not in the step running now. N4 "the first number counts": among his messages
    for one step the earliest *sent* is ``ok``, a later one a ``repeat``, whatever
    order they are processed in.
    """
    text = core.clean_text(text)
    found = game_for_user(author_id)
    if found is None:
        return None
    game, seat = found
    existing = Proposal.objects.filter(message_id=message_id).first()
    if existing is not None:
        return Received(existing, False)  # delivered twice: stored once
    parsed = core.parse_dm(text)
    spans = step_spans(game)
    span = core.span_at(spans, sent_at) or spans[0]
    view = span.view()
    earlier = (
        Proposal.objects.filter(game=game, seat=seat, step_key=span.key, status=core.OK)
        .exclude(kind__in=["wink", "plus", "unknown", "chat"])
        .filter(sent_at__lte=sent_at)
        .order_by("sent_at", "message_id")
        .first()
    )
    proposal = core.build_proposal(
        parsed, sender_seat=seat, game=view, sent_at=sent_at, already_sent=earlier is not None
    )
    kind, status, step_key, recorded = proposal.kind, proposal.status, span.key, ""
    if parsed.kind in ("target", "nobody") and status in (core.OK, core.LATE, core.NOT_HIS_TURN):
        # Issue 25-3: the step it answers was already recorded (the host typed the check
        # before the DM was processed, or before it was sent): shown beside the log's answer,
        # never pre-filled as a new proposal.
        done = core.recorded_answer(spans, spans.index(span), seat, core.own_steps(view.roles.get(seat)))
        if done is not None:
            kind, step_key, target = done
            status, recorded = core.RECORDED, (str(target) if target is not None else "никого")
    received = _store(
        game,
        message_id,
        author_id,
        seat,
        kind,
        proposal.target,
        status,
        view.step,
        text,
        sent_at,
        role=proposal.role or "",
        step_key=step_key,
        recorded=recorded,
    )
    if received.created and proposal.status == core.REPEAT and earlier is not None:
        received.first = _said(earlier)
    if received.created and proposal.status == core.OK and proposal.kind not in ("wink", "unknown"):
        # Processed out of order: his later-sent messages of this step are the repeats.
        Proposal.objects.filter(game=game, seat=seat, step_key=span.key, status=core.OK, sent_at__gt=sent_at).exclude(
            kind__in=["wink", "plus", "unknown", "chat"]
        ).update(status=core.REPEAT)
    return received


def _said(p: Proposal) -> str:
    if p.kind == "role":
        return f"{core.role_word(p.role)} {p.target}"
    return str(p.target) if p.target is not None else "никого"


def receive_plus(*, channel_id: int, message_id: int, author_id: int, sent_at: datetime) -> Received | None:
    """A «+» in the game's text channel (V1, V3), judged at its Discord time."""
    game = game_for_channel(channel_id, sent_at)
    if game is None:
        return None
    existing = Proposal.objects.filter(message_id=message_id).first()
    if existing is not None:
        return Received(existing, False)
    link = DiscordLink.objects.get(game=game)
    seat = link.proven_seat_map().seat_of(author_id)  # a pending member's «+» counts for nobody
    spans = step_spans(game)
    span = core.span_at(spans, sent_at) or spans[0]
    if span.step != "voting":
        status, candidate = core.NOT_HIS_TURN, None
    elif link.vote_key != span.key:
        status, candidate = core.BEFORE_LINE, None
    else:
        candidate, status = _windows(link).candidate_at(sent_at)
    return _store(
        game, message_id, author_id, seat, "plus", candidate, status, span.step, "+", sent_at, step_key=span.key
    )


def receive_chat(*, channel_id: int, message_id: int, author_id: int, text: str, sent_at: datetime) -> Received | None:
    """Any other message in the game channel after the V1 line, during the vote: shown to the
    host as a possible violation («каждое сообщение после этой черты является нарушением»),
    never recorded as a foul by itself. Other chat is not the bridge's business: not stored."""
    game = game_for_channel(channel_id, sent_at)
    if game is None:
        return None
    link = DiscordLink.objects.get(game=game)
    if (
        link.vote_key != game.clock_key
        or link.vote_line_at is None
        or core.to_ms(sent_at) < core.to_ms(link.vote_line_at)
    ):
        return None
    spans = step_spans(game)
    span = core.span_at(spans, sent_at) or spans[0]
    if span.step != "voting" or span.key != link.vote_key:
        return None
    seat = link.proven_seat_map().seat_of(author_id)
    return _store(
        game,
        message_id,
        author_id,
        seat,
        "chat",
        None,
        core.AFTER_LINE,
        span.step,
        core.clean_text(text),
        sent_at,
        step_key=span.key,
    )


def receive_edit(*, message_id: int, text: str) -> Proposal | None:
    """A message the bridge stored was edited (on_raw_message_edit).

    A DM: its proposal is read again; the host sees «изменено: 6 → 5» (an
    applied one is left as applied: the log is the host's). A «+» edited into
    anything else leaves the count.
    """
    text = core.clean_text(text)
    with transaction.atomic():
        row = Proposal.objects.select_for_update().filter(message_id=message_id).first()
        if row is None or row.applied_at is not None:
            return row
        if row.kind == "plus":
            if core.is_plus(text) or row.status == core.WITHDRAWN:
                return row
            row.edited_from, row.status, row.text = "+", core.WITHDRAWN, text[:200]
            row.save(update_fields=["edited_from", "status", "text"])
        elif row.kind == "chat":
            row.text = text[:200]
            row.save(update_fields=["text"])
        else:
            parsed = core.parse_dm(text)
            before = row.text
            spans = step_spans(row.game)
            span = (
                next((s for s in spans if s.key == row.step_key), None) or core.span_at(spans, row.sent_at) or spans[0]
            )
            earlier = (
                Proposal.objects.filter(
                    game=row.game, seat=row.seat, step_key=row.step_key, status=core.OK, sent_at__lt=row.sent_at
                )
                .exclude(kind__in=["wink", "plus", "unknown", "chat"])
                .exclude(pk=row.pk)
                .exists()
            )
            assert row.seat is not None
            # Judged at the time it was first sent: an edit does not make a message late.
            proposal = core.build_proposal(
                parsed, sender_seat=row.seat, game=span.view(), sent_at=row.sent_at, already_sent=earlier
            )
            row.edited_from = before[:200]
            row.kind, row.target, row.status, row.role, row.text = (
                proposal.kind,
                proposal.target,
                proposal.status,
                proposal.role or "",
                text[:200],
            )
            row.save(update_fields=["edited_from", "kind", "target", "status", "role", "text"])
    push_to_host(row.game_id, {"event": "proposal", "id": row.pk})
    return row


def receive_delete(*, message_id: int) -> Proposal | None:
    """A message the bridge stored was deleted (on_raw_message_delete). A deleted DM's
    proposal is withdrawn; a deleted «+» leaves the count and is proposed to the host as
    the F18 foul (deleting one's vote), which he records himself or not."""
    with transaction.atomic():
        row = Proposal.objects.select_for_update().filter(message_id=message_id).first()
        if row is None or row.deleted_at is not None:
            return row
        row.deleted_at = timezone.now()
        fields = ["deleted_at"]
        if row.kind == "plus" and row.applied_at is None:
            row.edited_from, row.status = row.status, core.WITHDRAWN
            fields += ["edited_from", "status"]
        elif row.applied_at is None and row.dismissed_at is None and row.kind != "plus":
            row.dismissed_at = row.deleted_at
            fields.append("dismissed_at")
        row.save(update_fields=fields)
    push_to_host(row.game_id, {"event": "proposal", "id": row.pk})
    return row


def deleted_votes(game: Game) -> list[Proposal]:
    """«+» of the vote being counted that their senders deleted: the F18 fouls to propose."""
    return list(
        Proposal.objects.filter(
            game=game, kind="plus", step_key=game.clock_key, deleted_at__isnull=False, seat__isnull=False
        ).order_by("sent_at")
    )


def backfill_targets() -> tuple[int | None, list[int], list[int]]:
    """What on_ready reads again: the last message id seen, the live games' text channels
    and their linked players' ids."""
    beat = BotHeartbeat.objects.filter(pk=1).first()
    channels: set[int] = set()
    users: set[int] = set()
    for link in _live_links():
        if link.text_channel_id and link.text_proven:
            channels.add(link.text_channel_id)
        users.update(link.seat_map().by_seat.values())  # a pending member's «да» goes through receive_confirmation
    return (beat.last_message_id if beat else None), sorted(channels), sorted(users)


def linked_voice_channels() -> set[int]:
    """The voice channels of the games still being played: the ones whose members the bot reports."""
    live = DiscordLink.objects.exclude(game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED]).exclude(
        voice_channel_id__isnull=True
    )
    return {channel for channel in live.values_list("voice_channel_id", flat=True) if channel is not None}


def save_voice_snapshot(
    *, voice_channel_id: int, members: Iterable[core.VoiceMember], taken_at: datetime | None = None
) -> VoiceSnapshot | None:
    """Replace what the bot last saw in a linked voice channel; a channel no live game links is not kept."""
    if voice_channel_id not in linked_voice_channels():
        return None
    rows = [
        {"id": str(m.user_id), "name": m.display_name[:100]}
        for m in sorted(members, key=lambda m: core.name_key(m.display_name))
    ]
    snapshot, _ = VoiceSnapshot.objects.update_or_create(
        voice_channel_id=voice_channel_id, defaults={"members": rows, "taken_at": taken_at or timezone.now()}
    )
    for link in _live_links().filter(voice_channel_id=voice_channel_id):
        _prove_present(link)  # seen in the game's proven voice channel: his seat is proven (issue 25-8)
    return snapshot


def voice_snapshot(game: Game) -> VoiceSnapshot | None:
    """The last snapshot of this game's voice channel (None: not linked, or the bot never reported it)."""
    link = DiscordLink.objects.filter(game=game).first()
    if link is None or link.voice_channel_id is None:
        return None
    return VoiceSnapshot.objects.filter(voice_channel_id=link.voice_channel_id).first()


def _store(
    game: Game,
    message_id: int,
    author_id: int,
    seat: int | None,
    kind: str,
    target: int | None,
    status: str,
    step: str | None,
    text: str,
    sent_at: datetime,
    role: str = "",
    step_key: str | None = None,
    recorded: str = "",
) -> Received:
    try:
        with transaction.atomic():
            row = Proposal.objects.create(
                game=game,
                message_id=message_id,
                author_id=author_id,
                seat=seat,
                kind=kind,
                target=target,
                role=role,
                status=status,
                step=step or "",
                step_key=game.clock_key if step_key is None else step_key,
                text=core.clean_text(text)[:200],
                sent_at=sent_at,
                recorded=recorded,
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


def confirm(
    *, game: Game, action: dict[str, Any], proposal_ids: Iterable[int], expected_seq: int | None, by: Any
) -> game_services.Outcome:
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
    user = link.proven_seat_map().user_of(target) if link else None
    if user is None:
        return  # a pending member is told nothing (issue 25-8)
    seq = outcome.action.seq if outcome.action else game.seq
    enqueue_post(game=game, kind=PostKind.WINK, key=f"wink:{seq}", text=core.wink_relay_text(by), to_user_id=user)


class VoteOrderError(core.BridgeError):
    """A chat chore out of the regulations' order (V1: the line comes before any «кто за N»)."""


def vote_click(*, game: Game, candidate: int) -> DiscordLink:
    """The host's «кто за N» click: the count of candidate N begins now (V2).

    V1: only after the line was posted (the 5 s count, then the line, then
    the candidates); before it a «кто за N» would open a count in which every
    «+» is no vote. The click writes only the vote's own fields: it never
    re-saves the link (routing must not depend on who clicked last).
    """
    now = timezone.now()
    with transaction.atomic():
        link = DiscordLink.objects.select_for_update().get(game=game)
        if link.vote_key != game.clock_key or link.vote_line_at is None:
            raise VoteOrderError("V1: first «Отсчёт 5 с → черта»; «кто за N» comes after the line is posted.")
        if candidate not in game_reading.game_state(game).nominees:
            raise VoteOrderError(f"V2: {candidate} is not a candidate of this vote.")
        clicks = [*link.vote_clicks, [candidate, now.isoformat()]]
        DiscordLink.objects.filter(pk=link.pk).update(vote_clicks=clicks)
        link.vote_clicks = clicks
    return link


def vote_count_start(*, game: Game, now: datetime | None = None) -> ChatPost | None:
    """V1: the voting step begins with «даю 5 секунд закончить жестикуляцию»; the line is
    posted when the 5 s end. Its mark (`vote_line_at`) is the posted message's own Discord
    time, set when it is delivered (line_posted), not the time it was due."""
    now = now or timezone.now()
    due = core.line_due(now, LINE_DELAY.total_seconds())
    with transaction.atomic():
        link = DiscordLink.objects.select_for_update().get(game=game)
        if game_reading.game_state(game).step != "voting":
            raise VoteOrderError("V1: the 5 s count and the line belong to the voting step.")
        if link.vote_key != game.clock_key:
            DiscordLink.objects.filter(pk=link.pk).update(vote_key=game.clock_key, vote_clicks=[], vote_line_at=None)
        return enqueue_post(game=game, kind=PostKind.LINE, key=f"line:{game.clock_key}", text=core.LINE, due_at=due)


def line_posted(post: ChatPost, posted_at: datetime) -> None:
    """The V1 line is in the channel: its own time is the mark, then the candidates (V2)."""
    key = post.dedupe_key.removeprefix("line:")
    game = post.game
    DiscordLink.objects.filter(game_id=post.game_id, vote_key=key, vote_line_at__isnull=True).update(
        vote_line_at=posted_at
    )
    game.refresh_from_db()
    if game.clock_key == key:
        post_candidates(game)
    push_to_host(post.game_id, {"event": "line_posted"})


def request_fouls(*, game: Game) -> ChatPost | None:
    """X3: the host announces the foul counts."""
    state = game_reading.game_state(game)
    return enqueue_post(
        game=game, kind=PostKind.FOULS, key=f"fouls:{game.seq}", text=core.fouls_line(state.fouls, state.at_table)
    )


def post_candidates(game: Game) -> ChatPost | None:
    """V2: the host duplicates the candidates after the line (the key makes it once per vote)."""
    state = game_reading.game_state(game)
    if state.step != "voting" or not DiscordLink.objects.filter(game=game).exists():
        return None
    return enqueue_post(
        game=game,
        kind=PostKind.CANDIDATES,
        key=f"candidates:{game.clock_key}",
        text=core.candidates_line(state.nominees),
    )


MAX_WEBHOOK_URL = 300


def link_save(
    *,
    game: Game,
    guild_id: int | None,
    text_channel_id: int | None,
    voice_channel_id: int | None,
    webhook_url: str,
    seats: dict[str, Any],
    by: Any = None,
) -> DiscordLink:
    """Link a game to Discord (core.BridgeError on bad input; nothing changed then).

    A channel, a member or a webhook maps to one live game at most: a second
    live game that claims them is refused, so one host can never route another
    game's players, chat or webhook to his own panel. The only shared channel
    is a tournament's, which its tables inherit (game_for_channel routes it).

    Links that are proven (issue 25-8): the channels a tournament's organizer set (inherited,
    or saved by an organizer, `by`) are proven at once; any other channel waits for the bot's
    check that the host's own Discord account is a member of the server who sees it
    (`channels_check_due`). A seat's member stays pending — nothing routed to or from him —
    until the bot sees him in the game's proven voice channel, or he answers «да» to the DM
    it sends him («Вы — №4 в игре …?»). A proof of a member who is no longer linked is void.
    """
    seat_map = core.SeatMap.build(seats)
    webhook_url = (webhook_url or "").strip()
    if webhook_url:
        problem = webhook.webhook_url_problem(webhook_url)
        if problem:
            raise core.BridgeError(problem)
    inherited = _tournament_link(game)
    guild = guild_id or (inherited.guild_id if inherited else None)
    text_channel = text_channel_id or (inherited.text_channel_id if inherited else None)
    voice_channel = voice_channel_id or (inherited.voice_channel_id if inherited else None)
    url = webhook_url or (inherited.webhook_url if inherited else "")
    if url and webhook.webhook_url_problem(url):
        raise core.BridgeError(f"The tournament's webhook URL is refused: {webhook.webhook_url_problem(url)}")
    with transaction.atomic():
        others = list(_live_links().exclude(game=game))
        same_tournament = {o.game_id for o in others if inherited is not None and _tournament_link(o.game) == inherited}
        for other in others:
            shared_channel = other.game_id in same_tournament and text_channel == (
                inherited.text_channel_id if inherited else None
            )
            if text_channel is not None and other.text_channel_id == text_channel and not shared_channel:
                raise core.BridgeError(
                    f"This text channel is linked to another running game (#{other.game_id}); finish or unlink it first."
                )
            if (
                voice_channel is not None
                and other.voice_channel_id == voice_channel
                and other.game_id not in same_tournament
            ):
                raise core.BridgeError(f"This voice channel is linked to another running game (#{other.game_id}).")
            if url and other.webhook_url == url and other.game_id not in same_tournament:
                raise core.BridgeError("This webhook is linked to another running game.")
            taken = sorted(
                seat for seat, user in seat_map.by_seat.items() if other.seat_map().seat_of(user) is not None
            )
            if taken:
                raise core.BridgeError(
                    f"Seats {', '.join(map(str, taken))}: these Discord members play in another running game (#{other.game_id})."
                )
        link, _ = DiscordLink.objects.get_or_create(game=game)
        guild_changed = link.guild_id != guild
        link.guild_id, link.text_channel_id, link.voice_channel_id, link.webhook_url = (
            guild,
            text_channel,
            voice_channel,
            url,
        )
        link.seats = seat_map.to_json()
        organizer = _is_organizer(game, by)
        now = timezone.now().isoformat()
        proofs = {} if guild_changed else dict(link.channels_proof or {})
        for kind, channel, from_tournament in (
            ("text", text_channel, inherited.text_channel_id if inherited else None),
            ("voice", voice_channel, inherited.voice_channel_id if inherited else None),
        ):
            if channel is None:
                proofs.pop(kind, None)
            elif organizer or (
                from_tournament is not None
                and channel == from_tournament
                and guild == (inherited.guild_id if inherited else None)
            ):
                proofs[kind] = {"id": str(channel), "by": "organizer", "at": now}
            elif str((proofs.get(kind) or {}).get("id", "")) != str(channel):
                proofs.pop(kind, None)
        link.channels_proof = proofs
        unproven = [
            kind
            for kind, channel in (("text", text_channel), ("voice", voice_channel))
            if channel is not None and kind not in proofs
        ]
        link.channels_check_due = bool(unproven)  # the bot checks the host's access (check_channels)
        link.channels_problem = ""
        # A proof (or a question asked) stands only for the member it names.
        link.seat_proofs = {
            seat: proof
            for seat, proof in (link.seat_proofs or {}).items()
            if seat_map.user_of(int(seat)) is not None
            and str(proof.get("user") or proof.get("asked")) == str(seat_map.user_of(int(seat)))
        }
        link.save()
        _prove_present(link)
        _mark_questions(link)
    return link


def _is_organizer(game: Game, by: Any) -> bool:
    """An organizer of the game's tournament (he configures its Discord: trusted as such)."""
    table = getattr(game, "tournament_table", None)
    if by is None or table is None:
        return False
    return bool(table.round.stage.tournament.is_organizer(by))


def host_discord_id(game: Game) -> int | None:
    """The host's own Discord account: the one his player profile names (players.Player.user)."""
    from players.models import Player

    for raw in (
        Player.objects.filter(user_id=game.host_id)
        .exclude(discord_user_id="")
        .values_list("discord_user_id", flat=True)
    ):
        try:
            return core.parse_snowflake(raw)
        except core.BridgeError:
            continue
    return None


def _prove_present(link: DiscordLink) -> list[int]:
    """Seats whose pending member the bot sees in the game's proven voice channel: proven."""
    if not link.voice_proven or link.voice_channel_id is None:
        return []
    snapshot = VoiceSnapshot.objects.filter(voice_channel_id=link.voice_channel_id).first()
    present = {m.user_id for m in snapshot.voice_members()} if snapshot else set()
    claimed = link.seat_map()
    seats = [seat for seat in link.pending_seats() if claimed.user_of(seat) in present]
    for seat in seats:
        prove_member(link, seat, claimed.user_of(seat), "voice")
    return seats


def prove_member(link: DiscordLink, seat: int, user_id: int | None, how: str) -> bool:
    """Mark a seat's member proven ("voice": seen in the proven voice channel; "dm": he said
    «да»), if the seat still names him. Returns whether it changed."""
    with transaction.atomic():
        row = DiscordLink.objects.select_for_update().get(pk=link.pk)
        if user_id is None or row.seat_map().user_of(seat) != user_id or seat in row.proven_seat_map().by_seat:
            return False
        row.seat_proofs = {
            **(row.seat_proofs or {}),
            str(seat): {"user": str(user_id), "by": how, "at": timezone.now().isoformat()},
        }
        # Saved, not updated: the voice chores re-plan on a saved link (a member proven
        # mid-game gets his number, his mute, his invite then).
        row.save(update_fields=["seat_proofs", "updated_at"])
        link.seat_proofs = row.seat_proofs
    push_to_host(link.game_id, {"event": "link_proven", "seat": seat})
    return True


def confirm_question(game: Game, seat: int) -> str:
    title = game.display_title
    return f"Вы — №{seat} в игре «{title}» (ведущий {game.host.get_username()})? Ответьте «да» или «нет»."


def _unasked(link: DiscordLink) -> list[tuple[int, int]]:
    claimed, proofs = link.seat_map(), link.seat_proofs or {}
    out = []
    for seat in link.pending_seats():
        user = claimed.user_of(seat)
        if user is not None and str((proofs.get(str(seat)) or {}).get("asked", "")) != str(user):
            out.append((seat, user))
    return out


def _mark_questions(link: DiscordLink) -> None:
    """The bot asks each pending member once (ask_pending); a flag keeps its poll one query."""
    due = bool(_unasked(link))
    if due != link.ask_due:
        DiscordLink.objects.filter(pk=link.pk).update(ask_due=due)
        link.ask_due = due


@dataclass(frozen=True)
class Question:
    link_id: int
    seat: int
    user_id: int
    text: str


def questions_due() -> list[Question]:
    """The confirmation DMs the bot owes («Вы — №4 в игре …? да»): one per pending seat and member."""
    out: list[Question] = []
    for link in _live_links().filter(ask_due=True):
        out.extend(Question(link.pk, seat, user, confirm_question(link.game, seat)) for seat, user in _unasked(link))
    return out


def question_asked(question: Question, problem: str = "") -> None:
    """The bot sent (or could not send: `problem`, e.g. his DMs are closed) the question."""
    with transaction.atomic():
        link = DiscordLink.objects.select_for_update().select_related("game").filter(pk=question.link_id).first()
        if (
            link is None
            or link.seat_map().user_of(question.seat) != question.user_id
            or question.seat in link.proven_seat_map().by_seat
        ):
            return
        entry: dict[str, str] = {"asked": str(question.user_id), "at": timezone.now().isoformat()}
        if problem:
            entry["problem"] = problem[:200]
        link.seat_proofs = {**(link.seat_proofs or {}), str(question.seat): entry}
        DiscordLink.objects.filter(pk=link.pk).update(seat_proofs=link.seat_proofs)
        _mark_questions(link)
    push_to_host(link.game_id, {"event": "link_asked", "seat": question.seat})


_YES = ("да", "yes", "y", "д", "ага", "подтверждаю")
_NO = ("нет", "no", "n", "н")


@dataclass(frozen=True)
class Confirmation:
    reply: str
    changed: bool


def receive_confirmation(*, author_id: int, text: str) -> Confirmation | None:
    """A DM from a member whose seat is pending (issue 25-8): «да» proves it, «нет» unlinks him
    from that seat (the host sees it), anything else is answered with the question again and
    routed nowhere. None: he has no pending seat (the DM goes on to receive_dm).

    link_save lets one live game claim a member at most, so his answer names one seat."""
    pending = [
        (link, seat)
        for link in _live_links()
        if (seat := link.seat_map().seat_of(author_id)) is not None and seat not in link.proven_seat_map().by_seat
    ]
    if len(pending) != 1:
        return None
    link, seat = pending[0]
    word = core.clean_text(text).strip().lower().strip(' .!«»"')
    title = link.game.display_title
    if word in _YES:
        changed = prove_member(link, seat, author_id, "dm")
        return Confirmation(f"Подтверждено: вы — №{seat} в игре «{title}».", changed)
    if word in _NO:
        with transaction.atomic():
            row = DiscordLink.objects.select_for_update().get(pk=link.pk)
            seats = {k: v for k, v in (row.seats or {}).items() if not (k == str(seat) and str(v) == str(author_id))}
            changed = seats != (row.seats or {})
            # Kept for the host's panel («отказался»); it names no user, so it proves nothing.
            proofs = {
                **(row.seat_proofs or {}),
                str(seat): {"refused": str(author_id), "at": timezone.now().isoformat()},
            }
            DiscordLink.objects.filter(pk=row.pk).update(seats=seats, seat_proofs=proofs)
        push_to_host(link.game_id, {"event": "link_refused", "seat": seat})
        return Confirmation(f"Хорошо: вы не привязаны к игре «{title}»; ведущий это увидит.", changed)
    return Confirmation("Сначала подтвердите место. " + confirm_question(link.game, seat), False)


@dataclass(frozen=True)
class ChannelCheck:
    """What the bot checks for a link: that the host's Discord account is a member of the
    server who sees the text channel (and may write) and the voice channel (and may connect)."""

    link_id: int
    guild_id: int | None
    text_channel_id: int | None
    voice_channel_id: int | None
    host_discord_id: int | None


def channels_to_check() -> list[ChannelCheck]:
    return [
        ChannelCheck(
            link.pk,
            link.guild_id,
            link.text_channel_id if not link.text_proven else None,
            link.voice_channel_id if not link.voice_proven else None,
            host_discord_id(link.game),
        )
        for link in _live_links().filter(channels_check_due=True).select_related("game")
    ]


def channels_checked(check: ChannelCheck, proven: Iterable[str], problem: str = "") -> DiscordLink | None:
    """The bot's answer: the kinds ("text", "voice") it found the host has access to, and why
    not for the others. Ignored if the link changed since (a newer check is due then)."""
    now = timezone.now().isoformat()
    with transaction.atomic():
        link = DiscordLink.objects.select_for_update().select_related("game").filter(pk=check.link_id).first()
        if link is None or link.guild_id != check.guild_id:
            return None
        ids = {"text": check.text_channel_id, "voice": check.voice_channel_id}
        current = {"text": link.text_channel_id, "voice": link.voice_channel_id}
        if any(ids[k] is not None and ids[k] != current[k] for k in ids):
            return None
        proofs = dict(link.channels_proof or {})
        for kind in proven:
            if ids.get(kind) is not None:
                proofs[kind] = {"id": str(ids[kind]), "by": "bot", "at": now}
        link.channels_proof = proofs
        link.channels_check_due = False
        link.channels_problem = problem[:200]
        link.save(update_fields=["channels_proof", "channels_check_due", "channels_problem", "updated_at"])
    _prove_present(link)
    push_to_host(link.game_id, {"event": "link_checked"})
    return link


def _tournament_link(game: Game) -> TournamentDiscordLink | None:
    """A tournament table's game inherits its tournament's channel."""
    table = getattr(game, "tournament_table", None)
    if table is None:
        return None
    return TournamentDiscordLink.objects.filter(tournament_id=table.round.stage.tournament_id).first()


# --- the outbox --------------------------------------------------------------------------


def enqueue_post(
    *, game: Game, kind: str, key: str, text: str, due_at: datetime | None = None, to_user_id: int | None = None
) -> ChatPost | None:
    """Queue a post once per key; a webhook post is delivered on time by a timer after the commit."""
    try:
        with transaction.atomic():
            post = ChatPost.objects.create(
                game=game, kind=kind, dedupe_key=key, text=text, to_user_id=to_user_id, due_at=due_at or timezone.now()
            )
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


# A post is worth sending only while it still means something: a line or a
# candidates list a minute late misleads the players (V1), so it is dropped
# as «устарело» and the host sees it.
POST_EXPIRES = timedelta(seconds=60)
# A post left `sending` this long (its process died mid-post) may or may not
# be in the channel: the host decides («возможно отправлено»).
SENDING_RECLAIM = timedelta(seconds=120)


def webhook_origin() -> str:
    """Tests only: a local Discord-like server receives what would go to Discord."""
    return str(getattr(settings, "DISCORD_WEBHOOK_ORIGIN", "") or "")


def claim_post(post_id: int, now: datetime | None = None) -> ChatPost | None:
    """Move a pending post to `sending`; only one deliverer wins, so it is posted once.
    A post past its expiry is marked «устарело» instead and never sent."""
    now = now or timezone.now()
    if ChatPost.objects.filter(pk=post_id, state=PostState.PENDING, due_at__lt=now - POST_EXPIRES).update(
        state=PostState.EXPIRED, last_error="устарело: не отправлено позже минуты"
    ):
        post = ChatPost.objects.get(pk=post_id)
        push_to_host(post.game_id, {"event": "post_failed", "id": post.pk})
        return None
    if (
        ChatPost.objects.filter(pk=post_id, state=PostState.PENDING).update(state=PostState.SENDING, claimed_at=now)
        != 1
    ):
        return None
    return ChatPost.objects.select_related("game").get(pk=post_id)


def finish_post(
    post: ChatPost,
    *,
    ok: bool,
    attempts: int,
    error: str = "",
    uncertain: bool = False,
    message_id: int | None = None,
    posted_at: datetime | None = None,
) -> None:
    post.state = PostState.SENT if ok else (PostState.UNCERTAIN if uncertain else PostState.FAILED)
    post.attempts = post.attempts + attempts
    post.last_error = error[:300]
    post.sent_at = timezone.now() if ok else None
    post.message_id = message_id
    post.save(update_fields=["state", "attempts", "last_error", "sent_at", "message_id"])
    if ok and post.kind == PostKind.LINE:
        line_posted(
            post, posted_at or (webhook.snowflake_time(message_id) if message_id else post.sent_at or timezone.now())
        )
    if not ok:
        push_to_host(post.game_id, {"event": "post_failed", "id": post.pk})


def _close_db() -> None:
    from django.db import connection

    connection.close()


def deliver_webhook_post(post_id: int, due_at: datetime | None = None) -> webhook.PostResult | None:
    """Deliver one queued post through the game's webhook; failures are recorded, never raised.

    No database connection is held while waiting: the link is read, the
    connection closed, the HTTPS connection opened and the mark awaited; the
    claim and the result are two short queries around the POST, which is
    itself bounded (webhook.DEADLINE, webhook.MAX_ANSWER).
    """
    claimed: ChatPost | None = None
    try:
        post = ChatPost.objects.filter(pk=post_id, state=PostState.PENDING).first()
        link = DiscordLink.objects.filter(game_id=post.game_id).first() if post else None
        if post is None or link is None or not link.webhook_url:
            return None  # already taken, or left for the bot
        url, text = link.webhook_url, post.text
        problem = webhook.webhook_url_problem(url)
        if problem:  # a row saved before the URL rules existed: never posted anywhere but Discord
            claimed = claim_post(post_id)
            if claimed is not None:
                finish_post(claimed, ok=False, attempts=0, error=problem)
            claimed = None
            return None
        _close_db()
        prepared = webhook.PreparedPost(url, text, origin=webhook_origin())
        if due_at is not None:
            wait = (due_at - timezone.now()).total_seconds()
            if wait > 0:
                time.sleep(wait)
        claimed = claim_post(post_id)
        _close_db()
        if claimed is None:
            prepared.close()
            return None  # another deliverer won, or it expired: never posted twice
        result = prepared.send()
        finish_post(
            claimed,
            ok=result.ok,
            attempts=result.attempts,
            error=result.error,
            uncertain=result.uncertain,
            message_id=result.message_id,
        )
        return result
    except Exception:  # a delivery thread must never die loudly, nor leave a post `sending`
        log.exception("webhook delivery of post %s failed", post_id)
        if claimed is not None:
            try:
                ChatPost.objects.filter(pk=claimed.pk, state=PostState.SENDING).update(
                    state=PostState.UNCERTAIN, last_error="возможно отправлено: внутренняя ошибка при отправке"
                )
            except Exception:
                log.exception("could not mark post %s", post_id)
        return None
    finally:
        _close_db()


def retry_post(*, game: Game, post_id: int) -> None:
    """The host asks again for a failed, uncertain or expired post (his decision: it may post twice)."""
    if ChatPost.objects.filter(
        game=game, pk=post_id, state__in=[PostState.FAILED, PostState.UNCERTAIN, PostState.EXPIRED]
    ).update(state=PostState.PENDING, due_at=timezone.now()):
        link = DiscordLink.objects.filter(game=game).first()
        if link is not None and link.webhook_url:
            schedule_webhook_delivery(post_id, timezone.now())


STALE_WEBHOOK_POST = timedelta(seconds=5)


def sweep_stale_webhook_posts(now: datetime | None = None) -> list[threading.Thread]:
    """Webhook posts still pending well after their mark (the web process that queued them
    restarted before its timer fired): delivered once (claim_post) by threads of their own,
    so the bot's database thread never waits on HTTP. Posts stuck `sending` are reclaimed
    as «возможно отправлено»; the expired are dropped by the claim."""
    now = now or timezone.now()
    ChatPost.objects.filter(state=PostState.SENDING, claimed_at__lt=now - SENDING_RECLAIM).update(
        state=PostState.UNCERTAIN, last_error="возможно отправлено: отправка прервалась"
    )
    stale = ChatPost.objects.filter(
        state=PostState.PENDING, to_user_id__isnull=True, due_at__lt=now - STALE_WEBHOOK_POST
    ).exclude(game__discord_link__webhook_url="")
    threads = []
    for post_id in list(stale.values_list("pk", flat=True)[:20]):
        # Two sweeps may start two deliverers: the claim lets one of them post.
        threads.append(schedule_webhook_delivery(post_id, now))
    return threads


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
