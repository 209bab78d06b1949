"""The Discord bridge's rows.

- `DiscordLink`: a game's server, channels, webhook URL (a secret: never on a
  public page, in log.json, exports or archives) and seats ↔ Discord users.
- `TournamentDiscordLink`: a tournament's server and channels, which a table's
  game inherits when its host links it (kept here, not on Tournament, so the
  tournaments app does not depend on this optional feature).
- `Proposal`: what a DM or a «+» in the game chat suggests; keyed by the
  Discord message id, so a message delivered twice is stored once, and
  applied at most once (`applied_at`, set under the game's lock).
- `ChatPost`: the outbox of lines the bot or the webhook posts in the game's
  text channel (V1 line, V2 candidates, X3 fouls), with its delivery state.
- `BotHeartbeat`: when the bot process last said it is alive.
- `VoiceSnapshot`: the members the bot last saw in a linked voice channel (the host's seat picker).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from discord_bridge.core import SeatMap, VoiceMember


class DiscordLink(models.Model):
    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="discord_link")
    guild_id = models.BigIntegerField(_("Discord server id"), null=True, blank=True)
    text_channel_id = models.BigIntegerField(_("text channel id"), null=True, blank=True)
    voice_channel_id = models.BigIntegerField(_("voice channel id"), null=True, blank=True)
    webhook_url = models.CharField(
        _("webhook URL"), max_length=300, blank=True, help_text=_("Secret: shown to nobody but the host.")
    )
    # {"seat": "discord user id"}; ids as strings (they exceed JSON's safe integers).
    seats = models.JSONField(_("seats"), default=dict, blank=True)
    # The vote being counted (V1, V2): its step key, the host's «кто за N»
    # clicks [[candidate, iso time]], and when the line was posted.
    vote_key = models.CharField(max_length=64, blank=True)
    vote_clicks = models.JSONField(default=list, blank=True)
    vote_line_at = models.DateTimeField(null=True, blank=True)
    # Issue 25-8, links that are proven: a seat's member counts only once the bot saw him in
    # the game's (proven) voice channel or he answered «да» to its DM; {"seat": {"user": "id",
    # "by": "voice" | "dm", "at": iso}}. A proof names its user: relinking the seat voids it.
    seat_proofs = models.JSONField(default=dict, blank=True)
    # The channels: {"text" | "voice": {"id": "…", "by": "bot" | "organizer", "at": iso}}; the bot
    # checks the host's Discord account sees them (`channels_check_due`), or the tournament's
    # organizer set them. `channels_problem`: why the bot's check failed (the host's eyes only).
    channels_proof = models.JSONField(default=dict, blank=True)
    channels_check_due = models.BooleanField(default=False)
    channels_problem = models.CharField(max_length=200, blank=True)
    ask_due = models.BooleanField(default=False)  # a pending member the bot has not asked yet
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Discord link of game {self.game_id}"

    def seat_map(self) -> SeatMap:
        """Every seat the host linked, proven or not (the settings form; the questions the bot asks)."""
        return SeatMap.build(self.seats or {})

    def proven_seat_map(self) -> SeatMap:
        """The seats whose member is proven (issue 25-8): the only ones DMs, «+», the bot's
        DMs and the voice chores (mutes, the seat number, invites, nicknames) are routed by. A pending member receives nothing and counts for nothing."""
        claimed = self.seat_map().by_seat
        proofs = self.seat_proofs or {}
        return SeatMap(
            {
                seat: user
                for seat, user in claimed.items()
                if str((proofs.get(str(seat)) or {}).get("user", "")) == str(user)
            }
        )

    def pending_seats(self) -> list[int]:
        proven = self.proven_seat_map().by_seat
        return [seat for seat in self.seat_map().by_seat if seat not in proven]

    def channel_proof(self, kind: str) -> str:
        """How the text or voice channel is proven: "bot", "organizer", or "" (not proven, or none linked)."""
        channel = self.text_channel_id if kind == "text" else self.voice_channel_id
        proof = (self.channels_proof or {}).get(kind) or {}
        if channel is None or str(proof.get("id", "")) != str(channel):
            return ""
        return str(proof.get("by", ""))

    @property
    def text_proven(self) -> bool:
        return bool(self.channel_proof("text"))

    @property
    def voice_proven(self) -> bool:
        return bool(self.channel_proof("voice"))


class TournamentDiscordLink(models.Model):
    tournament = models.OneToOneField("tournaments.Tournament", on_delete=models.CASCADE, related_name="discord_link")
    guild_id = models.BigIntegerField(null=True, blank=True)
    text_channel_id = models.BigIntegerField(null=True, blank=True)
    voice_channel_id = models.BigIntegerField(null=True, blank=True)
    webhook_url = models.CharField(max_length=300, blank=True)


class ProposalStatus(models.TextChoices):
    OK = "ok", _("в срок")
    LATE = "late", _("поздно")
    NOT_HIS_TURN = "not_his_turn", _("не его ход")
    REPEAT = "repeat", _("повтор")
    MISMATCH = "mismatch", _("не его место")
    UNKNOWN = "unknown", _("не понято")
    BEFORE_LINE = "before_line", _("до черты — не голос (V1)")
    AFTER_LINE = "after_line", _("после черты вне счёта — возможное нарушение (V1)")
    WITHDRAWN = "withdrawn", _("снят отправителем")
    RECORDED = "recorded", _("уже записано ведущим")


class Proposal(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="discord_proposals")
    message_id = models.BigIntegerField(unique=True)
    author_id = models.BigIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=16)  # role | shot | don_check | sheriff_check | wink | plus | unknown
    target = models.PositiveSmallIntegerField(null=True, blank=True)
    role = models.CharField(max_length=16, blank=True)
    status = models.CharField(max_length=16, choices=ProposalStatus.choices)
    step = models.CharField(max_length=32, blank=True)
    # The game's clock key when it arrived: a proposal belongs to one step.
    step_key = models.CharField(max_length=64, blank=True)
    text = models.CharField(max_length=200, blank=True)  # the DM itself: the host's eyes only
    sent_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    relayed_at = models.DateTimeField(null=True, blank=True)  # a wink told to its target
    # An edit: what the message said before (the host sees «изменено: 6 → 5»); a deletion's time.
    edited_from = models.CharField(max_length=200, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    # A DM for a step the host had already recorded: what the log says («5», «никого»).
    recorded = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["sent_at", "message_id"]
        indexes = [models.Index(fields=["game", "step_key"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.seat}→{self.target} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.applied_at is None and self.dismissed_at is None


class PostKind(models.TextChoices):
    CANDIDATES = "candidates", _("кандидаты (V2)")
    LINE = "line", _("черта (V1)")
    FOULS = "fouls", _("фолы (X3)")
    WINK = "wink", _("мигание (N12)")
    DRAW = "draw", _("жребий рассадки (S1)")


class PostState(models.TextChoices):
    PENDING = "pending", _("ждёт")
    SENT = "sent", _("отправлено")
    SENDING = "sending", _("отправляется")
    FAILED = "failed", _("не отправлено")
    UNCERTAIN = "uncertain", _("возможно отправлено")
    EXPIRED = "expired", _("устарело")


class ChatPost(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="discord_posts")
    kind = models.CharField(max_length=16, choices=PostKind.choices)
    # One logical post per key (e.g. "line:<vote key>"): enqueueing it again
    # is a no-op, so a retry or a second worker never posts it twice.
    dedupe_key = models.CharField(max_length=120)
    text = models.CharField(max_length=2000)
    # A DM (wink relay) goes to one user; otherwise the game's text channel.
    to_user_id = models.BigIntegerField(null=True, blank=True)
    due_at = models.DateTimeField(default=timezone.now)
    state = models.CharField(max_length=16, choices=PostState.choices, default=PostState.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)  # when a deliverer took it (stuck `sending` is reclaimed)
    message_id = models.BigIntegerField(
        null=True, blank=True
    )  # the posted message (its snowflake tells when it appeared)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["game", "dedupe_key"], name="unique_post_per_game_key")]

    def __str__(self) -> str:
        return f"{self.kind} for game {self.game_id}: {self.state}"


class BotHeartbeat(models.Model):
    """One row (pk 1): the bot writes `seen_at` every few seconds while connected."""

    seen_at = models.DateTimeField()
    bot_user = models.CharField(max_length=100, blank=True)

    # False from on_disconnect until on_ready / on_resumed: the process lives but the gateway is down.
    connected = models.BooleanField(default=True)
    # The newest Discord message id the bot has handled: on_ready backfills from it.
    last_message_id = models.BigIntegerField(null=True, blank=True)

    ONLINE_WITHIN = timedelta(seconds=60)

    @classmethod
    def beat(cls, bot_user: str = "") -> None:
        # The process is alive; whether the gateway is up is `connected` (on_disconnect / on_ready / on_resumed).
        cls.objects.update_or_create(pk=1, defaults={"seen_at": timezone.now(), "bot_user": bot_user})

    @classmethod
    def gateway(cls, connected: bool) -> None:
        """on_disconnect / on_resumed: the console says «бот не в сети» while the gateway is down."""
        if not cls.objects.filter(pk=1).update(connected=connected, seen_at=timezone.now()):
            cls.objects.create(pk=1, seen_at=timezone.now(), connected=connected)

    @classmethod
    def saw_message(cls, message_id: int) -> None:
        cls.objects.filter(pk=1).filter(
            models.Q(last_message_id__isnull=True) | models.Q(last_message_id__lt=message_id)
        ).update(last_message_id=message_id)

    @classmethod
    def is_online(cls) -> bool:
        row = cls.objects.filter(pk=1).first()
        return row is not None and row.connected and timezone.now() - row.seen_at < cls.ONLINE_WITHIN


class VoiceSnapshot(models.Model):
    """Who the bot last saw in a linked voice channel: ids and display names, for the host's
    seat picker only (never on a public page). `members`: [{"id": "…", "name": "…"}], ids as
    strings (snowflakes exceed JSON's safe integers)."""

    voice_channel_id = models.BigIntegerField(unique=True)
    members = models.JSONField(default=list, blank=True)
    taken_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"voice channel {self.voice_channel_id}: {len(self.members)} members at {self.taken_at:%H:%M:%S}"

    def voice_members(self) -> list[VoiceMember]:
        return [VoiceMember(int(m["id"]), str(m.get("name", ""))) for m in self.members]


from discord_bridge.voice_models import BlackInvite as BlackInvite  # noqa: E402
from discord_bridge.voice_models import RoundNotice as RoundNotice  # noqa: E402  (issue 29, chores 1, 5, 7, 8)
from discord_bridge.voice_models import RoundPublication as RoundPublication  # noqa: E402
from discord_bridge.voice_models import SeatNickname as SeatNickname  # noqa: E402
from discord_bridge.voice_models import SeatProfile as SeatProfile  # noqa: E402
from discord_bridge.voice_models import SilenceEvent as SilenceEvent  # noqa: E402
from discord_bridge.voice_models import VoiceControl as VoiceControl  # noqa: E402  (issue 29: the voice chores)
from discord_bridge.voice_models import VoiceJournal as VoiceJournal  # noqa: E402
from discord_bridge.voice_models import VoiceMute as VoiceMute  # noqa: E402
from discord_bridge.voice_models import VoteRecheck as VoteRecheck  # noqa: E402
