"""The voice chores' write path (issue 29): what the bot should do, and the journal of what it did.

The web process plans: on each game change (games.signals.game_changed, after commit) it maps
the game's state to the members who should be muted (discord_bridge.voice.muted_seats) and
stores them on the game's VoiceControl with a new revision. The bot process applies: it polls
for unapplied revisions (every 100 ms, in a loop apart from its outbox's: bot.ProtocolBot._voice_loop)
and reconciles the voice channel
with the plan and with the journal of whom it muted itself (VoiceMute). Nothing here writes
the protocol log; the host sees the journal in the console's Discord strip.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from discord_bridge import voice
from discord_bridge.models import ChatPost, DiscordLink, PostKind
from discord_bridge.voice_models import (
    BlackInvite,
    InviteState,
    SeatNickname,
    VoiceControl,
    VoiceJournal,
    VoiceMute,
)
from games import reading as game_reading
from games.models import Game, GameStatus
from games.reading import running_tech_pause
from games.rules.state import BLACK_ROLES

log = logging.getLogger(__name__)

MUTE = "mute"
UNMUTE = "unmute"
RELEASE = "release"


def _view(game: Game, *, tech_pause: bool) -> voice.VoiceView:
    state = game_reading.game_state(game)
    return voice.VoiceView(
        status=game.status,
        phase=state.phase,
        step=state.step,
        speaker=state.speaker,
        at_table=frozenset(state.at_table),
        tech_pause=tech_pause,
    )


def _as_desired(link: DiscordLink, seats: frozenset[int]) -> dict[str, int]:
    by_seat = link.proven_seat_map().by_seat
    return {str(by_seat[seat]): seat for seat in sorted(seats) if seat in by_seat}


def plan(game_id: int, now: datetime | None = None) -> VoiceControl | None:
    """Store who should be muted now in the game's voice channel; bump the revision if it changed."""
    link = DiscordLink.objects.filter(game_id=game_id).select_related("game").first()
    if link is None:
        return None
    game = link.game
    now = now or timezone.now()
    with transaction.atomic():
        control, _ = VoiceControl.objects.select_for_update().get_or_create(game=game)
        pause = running_tech_pause(game, now) if game.status == GameStatus.RUNNING else None
        released = bool(control.released_at_key) and control.released_at_key == game.clock_key
        then_desired: dict[str, int] | None = None
        then_at: datetime | None = None
        # Only a proven voice channel and proven members (issue 25-8): a host cannot make the bot mute another game's table.
        if not control.mute_enabled or released or link.voice_channel_id is None or not link.voice_proven:
            desired: dict[str, int] = {}
        else:
            linked = link.proven_seat_map().by_seat.keys()
            desired = _as_desired(
                link,
                voice.muted_seats(
                    _view(game, tech_pause=pause is not None), linked, unmute_on_tech_pause=control.unmute_on_tech_pause
                ),
            )
            if pause is not None:
                # The pause ends by time, with no action: the Night's (or Day's) plan takes over then.
                then_desired = _as_desired(link, voice.muted_seats(_view(game, tech_pause=False), linked))
                then_at = pause["deadline"]
        if not released:
            control.released_at_key = ""
        if (desired, then_desired, then_at) != (control.desired, control.then_desired, control.then_at):
            control.desired, control.then_desired, control.then_at = desired, then_desired, then_at
            control.revision += 1
        control.save()
    return control


DRAW_KIND = PostKind.DRAW  # a ChatPost kind of the bridge's outbox (delivered by its webhook or bot path)


def post_draw(game_id: int) -> list[int]:
    """Chore 1: the seating drawn in the console (S1, its `seat` action with a seed) is posted in the
    game's text channel once per seed, and each linked seat gets «Ваш номер: N» once. A manual
    seating (no seed) is no draw and is not posted. Returns the queued posts' ids."""
    from discord_bridge import services

    link = DiscordLink.objects.filter(game_id=game_id).select_related("game").first()
    if link is None or link.game.status not in (GameStatus.SETUP, GameStatus.RUNNING):
        return []
    control = VoiceControl.objects.filter(game_id=game_id).first()
    if control is not None and not control.draw_post_enabled:
        return []
    game = link.game
    drawn = None
    for payload in game.active_actions().values_list("payload", flat=True):
        if isinstance(payload, dict) and payload.get("do") == "seat":
            drawn = payload
    if drawn is None or not drawn.get("seed") or not isinstance(drawn.get("players"), list):
        return []
    seed, players = str(drawn["seed"]), [str(p) for p in drawn["players"]]
    # Every later game change comes here too: queue only what is not queued yet (no failing inserts).
    done = set(
        ChatPost.objects.filter(game=game, kind=DRAW_KIND, dedupe_key__startswith=f"draw:{seed}").values_list(
            "dedupe_key", flat=True
        )
    )
    queued = []
    if (link.text_channel_id or link.webhook_url) and f"draw:{seed}"[:120] not in done:
        post = services.enqueue_post(
            game=game, kind=DRAW_KIND, key=f"draw:{seed}"[:120], text=voice.draw_line(seed, players)
        )
        if post is not None:
            queued.append(post.pk)
    for seat, user in sorted(link.proven_seat_map().by_seat.items()):
        if f"draw:{seed}:{seat}:{user}"[:120] in done:
            continue
        post = services.enqueue_post(
            game=game, kind=DRAW_KIND, key=f"draw:{seed}:{seat}:{user}"[:120], text=voice.seat_dm(seat), to_user_id=user
        )
        if post is not None:
            queued.append(post.pk)
    return queued


def plan_invites(game_id: int) -> list[BlackInvite]:
    """Chore 3: once the roles are recorded (S2), one invite row per linked black; the bot creates
    and DMs it. Nothing when the link names no blacks' server. Returns the new rows."""
    link = DiscordLink.objects.filter(game_id=game_id).select_related("game").first()
    control = VoiceControl.objects.filter(game_id=game_id).first()
    if (
        link is None
        or control is None
        or control.mafia_channel_id is None
        or link.game.status != GameStatus.RUNNING
        and link.game.status != GameStatus.SETUP
    ):
        return []
    roles = game_reading.game_state(link.game).roles or {}
    by_seat = link.proven_seat_map().by_seat
    blacks = {(seat, by_seat[seat]) for seat, role in roles.items() if role in BLACK_ROLES and seat in by_seat}
    # The roles are recorded in setup and may be undone and recorded again before the start (or a
    # seat relinked): an invite not sent yet of someone who is no longer a black goes.
    stale = [
        i.pk
        for i in BlackInvite.objects.filter(game=link.game, state=InviteState.PENDING)
        if (i.seat, i.user_id) not in blacks
    ]
    BlackInvite.objects.filter(pk__in=stale).delete()
    created = []
    for seat, user in sorted(blacks):
        invite, new = BlackInvite.objects.get_or_create(game=link.game, user_id=user, defaults={"seat": seat})
        if new:
            created.append(invite)
    return created


@dataclass(frozen=True)
class InviteWork:
    """What the bot has to do on the blacks' server now."""

    to_send: list[BlackInvite]
    to_revoke: list[BlackInvite]  # the game is over: revoke the code, remove the member
    guild_ids: dict[int, int]  # game id → the blacks' server
    channel_ids: dict[int, int]  # game id → the blacks' channel


def invite_work() -> InviteWork:
    pending = list(BlackInvite.objects.filter(state=InviteState.PENDING, game__status=GameStatus.RUNNING))
    # Over means finished or annulled: the invites are planned at the roles (S2), while the game is
    # still in setup, and wait there for its start (taken for over, they were revoked unsent).
    over = list(
        BlackInvite.objects.filter(
            state__in=[InviteState.SENT, InviteState.PENDING, InviteState.FAILED],
            removed_at__isnull=True,
            game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED],
        )
    )
    ids = {i.game_id for i in pending + over}
    controls = {c.game_id: c for c in VoiceControl.objects.filter(game_id__in=ids)}
    return InviteWork(
        to_send=pending,
        to_revoke=over,
        guild_ids={g: c.mafia_guild_id for g, c in controls.items() if c.mafia_guild_id},
        channel_ids={g: c.mafia_channel_id for g, c in controls.items() if c.mafia_channel_id},
    )


def invite_sent(invite_id: int, *, code: str = "", error: str = "") -> None:
    BlackInvite.objects.filter(pk=invite_id).update(
        state=InviteState.FAILED if error else InviteState.SENT, code=code, last_error=error[:300]
    )
    invite = BlackInvite.objects.get(pk=invite_id)
    journal(game_id=invite.game_id, kind="invite", seat=invite.seat, ok=not error, detail=error)


def invites_to_watch() -> tuple[list[BlackInvite], dict[int, int]]:
    """Sent invites of live games whose black has not been seen on the blacks' server yet."""
    rows = list(
        BlackInvite.objects.filter(state=InviteState.SENT, joined_at__isnull=True, game__status=GameStatus.RUNNING)
    )
    controls = VoiceControl.objects.filter(game_id__in={r.game_id for r in rows}, mafia_guild_id__isnull=False)
    return rows, {c.game_id: c.mafia_guild_id for c in controls if c.mafia_guild_id is not None}


def invite_joined(invite_id: int) -> None:
    """The console's «все чёрные на сервере» before the host starts the договорка."""
    BlackInvite.objects.filter(pk=invite_id, joined_at__isnull=True).update(joined_at=timezone.now())
    invite = BlackInvite.objects.get(pk=invite_id)
    journal(game_id=invite.game_id, kind="joined", seat=invite.seat)


def invite_revoked(invite_id: int, *, error: str = "") -> None:
    BlackInvite.objects.filter(pk=invite_id).update(
        state=InviteState.REVOKED, removed_at=timezone.now(), code="", last_error=error[:300]
    )


def release_all(*, game: Game) -> VoiceControl:
    """The host's «размутить всех»: unmute everyone the bot muted, until the next step change."""
    with transaction.atomic():
        control, _ = VoiceControl.objects.select_for_update().get_or_create(game=game)
        control.released_at_key = game.clock_key or "-"
        control.desired, control.then_desired, control.then_at = {}, None, None
        control.revision += 1
        control.save()
        VoiceJournal.objects.create(game=game, at=timezone.now(), kind=RELEASE)
    return control


def save_settings(
    *,
    game: Game,
    mute_enabled: bool,
    unmute_on_tech_pause: bool,
    alerts_enabled: bool,
    draw_post_enabled: bool = True,
    mafia_guild_id: int | None = None,
    mafia_channel_id: int | None = None,
    seat_nicknames: bool = False,
) -> VoiceControl:
    control, _ = VoiceControl.objects.get_or_create(game=game)
    control.mafia_guild_id, control.mafia_channel_id = mafia_guild_id, mafia_channel_id
    control.mute_enabled, control.unmute_on_tech_pause, control.alerts_enabled = (
        mute_enabled,
        unmute_on_tech_pause,
        alerts_enabled,
    )
    control.draw_post_enabled, control.seat_nicknames = draw_post_enabled, seat_nicknames
    control.save()
    plan(game.pk)
    plan_invites(game.pk)
    plan_mafia_channel(game.pk)
    return control


# --- chore 3: the blacks' channel open only for the договорка (lines 37-41) ---------------------


def plan_mafia_channel(game_id: int) -> bool | None:
    """Open the blacks' channel for writing and speaking at «договорка», closed from «свободная
    посадка» on and after the game. Returns the plan (None: no blacks' channel)."""
    control = VoiceControl.objects.filter(game_id=game_id).select_related("game").first()
    if control is None or control.mafia_channel_id is None:
        return None
    game = control.game
    wanted = game.status == GameStatus.RUNNING and game_reading.game_state(game).step == "dogovorka"
    if control.mafia_open != wanted:
        VoiceControl.objects.filter(pk=control.pk).update(mafia_open=wanted)
    return wanted


@dataclass(frozen=True)
class MafiaChannelWork:
    game_id: int
    channel_id: int
    open: bool


def mafia_channel_work() -> list[MafiaChannelWork]:
    """What the bot has to set: a plan not applied yet, in a live game (its first state included:
    closed until the договорка), or an open channel left after the game."""
    live = Q(game__status=GameStatus.RUNNING)
    rows = VoiceControl.objects.filter(mafia_channel_id__isnull=False).filter(
        (live & Q(mafia_applied__isnull=True))
        | (live & Q(mafia_applied=False, mafia_open=True))
        | Q(mafia_applied=True, mafia_open=False)
    )
    return [
        MafiaChannelWork(c.game_id, c.mafia_channel_id, c.mafia_open) for c in rows if c.mafia_channel_id is not None
    ]


def mafia_channel_set(game_id: int, *, open: bool, error: str = "") -> None:
    if not error:
        VoiceControl.objects.filter(game_id=game_id).update(mafia_applied=open)
    journal(game_id=game_id, kind="mafia_open" if open else "mafia_closed", seat=None, ok=not error, detail=error)


# --- chore 1: nicknames with seat numbers, restored after the game --------------------------------


@dataclass(frozen=True)
class NickWork:
    game_id: int
    guild_id: int
    user_id: int
    seat: int | None  # None: restore his own nickname


def nickname_work() -> list[NickWork]:
    """Who should carry «N. nick» now (the link's setting on, the game in setup or running) and
    who should get his own nickname back (the game over, the setting off, the seat relinked)."""
    work: list[NickWork] = []
    wanted: set[tuple[int, int]] = set()
    controls = VoiceControl.objects.filter(seat_nicknames=True, game__status__in=[GameStatus.SETUP, GameStatus.RUNNING])
    links = {
        link.game_id: link
        for link in DiscordLink.objects.filter(
            game_id__in=controls.values_list("game_id", flat=True), guild_id__isnull=False
        )
    }
    done = {(n.game_id, n.user_id): n for n in SeatNickname.objects.filter(game_id__in=links.keys())}
    for game_id, link in links.items():
        assert link.guild_id is not None
        for seat, user_id in link.proven_seat_map().by_seat.items():
            wanted.add((game_id, user_id))
            row = done.get((game_id, user_id))
            if row is not None and (
                row.last_error or (row.seat == seat and row.set_at is not None and row.restored_at is None)
            ):
                continue  # set already, or refused by Discord (shown; not asked again)
            work.append(NickWork(game_id, link.guild_id, user_id, seat))
    for row in SeatNickname.objects.filter(set_at__isnull=False, restored_at__isnull=True, last_error=""):
        if (row.game_id, row.user_id) not in wanted:
            work.append(NickWork(row.game_id, row.guild_id, row.user_id, None))
    return work


def will_rename(*, game_id: int, guild_id: int, user_id: int, seat: int, old_nick: str | None, nick: str) -> None:
    """Written before the request: his own nickname is kept even if the bot dies mid-way."""
    row, new = SeatNickname.objects.get_or_create(
        game_id=game_id,
        user_id=user_id,
        defaults={"guild_id": guild_id, "seat": seat, "old_nick": old_nick, "nick": nick},
    )
    if not new:
        row.seat, row.nick, row.restored_at = seat, nick, None
        if row.set_at is None:
            row.old_nick = old_nick
        row.save(update_fields=["seat", "nick", "restored_at", "old_nick"])


def renamed(*, game_id: int, user_id: int, error: str = "") -> None:
    row = SeatNickname.objects.get(game_id=game_id, user_id=user_id)
    if error:
        row.last_error = error[:300]
        row.save(update_fields=["last_error"])
    else:
        row.set_at = timezone.now()
        row.save(update_fields=["set_at"])
    journal(game_id=game_id, kind="nick", seat=row.seat, ok=not error, detail=error)


def will_restore(*, game_id: int, user_id: int) -> SeatNickname | None:
    """Marked restored before the request: Discord's member update for it may arrive before the
    answer, and the silence check must know the change is the bot's (a failure clears it)."""
    SeatNickname.objects.filter(game_id=game_id, user_id=user_id).update(restored_at=timezone.now())
    return SeatNickname.objects.filter(game_id=game_id, user_id=user_id).first()


def restored(*, game_id: int, user_id: int, error: str = "") -> None:
    if error:
        SeatNickname.objects.filter(game_id=game_id, user_id=user_id).update(last_error=error[:300], restored_at=None)
    row = SeatNickname.objects.get(game_id=game_id, user_id=user_id)
    journal(game_id=game_id, kind="nick_restored", seat=row.seat, ok=not error, detail=error)


# --- the bot's side ------------------------------------------------------------------------


@dataclass(frozen=True)
class Reconcile:
    """One game's voice channel as the bot should leave it."""

    game_id: int
    revision: int
    guild_id: int | None
    voice_channel_id: int | None
    desired: dict[int, int]  # user id → seat: keep muted
    mine: dict[int, int]  # user id → seat: muted by the bot and not unmuted yet


def due_game_ids(now: datetime | None = None) -> list[int]:
    """Games whose plan the bot has not applied yet (a tech pause that ran out is promoted first)."""
    now = now or timezone.now()
    for control in VoiceControl.objects.filter(then_at__lte=now):
        with transaction.atomic():
            locked = VoiceControl.objects.select_for_update().get(pk=control.pk)
            if locked.then_at is not None and locked.then_at <= now:
                locked.desired, locked.then_desired, locked.then_at = locked.then_desired or {}, None, None
                locked.revision += 1
                locked.save()
    return list(VoiceControl.objects.filter(revision__gt=F("applied_revision")).values_list("game_id", flat=True))


def reconcilable_game_ids() -> list[int]:
    """On the bot's start: every game with a plan to apply or someone the bot still has muted."""
    live = VoiceControl.objects.filter(
        Q(game__status=GameStatus.RUNNING) | Q(revision__gt=F("applied_revision"))
    ).values_list("game_id", flat=True)
    muted = VoiceMute.objects.values_list("game_id", flat=True)
    return sorted(set(live) | set(muted))


def games_on_voice_channel(channel_ids: set[int]) -> list[int]:
    """The games a voice state change in these channels concerns: linked there, and live or with mutes left."""
    ids = (
        DiscordLink.objects.filter(voice_channel_id__in=channel_ids)
        .filter(Q(game__status=GameStatus.RUNNING) | Q(game__voice_mutes__isnull=False))
        .values_list("game_id", flat=True)
    )
    return sorted(set(ids))


def games_muting_user(user_id: int) -> list[int]:
    """The games where the bot keeps this member muted (he may return to the channel or to any channel)."""
    return sorted(set(VoiceMute.objects.filter(user_id=user_id).values_list("game_id", flat=True)))


def reconcile_for(game_id: int) -> Reconcile | None:
    link = DiscordLink.objects.filter(game_id=game_id).first()
    control = VoiceControl.objects.filter(game_id=game_id).first()
    mine = {m.user_id: m.seat or 0 for m in VoiceMute.objects.filter(game_id=game_id)}
    if control is None and not mine:
        return None
    desired = {int(u): int(s) for u, s in (control.desired if control else {}).items()}
    return Reconcile(
        game_id=game_id,
        revision=control.revision if control else 0,
        guild_id=link.guild_id if link else None,
        voice_channel_id=link.voice_channel_id if link else None,
        desired=desired,
        mine=mine,
    )


def mark_applied(game_id: int, revision: int) -> None:
    VoiceControl.objects.filter(game_id=game_id, applied_revision__lt=revision).update(applied_revision=revision)


def will_mute(*, game_id: int, guild_id: int, user_id: int, seat: int) -> None:
    """Written before the mute request: a crash between the two leaves a row to unmute, never a
    member muted that nobody remembers."""
    VoiceMute.objects.get_or_create(game_id=game_id, user_id=user_id, defaults={"guild_id": guild_id, "seat": seat})


def forget_mute(*, game_id: int, user_id: int) -> None:
    VoiceMute.objects.filter(game_id=game_id, user_id=user_id).delete()


def journal(
    *, game_id: int, kind: str, seat: int | None, ok: bool = True, detail: str = "", at: datetime | None = None
) -> VoiceJournal:
    from discord_bridge import services

    entry = VoiceJournal.objects.create(
        game_id=game_id, at=at or timezone.now(), kind=kind, seat=seat, ok=ok, detail=detail[:300]
    )
    services.push_to_host(game_id, {"event": "voice", "kind": kind})
    return entry


def alert(
    *, user_id: int, before: voice.VoicePresence, after: voice.VoicePresence, at: datetime | None = None
) -> list[VoiceJournal]:
    """A seated player's voice state changed: the host's alerts (information, never a penalty)."""
    entries: list[VoiceJournal] = []
    for link in DiscordLink.objects.filter(
        game__status=GameStatus.RUNNING, voice_channel_id__isnull=False
    ).select_related("game"):
        seat = link.proven_seat_map().seat_of(user_id)
        if seat is None or link.voice_channel_id is None:
            continue
        control = VoiceControl.objects.filter(game_id=link.game_id).first()
        if control is not None and not control.alerts_enabled:
            continue
        for kind in voice.presence_changes(before, after, link.voice_channel_id):
            entries.append(journal(game_id=link.game_id, kind=kind, seat=seat, at=at))
    return entries


TECH_REQUEST = "tech_request"


def answer_question(*, author_id: int, message_id: int, text: str) -> tuple[str, bool] | None:
    """Chore 6: «фолы» gets the sender's own count, privately; «тех» / «пауза» becomes a tech-pause
    proposal in the host's console. None when the DM is no such question (the bridge reads it).
    Returns (the answer, whether this message is new): a message read again is not answered twice."""
    from discord_bridge import services

    question = voice.question_of(text)
    if question is None:
        return None
    found = services.game_for_user(author_id)
    if found is None:
        return None
    game, seat = found
    if question == voice.FOULS:
        new = not VoiceJournal.objects.filter(game=game, kind="fouls_asked", detail=str(message_id)).exists()
        if new:
            VoiceJournal.objects.create(
                game=game, at=timezone.now(), kind="fouls_asked", seat=seat, detail=str(message_id)
            )
        return voice.fouls_answer(game_reading.game_state(game).fouls.get(seat, 0)), new
    if VoiceJournal.objects.filter(game=game, kind=TECH_REQUEST, detail=str(message_id)).exists():
        return voice.TECH_RECEIPT, False
    journal(game_id=game.pk, kind=TECH_REQUEST, seat=seat, detail=str(message_id))
    return voice.TECH_RECEIPT, True


def recent(game: Game, limit: int = 12) -> list[VoiceJournal]:
    return list(VoiceJournal.objects.filter(game=game)[:limit])


def muted_now(game: Game) -> list[int]:
    return sorted(m.seat or 0 for m in VoiceMute.objects.filter(game=game))
