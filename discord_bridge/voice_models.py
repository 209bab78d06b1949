"""The voice chores' rows (issue 29), imported by discord_bridge.models.

- `VoiceControl`: per linked game, the link's voice settings and the members the bot should
  keep muted now (`desired`, computed in the web process on each game change), with a
  revision the bot applies (`applied_revision`). A D7 pause ends by time, not by an action:
  `then_desired` takes over at `then_at`.
- `VoiceMute`: the journal of who the bot itself muted and has not unmuted yet. Only these
  are ever unmuted (a moderator's mute is never lifted); a restart reconciles from it.
- `VoiceJournal`: what the bot did, every failure with Discord's reason, and the voice
  alerts (deafened, left, returned): the host's console strip. Never in the protocol log.
- `SilenceEvent`, `SeatProfile` (chore 5): a seated player's message, reaction or profile
  change during the game, shown to the host as a possible violation (never a foul by itself);
  the profile each seated member had when the bot first saw him in the game.
- `SeatNickname` (chore 1): the nickname the bot replaced with «N. …», restored after the game.
- `VoteRecheck` (chore 7): the host's «перепроверить»; the bot re-reads the channel's history.
- `RoundPublication`, `RoundNotice` (chore 8): a tournament round's seating sent by DM to each
  linked participant, and each notice or correction sent (a change sends one correction).
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class VoiceControl(models.Model):
    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="voice_control")
    # Link settings (on by default: the regulations make them the host's duty).
    mute_enabled = models.BooleanField(_("night mute, day unmute"), default=True)
    unmute_on_tech_pause = models.BooleanField(_("unmute the table during a tech pause (D7)"), default=True)
    alerts_enabled = models.BooleanField(_("voice alerts (deafened, left)"), default=True)
    draw_post_enabled = models.BooleanField(_("post the seat draw and DM each seat"), default=True)
    # Chore 3: the club's separate server for the blacks (lines 37-41): one-use, short-lived
    # invites by DM after the roles are recorded; revoked, and the blacks removed, after the game.
    mafia_guild_id = models.BigIntegerField(_("the blacks' server id"), null=True, blank=True)
    mafia_channel_id = models.BigIntegerField(_("the blacks' channel id"), null=True, blank=True)
    # The blacks' channel is open for writing and speaking only in the договорка (lines 39, 41):
    # `mafia_open` is the plan, `mafia_applied` what the bot last set (None: never touched).
    mafia_open = models.BooleanField(default=False)
    mafia_applied = models.BooleanField(null=True, blank=True)
    # Chore 1: «N. nick» while the game runs (needs Manage Nicknames), restored after it; off by default.
    seat_nicknames = models.BooleanField(_("nicknames with seat numbers"), default=False)
    # Discord user ids as strings (snowflakes exceed JSON's safe integers): {"user id": seat}.
    desired = models.JSONField(default=dict, blank=True)
    then_desired = models.JSONField(null=True, blank=True)
    then_at = models.DateTimeField(null=True, blank=True)
    # The host's «размутить всех»: nobody is muted until the next step change.
    released_at_key = models.CharField(max_length=64, blank=True)
    revision = models.PositiveIntegerField(default=0)
    applied_revision = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["revision", "applied_revision"])]

    def __str__(self) -> str:
        return f"voice control of game {self.game_id} (rev {self.revision}, applied {self.applied_revision})"


class VoiceMute(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="voice_mutes")
    guild_id = models.BigIntegerField()
    user_id = models.BigIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    muted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user_id"], name="unique_voice_mute_per_game_user")]

    def __str__(self) -> str:
        return f"seat {self.seat} muted by the bot in game {self.game_id}"


class VoiceJournal(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="voice_journal")
    at = models.DateTimeField()
    kind = models.CharField(max_length=16)  # mute | unmute | deafened | undeafened | left | returned | release
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    ok = models.BooleanField(default=True)
    detail = models.CharField(max_length=300, blank=True)  # Discord's reason for a failure

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.kind} seat {self.seat} ({'ok' if self.ok else self.detail})"


class InviteState(models.TextChoices):
    PENDING = "pending", _("ждёт")
    SENT = "sent", _("отправлено")
    FAILED = "failed", _("не отправлено")
    REVOKED = "revoked", _("отозвано")


class BlackInvite(models.Model):
    """One black's invite to the blacks' server: created and DMed once, revoked after the game."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="black_invites")
    seat = models.PositiveSmallIntegerField()
    user_id = models.BigIntegerField()
    state = models.CharField(max_length=16, choices=InviteState.choices, default=InviteState.PENDING)
    code = models.CharField(
        max_length=32, blank=True
    )  # the invite's code: a secret of the blacks (never on a public page)
    joined_at = models.DateTimeField(null=True, blank=True)  # seen a member of the blacks' server
    removed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user_id"], name="unique_black_invite_per_game_user")]

    def __str__(self) -> str:
        return f"invite of seat {self.seat} in game {self.game_id}: {self.state}"


class SilenceEvent(models.Model):
    """Chore 5 (lines 13, 25, 59): a seated player's message in the game's text channel outside the
    vote, a reaction, or a nickname / avatar change during the game. The host's eyes only; a foul
    is recorded only if he presses its button (`foul_seq`: the action it became)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="silence_events")
    kind = models.CharField(max_length=16)  # chat | reaction | nick | avatar
    seat = models.PositiveSmallIntegerField()
    user_id = models.BigIntegerField()
    at = models.DateTimeField()
    # One event per Discord fact: a message id, a reaction (message, user, emoji), a profile change.
    key = models.CharField(max_length=120)
    detail = models.CharField(max_length=200, blank=True)  # the text, the emoji, «old → new»
    foul_seq = models.PositiveIntegerField(null=True, blank=True)
    dismissed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["game", "key"], name="unique_silence_event_per_game_key")]

    def __str__(self) -> str:
        return f"{self.kind} of seat {self.seat} in game {self.game_id}"

    @property
    def is_open(self) -> bool:
        return self.foul_seq is None and self.dismissed_at is None


class SeatProfile(models.Model):
    """A seated member's nickname and avatar as the bot first saw them in the game (the baseline a
    change is measured against; the bot's own «N. nick» moves it)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="seat_profiles")
    user_id = models.BigIntegerField()
    name = models.CharField(max_length=100, blank=True)
    avatar = models.CharField(max_length=100, blank=True)
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user_id"], name="unique_seat_profile_per_game_user")]


class SeatNickname(models.Model):
    """Written before the bot renames a member: his own nickname (None: he had none) to restore."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="seat_nicknames")
    guild_id = models.BigIntegerField()
    user_id = models.BigIntegerField()
    seat = models.PositiveSmallIntegerField()
    old_nick = models.CharField(max_length=32, null=True, blank=True)
    nick = models.CharField(max_length=32)
    set_at = models.DateTimeField(null=True, blank=True)
    restored_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user_id"], name="unique_seat_nickname_per_game_user")]


class VoteRecheck(models.Model):
    """Chore 7 (line 75): the host's «перепроверить»; the bot re-reads the history around the vote
    and stores the «+» whose assignment changes (`changes`: [{seat, message_id, before, after}])."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="vote_rechecks")
    vote_key = models.CharField(max_length=64)
    requested_at = models.DateTimeField()
    done_at = models.DateTimeField(null=True, blank=True)
    read = models.PositiveIntegerField(default=0)  # how many messages the bot read
    changes = models.JSONField(default=list, blank=True)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]


class RoundPublication(models.Model):
    """Chore 8: a round's seating published to its linked participants, with its start time."""

    round = models.OneToOneField("tournaments.Round", on_delete=models.CASCADE, related_name="discord_publication")
    starts_at = models.DateTimeField()
    published_at = models.DateTimeField()


class RoundNotice(models.Model):
    """One DM to one participant about one round: the first notice, then a correction per change."""

    round = models.ForeignKey("tournaments.Round", on_delete=models.CASCADE, related_name="discord_notices")
    user_id = models.BigIntegerField()
    participant = models.ForeignKey(
        "tournaments.Participant", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    correction = models.BooleanField(default=False)
    text = models.CharField(max_length=400)
    state = models.CharField(max_length=16, choices=InviteState.choices, default=InviteState.PENDING)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "user_id", "pk"]
