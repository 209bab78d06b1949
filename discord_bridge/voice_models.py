"""The voice chores' rows (issue 29), imported by discord_bridge.models.

- `VoiceControl`: per linked game, the link's voice settings and the members the bot should
  keep muted now (`desired`, computed in the web process on each game change), with a
  revision the bot applies (`applied_revision`). A D7 pause ends by time, not by an action:
  `then_desired` takes over at `then_at`.
- `VoiceMute`: the journal of who the bot itself muted and has not unmuted yet. Only these
  are ever unmuted (a moderator's mute is never lifted); a restart reconciles from it.
- `VoiceJournal`: what the bot did, every failure with Discord's reason, and the voice
  alerts (deafened, left, returned): the host's console strip. Never in the protocol log.
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
    code = models.CharField(max_length=32, blank=True)  # the invite's code: a secret of the blacks (never on a public page)
    joined_at = models.DateTimeField(null=True, blank=True)  # seen a member of the blacks' server
    removed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user_id"], name="unique_black_invite_per_game_user")]

    def __str__(self) -> str:
        return f"invite of seat {self.seat} in game {self.game_id}: {self.state}"
