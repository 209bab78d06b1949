"""Tournaments: stages, rounds, tables, participants, scoring.

Terms:

- *tournament*: games played under one `Regulations` variant and one scoring
  policy, run by its organizers.
- *stage* (этап): an ordered part of the tournament; Ci counts start again
  in every stage (RULES.md N11). Its seating is generated for its rounds at
  once, from a recorded seed.
- *round* (тур): one game at every table of the stage at the same time.
- *table*: one game of a round, with its host (who keeps the protocol) and
  its ten seats (`TableSeat`: which participant sits on seat 1..10). The
  table's `game` is created when the organizer starts the round.
- *participant*: a player of the tournament by nickname, optionally linked
  to a user account.
- *extra points*: points the host (or an organizer) gives one player of one
  game, within the policy's range, with a comment (RULES.md X2).

The game's protocol is the truth for what happened at a table; standings are
computed from the games' result rows (`games.models.SeatResult`), the seats
of the tables and the extra points — never stored.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.titles import revision_note, stage_name
from tournaments.scoring import DEFAULT_PRESET, PRESETS, ScoringPolicy


def default_scoring() -> dict[str, Any]:
    return dict(PRESETS[DEFAULT_PRESET])


class Tournament(models.Model):
    name = models.CharField(_("название"), max_length=200)
    starts_on = models.DateField(_("начало"), null=True, blank=True)
    ends_on = models.DateField(_("окончание"), null=True, blank=True)
    organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organized_tournaments", verbose_name=_("организаторы"), blank=True
    )
    # The Regulations variant its games use (games.rules.Regulations.to_dict());
    # empty means the defaults of RULES.md.
    regulations = models.JSONField(_("регламент"), default=dict, blank=True)
    # The current scoring policy (tournaments.scoring.ScoringPolicy.to_dict());
    # every change is also kept as a ScoringRevision.
    scoring = models.JSONField(_("система подсчёта"), default=default_scoring, blank=True)
    scoring_preset = models.CharField(_("шаблон подсчёта"), max_length=32, blank=True, default=DEFAULT_PRESET)
    scoring_revision = models.PositiveIntegerField(_("версия подсчёта"), default=1)
    # Hidden results (gomafia's flag): the public standings — the page, its live
    # socket, the workbook and the players' tournament pages — show the
    # tournament as it stood at the end of this round; organizers and the
    # tournament's table hosts keep seeing the live table (tournaments.visibility).
    standings_frozen_after = models.ForeignKey(
        "Round",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("таблица скрыта после тура"),
    )
    standings_frozen_at = models.DateTimeField(null=True, blank=True, editable=False)
    # What the public live socket last carried (a digest of the public fragments):
    # a push whose public content did not change sends no public frame at all, so
    # the public socket's rhythm cannot tell that a later game finished.
    public_standings_digest = models.CharField(max_length=64, blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "-created_at"]
        verbose_name = _("турнир")
        verbose_name_plural = _("турниры")

    def __str__(self) -> str:
        return self.name

    @property
    def policy(self) -> ScoringPolicy:
        return ScoringPolicy.from_dict(self.scoring)

    def is_organizer(self, user: Any) -> bool:
        if not getattr(user, "is_authenticated", False):
            return False
        return bool(user.is_superuser or self.organizers.filter(pk=user.pk).exists())


class ScoringRevision(models.Model):
    """Every version of a tournament's policy, kept (a change recomputes standings)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="scoring_revisions")
    number = models.PositiveIntegerField(_("версия"))
    policy = models.JSONField(_("система подсчёта"))
    preset = models.CharField(max_length=32, blank=True)
    note = models.CharField(_("комментарий"), max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["tournament", "-number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="unique_scoring_revision")]

    @property
    def display_note(self) -> str:
        """The app's own note («Создан турнир») in the reader's language."""
        return revision_note(self.note)

    def __str__(self) -> str:
        return f"{self.tournament} v{self.number}"


class Participant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="participants")
    nickname = models.CharField(_("ник"), max_length=64)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournament_entries",
        verbose_name=_("пользователь"),
    )
    active = models.BooleanField(
        _("участвует"), default=True, help_text=_("Снятые участники не попадают в новую рассадку.")
    )
    # The person (players app): one page and rating across tournaments.
    player = models.ForeignKey(
        "players.Player",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="participations",
        verbose_name=_("игрок"),
    )

    class Meta:
        ordering = ["tournament", "nickname"]
        constraints = [models.UniqueConstraint(fields=["tournament", "nickname"], name="unique_participant_nickname")]
        verbose_name = _("участник")
        verbose_name_plural = _("участники")

    def __str__(self) -> str:
        return self.nickname


class Stage(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    name = models.CharField(_("название"), max_length=100)
    order = models.PositiveSmallIntegerField(_("порядок"), default=1)
    seating_seed = models.CharField(_("зерно рассадки"), max_length=64, blank=True)
    seating_quality = models.JSONField(_("качество рассадки"), default=dict, blank=True)

    class Meta:
        ordering = ["tournament", "order", "pk"]
        constraints = [models.UniqueConstraint(fields=["tournament", "order"], name="unique_stage_order")]
        verbose_name = _("этап")
        verbose_name_plural = _("этапы")

    @property
    def display_name(self) -> str:
        """«Этап 1», the default name, in the reader's language; a typed name as typed."""
        return stage_name(self.name)

    def __str__(self) -> str:
        return self.name


class Round(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("номер"))

    class Meta:
        ordering = ["stage", "number"]
        constraints = [models.UniqueConstraint(fields=["stage", "number"], name="unique_round_number")]
        verbose_name = _("тур")
        verbose_name_plural = _("туры")

    def __str__(self) -> str:
        return f"{self.stage} · {_('тур')} {self.number}"


class Table(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(_("стол"))
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournament_tables",
        verbose_name=_("ведущий"),
    )
    game = models.OneToOneField(
        "games.Game",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournament_table",
        verbose_name=_("игра"),
    )
    # Games of this table annulled and replayed (W6: a replay is ordered, the
    # protocol is kept): they stay in the tournament's workbook and the
    # players' histories, marked, and are never counted.
    annulled_games = models.ManyToManyField(
        "games.Game", blank=True, related_name="annulled_tournament_tables", verbose_name=_("аннулированные игры")
    )
    # Whether the last standings push for this table counted a finished game:
    # an undo that reopens it must push the standings again (consumers.py).
    counted = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="unique_table_number")]
        verbose_name = _("стол")
        verbose_name_plural = _("столы")

    def __str__(self) -> str:
        return f"{self.round} · {_('стол')} {self.number}"

    @property
    def tournament(self) -> Tournament:
        return self.round.stage.tournament


class TableSeat(models.Model):
    """Which participant sits on which seat of a table (the game's seats come from here)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat_no = models.PositiveSmallIntegerField(_("место"))
    participant = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="seats", verbose_name=_("участник")
    )

    class Meta:
        ordering = ["table", "seat_no"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat_no"], name="unique_table_seat"),
            models.UniqueConstraint(fields=["table", "participant"], name="unique_table_participant"),
            models.CheckConstraint(condition=models.Q(seat_no__gte=1, seat_no__lte=10), name="table_seat_1_10"),
        ]

    def __str__(self) -> str:
        return f"{self.seat_no}. {self.participant}"


class ExtraPoints(models.Model):
    """The host's extra points for one player of one game (within the policy's range)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="extra_points")
    seat_no = models.PositiveSmallIntegerField(_("место"))
    points = models.DecimalField(_("баллы"), max_digits=6, decimal_places=2)
    comment = models.CharField(_("комментарий"), max_length=300, blank=True)
    given_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "seat_no"]
        constraints = [models.UniqueConstraint(fields=["game", "seat_no"], name="unique_extra_points_per_seat")]
        verbose_name = _("доп. баллы")
        verbose_name_plural = _("доп. баллы")

    def __str__(self) -> str:
        return f"{self.game_id}/{self.seat_no}: {self.points}"
