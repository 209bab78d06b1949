"""Games and their protocol.

Terms:
- *action*: one host action of the protocol log (FORMAT.md), stored as a
  `GameAction` row with a per-game `seq`. The list of actions that are not
  undone is the game's truth; everything else is computed from it.
- *revision* (`Game.seq`): bumped by every change (an action recorded or one
  undone). The host page sends the revision it shows; a click made on a stale
  page is refused, so a double click is never applied twice.
- *projection*: rows written from the engine's record of the log
  (nominations, votes, penalties, night actions) so that the admin, standings
  and statistics can query the protocol without replaying games. They are
  rebuilt from the log on undo; the log stays the truth.
- *result rows* (`SeatResult`): one per seat, written when a game ends.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class GameStatus(models.TextChoices):
    SETUP = "setup", _("Setup")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    ANNULLED = "annulled", _("Annulled")


class Winner(models.TextChoices):
    RED = "red", _("Red")
    BLACK = "black", _("Black")
    DRAW = "draw", _("Draw")


class Role(models.TextChoices):
    CIVILIAN = "civilian", _("Civilian")
    SHERIFF = "sheriff", _("Sheriff")
    DON = "don", _("Don")
    MAFIA = "mafia", _("Mafia")


def new_overlay_token() -> str:
    return secrets.token_urlsafe(24)


class Game(models.Model):
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_games", verbose_name=_("host")
    )
    title = models.CharField(_("title"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    status = models.CharField(
        _("status"), max_length=16, choices=GameStatus.choices, default=GameStatus.SETUP, db_index=True
    )
    winner = models.CharField(_("winner"), max_length=8, choices=Winner.choices, blank=True)
    ppk = models.CharField(_("ППК"), max_length=8, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    seq = models.PositiveIntegerField(
        _("revision"), default=0, help_text=_("Bumped by every recorded or undone action.")
    )
    # The engine's public state after the last change, so lists and the board
    # can be drawn without a replay. Never holds roles or night secrets.
    public_state = models.JSONField(_("public state"), default=dict, blank=True)
    # The Regulations variant in force (games/rules/regulations.py), as a dict;
    # empty means the defaults of RULES.md.
    regulations = models.JSONField(_("regulations"), default=dict, blank=True)
    seating_seed = models.CharField(_("seating seed"), max_length=64, blank=True)

    # Clock of the current step (DESIGN.md "Clocks"): the server stores when it
    # started and how long it runs; browsers count down from the deadline.
    clock_key = models.CharField(max_length=64, blank=True, help_text="Identifies the step the clock belongs to.")
    clock_duration_ms = models.PositiveIntegerField(default=0)
    clock_started_at = models.DateTimeField(null=True, blank=True, help_text="Set while running.")
    clock_elapsed_ms = models.PositiveIntegerField(default=0, help_text="Run time before the last pause.")
    # D8 time-out: every clock stops while it is set.
    timeout_since = models.DateTimeField(null=True, blank=True)
    # D7 technical pause: it runs from its `tech_pause` action (the log's last
    # active action) for Regulations.tech_pause seconds, unless the host ended
    # it early at this moment (clock state, not a log action: FORMAT.md unchanged).
    tech_pause_ended_at = models.DateTimeField(
        null=True, blank=True, help_text="When the host ended the technical pause early."
    )

    # The public revision (issue 24): what the public board shows is a pure
    # function of `public_facts` (games.board.public), and `public_rev`
    # moves only when they change — never with `seq`, which counts the host's
    # actions (a night action, an undo of one) and so tells secrets by rhythm.
    public_rev = models.PositiveIntegerField(default=0, help_text="Bumped only when the public board's facts change.")
    public_facts = models.JSONField(default=dict, blank=True, help_text="What the public board shows (no secret).")
    public_at = models.DateTimeField(null=True, blank=True, help_text="When the public facts last changed.")

    overlay_token = models.CharField(max_length=64, blank=True, default="", db_index=True)
    # The overlay shows the roles: a delay longer than a player needs to see the
    # stream protects a live game (issue 24); 0 s only after a confirmation.
    overlay_delay_seconds = models.PositiveSmallIntegerField(default=120)
    # Counts for the players' rating once finished (tournament games always do).
    rated = models.BooleanField(_("rated"), default=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("game")
        verbose_name_plural = _("games")
        # Granted by staff (admin: a user's or a group's permissions): a casual
        # game counts for the players' rating only when its host has it
        # (players/trust.py); tournament games always count.
        permissions = [("host_rated_games", _("может вести рейтинговые игры"))]

    def __str__(self) -> str:
        return self.title or str(_("Game #%(pk)s") % {"pk": self.pk})

    @property
    def display_title(self) -> str:
        """The title as the reader sees it: a tournament table's generated
        title («… · тур 1, стол 1») in the reader's language (games.titles)."""
        from games.titles import game_title

        return game_title(self.title)

    @property
    def display_name(self) -> str:
        """The display title, or «Игра №n» for a game without a title (games.titles)."""
        from games.titles import game_name

        return game_name(self.title, self.pk)

    def active_actions(self) -> models.QuerySet[GameAction]:
        return self.actions.filter(undone_at__isnull=True).order_by("seq")

    def action_payloads(self) -> list[dict[str, Any]]:
        return list(self.active_actions().values_list("payload", flat=True))

    @property
    def is_over(self) -> bool:
        return self.status in (GameStatus.FINISHED, GameStatus.ANNULLED)


class GameSeat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat_no = models.PositiveSmallIntegerField(_("seat"))
    nickname = models.CharField(_("nickname"), max_length=64)
    role = models.CharField(_("role"), max_length=16, choices=Role.choices, blank=True)
    # The person on this seat (players app); the typed nickname stays as typed.
    player = models.ForeignKey(
        "players.Player",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="seats",
        verbose_name=_("player"),
    )

    class Meta:
        ordering = ["game", "seat_no"]
        constraints = [models.UniqueConstraint(fields=["game", "seat_no"], name="unique_seat_per_game")]

    def __str__(self) -> str:
        return f"{self.seat_no}. {self.nickname}"


class GameAction(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField()
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="unique_action_seq_per_game")]
        indexes = [models.Index(fields=["game", "undone_at", "seq"], name="game_active_actions")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.payload.get('do', '?')}"

    @property
    def kind(self) -> str:
        return str(self.payload.get("do", ""))


# --- projection of the log (rebuilt on undo; the log stays the truth) -------


class Nomination(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="nominations")
    action = models.ForeignKey(GameAction, on_delete=models.CASCADE, related_name="+")
    day = models.PositiveSmallIntegerField()
    by_seat = models.PositiveSmallIntegerField()
    target_seat = models.PositiveSmallIntegerField()
    result = models.CharField(max_length=16)  # accepted | supported (D4)

    class Meta:
        ordering = ["game", "action__seq"]


class Vote(models.Model):
    """One voter's vote in one round: a vote, a revote or a lift vote (V2–V10)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="votes")
    action = models.ForeignKey(GameAction, on_delete=models.CASCADE, related_name="+")
    day = models.PositiveSmallIntegerField()
    round_no = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8)  # vote | revote | lift
    voter_seat = models.PositiveSmallIntegerField()
    candidate_seat = models.PositiveSmallIntegerField(null=True, blank=True)  # null on a lift vote
    lift_yes = models.BooleanField(null=True, blank=True)
    auto = models.BooleanField(default=False, help_text="Did not vote: added to the last candidate (V4).")

    class Meta:
        ordering = ["game", "action__seq", "voter_seat"]


class Penalty(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="penalties")
    action = models.ForeignKey(GameAction, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16)  # foul | warning | grey_card | disqualify | remove | ppk
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    team = models.CharField(max_length=8, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    day = models.PositiveSmallIntegerField(null=True, blank=True)
    phase = models.CharField(max_length=8, blank=True)
    count = models.PositiveSmallIntegerField(null=True, blank=True)
    removed = models.BooleanField(default=False)

    class Meta:
        ordering = ["game", "action__seq"]


class NightAction(models.Model):
    """A black's shot, a check and its answer, or the best move."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="night_actions")
    action = models.ForeignKey(GameAction, on_delete=models.CASCADE, related_name="+")
    night = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16)  # shot | don_check | sheriff_check | best_move
    actor_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    target_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    result = models.CharField(
        max_length=16, blank=True
    )  # kill/miss, sheriff/not_sheriff, red/black, accepted/not_accepted/pass
    seats = models.JSONField(default=list, blank=True)  # the best move's seats

    class Meta:
        ordering = ["game", "action__seq", "actor_seat"]


class SeatResult(models.Model):
    """One row per seat, written when the game ends (for standings)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="results")
    seat_no = models.PositiveSmallIntegerField()
    nickname = models.CharField(max_length=64)
    role = models.CharField(max_length=16, choices=Role.choices)
    team = models.CharField(max_length=8)  # red | black
    won = models.BooleanField(default=False)
    winner = models.CharField(max_length=8, blank=True)  # red | black | draw | "" (annulled)
    left_how = models.CharField(max_length=16, blank=True)
    left_day = models.PositiveSmallIntegerField(null=True, blank=True)
    left_phase = models.CharField(max_length=8, blank=True)
    fouls = models.PositiveSmallIntegerField(default=0)
    warnings = models.PositiveSmallIntegerField(default=0)
    grey_cards = models.PositiveSmallIntegerField(default=0)
    disqualified = models.BooleanField(default=False)
    removed_by_fouls = models.BooleanField(default=False)
    ppk = models.BooleanField(default=False, help_text="His team lost by ППК through him (W5).")
    first_night_victim = models.BooleanField(default=False, help_text="Shot in N1 (N10: Ci for a red).")
    best_move_seats = models.JSONField(default=list, blank=True)
    best_move_accepted = models.BooleanField(default=False)
    best_move_blacks = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["game", "seat_no"]
        constraints = [models.UniqueConstraint(fields=["game", "seat_no"], name="unique_result_per_seat")]
