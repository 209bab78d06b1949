"""Players: one identity across games and tournaments, statistics and rating.

Terms:
- *player*: a person, shown by his display nickname. Game seats
  (``GameSeat.player``) and tournament participants (``Participant.player``)
  link to him; the typed nickname stays on the seat as it was typed.
- *alias*: a former or other nickname of a player (a rename keeps the old one
  as an alias), used to match typed nicknames (players/matching.py).
- *merge*: two records of one person joined; the seats and participants of
  the duplicate move to the kept player, and a ``PlayerMerge`` row keeps what
  happened (the old page redirects).
- *player game* (``PlayerGame``): one linked seat of one finished game with
  its statistics line (players/statistics.py) and, when the game is counted,
  the rating before and after it. Written when the game ends, removed when its
  end is undone; ``PlayerStats`` holds the sums, so pages never aggregate all
  seats.
- *month* (``PlayerMonth``): his totals over the games ended in one calendar
  month, so that a season (from one month to another) sums a few rows per
  player instead of every game of the season.
- *counted game* (``RatedGame``): a finished game that moves the rating
  (tournament game, or marked rated by its host), in end order, with the
  running totals of the side base rate (players/rating.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from players.matching import normalize


class Player(models.Model):
    nickname = models.CharField(_("ник"), max_length=64)
    key = models.CharField(max_length=64, db_index=True, editable=False)
    club = models.CharField(_("клуб"), max_length=100, blank=True)
    discord_user_id = models.CharField(_("Discord ID"), max_length=32, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
        verbose_name=_("пользователь"),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["nickname"]
        verbose_name = _("игрок")
        verbose_name_plural = _("игроки")

    def __str__(self) -> str:
        return self.nickname

    def save(self, *args: object, **kwargs: object) -> None:
        self.key = normalize(self.nickname)
        super().save(*args, **kwargs)  # type: ignore[arg-type]


class Alias(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="aliases")
    nickname = models.CharField(_("ник"), max_length=64)
    key = models.CharField(max_length=64, db_index=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["player", "nickname"]
        constraints = [models.UniqueConstraint(fields=["player", "key"], name="unique_alias_per_player")]
        verbose_name = _("другой ник")
        verbose_name_plural = _("другие ники")

    def __str__(self) -> str:
        return self.nickname

    def save(self, *args: object, **kwargs: object) -> None:
        self.key = normalize(self.nickname)
        super().save(*args, **kwargs)  # type: ignore[arg-type]


class PlayerMerge(models.Model):
    """A duplicate joined into a kept player (the duplicate's row is gone; this stays)."""

    kept = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="merges")
    merged_player_id = models.PositiveBigIntegerField(db_index=True)
    merged_nickname = models.CharField(max_length=64)
    seats_moved = models.PositiveIntegerField(default=0)
    participants_moved = models.PositiveIntegerField(default=0)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.merged_nickname} → {self.kept_id}"


class Counters(models.Model):
    """The statistics counters of players/statistics.py, one column each."""

    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    civilian_games = models.PositiveIntegerField(default=0)
    civilian_wins = models.PositiveIntegerField(default=0)
    sheriff_games = models.PositiveIntegerField(default=0)
    sheriff_wins = models.PositiveIntegerField(default=0)
    mafia_games = models.PositiveIntegerField(default=0)
    mafia_wins = models.PositiveIntegerField(default=0)
    don_games = models.PositiveIntegerField(default=0)
    don_wins = models.PositiveIntegerField(default=0)
    sheriff_checks = models.PositiveIntegerField(default=0)
    sheriff_blacks_found = models.PositiveIntegerField(default=0)
    don_checks = models.PositiveIntegerField(default=0)
    don_found_sheriff = models.PositiveIntegerField(default=0)
    best_moves = models.PositiveIntegerField(default=0)
    best_move_blacks = models.PositiveIntegerField(default=0)
    shot_first_night = models.PositiveIntegerField(default=0)
    ci_received = models.PositiveIntegerField(default=0)
    fouls = models.PositiveIntegerField(default=0)
    removals = models.PositiveIntegerField(default=0)
    ppk = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


# The stored (derived) rows name their player and game without a database
# constraint (db_constraint=False; Django still deletes them with their player
# or game, on_delete=CASCADE). A constraint would cost the tables the host and
# the board live on: the rebuild (players/book.py recompute) writes a million
# rows with no constraint to check per row, and dropping a foreign key for it
# locks the table it references (ACCESS EXCLUSIVE) to the commit, so every
# read of the games and the players waited for the whole rebuild (7.7 s of
# 10 s at 100,000 games). The rows are derived from seats and result rows,
# which keep their constraints; a rebuild makes them again from those.


class PlayerStats(Counters):
    """A player's totals over his finished games, and his rating now."""

    player = models.OneToOneField(
        Player, primary_key=True, related_name="stats", on_delete=models.CASCADE, db_constraint=False
    )
    rating = models.FloatField(null=True, blank=True)
    rated_games = models.PositiveIntegerField(default=0)
    last_game_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["-rating"], name="players_stats_rating")]


class StatisticsLine(Counters):
    """What one seat of one finished game adds to its player's totals
    (players/statistics.py ``seat_counts``), stored once per distinct line: a
    million seats have a few hundred. Its id is the line's code
    (``line_code``), so that every write path names a line without a lookup."""

    id = models.BigIntegerField(primary_key=True)

    def __str__(self) -> str:
        return str(self.id)


class PlayerGame(models.Model):
    """A player's seat in a finished game: his role, side and result, his rating
    before and after it when it counted, and his statistics line. The line's 22
    counters are not repeated in each of a million rows: they are one
    ``StatisticsLine`` row, joined where a sum over games needs them (a season
    inside a month), which halves the row (and the rebuild's writing of it)."""

    # No index of their own on the two keys: (player, finished_at, game) and the
    # unique (game, seat_no) start with them, and every index more is paid on each
    # of the rebuild's million rows.
    player = models.ForeignKey(
        Player, related_name="games", db_index=False, on_delete=models.CASCADE, db_constraint=False
    )
    game = models.ForeignKey(
        "games.Game", related_name="player_games", db_index=False, on_delete=models.CASCADE, db_constraint=False
    )
    seat_no = models.PositiveSmallIntegerField()
    finished_at = models.DateTimeField()
    role = models.CharField(max_length=16)
    team = models.CharField(max_length=8)
    won = models.BooleanField(default=False)
    rated = models.BooleanField(default=False)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    # No index: only joined from a player-game row to its line, never searched.
    line = models.ForeignKey(StatisticsLine, on_delete=models.PROTECT, related_name="+", db_index=False)

    class Meta:
        ordering = ["player", "finished_at", "game_id"]
        constraints = [models.UniqueConstraint(fields=["game", "seat_no"], name="unique_player_game_seat")]
        indexes = [
            models.Index(fields=["player", "finished_at", "game"], name="players_pg_history"),
            models.Index(fields=["finished_at"], name="players_pg_finished"),
        ]


class PlayerMonth(Counters):
    """A player's totals over his games ended in one calendar month (in the site's
    time zone): a season is a sum over a few dozen of these rows per player.

    ``rating_first`` is his rating before his first counted game of the month,
    ``rating_last`` after his last one (both None when he had no counted game in
    it): a season's change is the last month's ``rating_last`` minus the first
    month's ``rating_first`` (no sums of floats, so a rebuild gives the same bits).
    Kept by the same write path as ``PlayerStats`` (players/book.py)."""

    player = models.ForeignKey(
        Player, related_name="months", db_index=False, on_delete=models.CASCADE, db_constraint=False
    )
    month = models.DateField()  # the first day of the month
    rated_games = models.PositiveIntegerField(default=0)
    rating_first = models.FloatField(null=True, blank=True)
    rating_last = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["player", "month"]
        constraints = [models.UniqueConstraint(fields=["player", "month"], name="unique_player_month")]
        # The season's ranking reads (month, player, counted games) of every row of
        # the season: covered by this index, no table row is read for it.
        indexes = [models.Index(fields=["month", "player", "rated_games"], name="players_month_rank")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.month:%Y-%m}"


class RatedGame(models.Model):
    """A counted game, in end order, with the side totals after it (players/rating.py)."""

    game = models.OneToOneField("games.Game", related_name="rated_entry", on_delete=models.CASCADE, db_constraint=False)
    finished_at = models.DateTimeField()
    base_rate = models.FloatField()
    red_mean = models.FloatField()
    black_mean = models.FloatField()
    expected_red = models.FloatField()
    red_score = models.FloatField()
    red_delta = models.FloatField()
    games_after = models.PositiveIntegerField()
    red_score_after = models.FloatField()

    class Meta:
        ordering = ["finished_at", "game_id"]
        indexes = [models.Index(fields=["finished_at", "game"], name="players_rated_order")]


class LinkDecision(models.Model):
    """A person's answer for a seat or a participant that had no player: linked
    to a suggested or searched player, or a new player created for it (the
    decision queue, players/decisions.py). Kept so the registry says who decided."""

    SEAT = "seat"
    PARTICIPANT = "participant"
    KINDS = [(SEAT, _("место в игре")), (PARTICIPANT, _("участник турнира"))]

    kind = models.CharField(max_length=16, choices=KINDS)
    seat = models.ForeignKey("games.GameSeat", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    participant = models.ForeignKey(
        "tournaments.Participant", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    nickname = models.CharField(max_length=64)  # as typed on the seat or participant
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="link_decisions")
    created_player = models.BooleanField(default=False)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.kind} {self.nickname} → {self.player_id}"


class DisciplineRecord(models.Model):
    """A reprimand (F3) or a 7-day ban (F4) a game's penalties brought, written when
    the game ends and derived from its log (players/discipline.py, players/bans.py).
    `player` is the seat's player (set later when the seat is decided)."""

    REPRIMAND = "reprimand"
    BAN = "ban"
    KINDS = [(REPRIMAND, _("выговор")), (BAN, _("запрет играть 7 дней"))]

    kind = models.CharField(max_length=16, choices=KINDS)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="discipline_records")
    seat_no = models.PositiveSmallIntegerField()
    nickname = models.CharField(max_length=64)
    player = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="discipline")
    rule = models.CharField(max_length=8)  # F3 | F4
    cause = models.CharField(max_length=16)  # fouls | disqualify | warnings
    reason = models.CharField(max_length=300, blank=True)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    given_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True)  # bans only
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    lift_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-given_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["game", "seat_no", "kind"], name="unique_discipline_per_seat")]
        indexes = [models.Index(fields=["player", "kind", "ends_at"], name="players_discipline_active")]

    def __str__(self) -> str:
        return f"{self.kind} {self.nickname} ({self.game_id})"


class BanOverride(models.Model):
    """An organizer seated a banned player anyway, with a reason (the ban stays)."""

    record = models.ForeignKey(DisciplineRecord, on_delete=models.CASCADE, related_name="overrides")
    game = models.ForeignKey("games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    reason = models.CharField(max_length=300)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"override {self.record_id}: {self.reason}"
