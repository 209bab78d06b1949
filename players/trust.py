"""Who may move a rating (issue 22, finding 2).

Terms:

- a *trusted host* is a user who may run rated casual games: a superuser, or
  a user with the permission ``games.host_rated_games`` («может вести
  рейтинговые игры»), given to him or to one of his groups by staff in the
  admin;
- a game *counts for ratings* when it is a game of a tournament that a
  trusted user organizes, or a casual game marked rated whose host is trusted
  (anyone may create a tournament, so the tournament alone proves nothing). `counted_games` is the one
  place that says so: the full recompute and the incremental update on a
  game's end (players/book.py `_facts`) both ask it, so a plain user who marks
  his game rated moves nobody's rating, whichever path plays it;
- a seat is linked to an existing player only when the seating form offered
  that player for the typed nickname (or staff link it), and a typed nickname
  becomes a player's alias only when staff or the player's own account
  confirm it — never because one host typed it (players/names.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from games.models import Game
from games.permissions import RATED_HOST_PERMISSION
from games.permissions import user_may_host_rated_games as user_may_host_rated_games
from games.permissions import user_may_link_any_player as user_may_link_any_player


def trusted_hosts() -> QuerySet[Any]:
    """Every user who may run rated casual games (superusers included)."""
    app_label, codename = RATED_HOST_PERMISSION.split(".")
    perm = Q(content_type__app_label=app_label, codename=codename)
    from django.contrib.auth.models import Permission

    permission = Permission.objects.filter(perm)
    return (
        get_user_model()
        .objects.filter(
            Q(is_superuser=True) | Q(user_permissions__in=permission) | Q(groups__permissions__in=permission),
            is_active=True,
        )
        .distinct()
    )


def counted_games(games: QuerySet[Game] | None = None) -> QuerySet[Game]:
    """The games (of `games`, by default all) that count for ratings: a
    tournament table's, or a casual one marked rated by a trusted host."""
    from tournaments.models import Table

    qs = Game.objects.all() if games is None else games
    trusted = trusted_hosts().values("pk")
    # Anyone signed in may create a tournament, so a tournament's games count
    # when one of its organizers is trusted, or a plain user's own «cup» would
    # move ratings as freely as his marked casual games.
    in_trusted_tournament = Exists(
        Table.objects.filter(game_id=OuterRef("pk"), round__stage__tournament__organizers__in=trusted)
    )
    return qs.filter(in_trusted_tournament | Q(rated=True, host__in=trusted))


# A game's end asks about one game: building and compiling the query above costs
# several times more CPU than running it (~5 ms of an ~8 ms incremental update at
# 100,000 games), so its SQL is built once per database vendor with a stand-in id
# and run with the game's id in its place. The SQL holds no value that changes
# (the trusted hosts are a subquery), so it never goes stale.
_STAND_IN = -7_340_033
_ONE_GAME_SQL: dict[str, tuple[str, tuple[Any, ...]]] = {}


def _one_game_sql() -> tuple[str, tuple[Any, ...]]:
    found = _ONE_GAME_SQL.get(connection.vendor)
    if found is None:
        sql, params = counted_games(Game.objects.filter(pk=_STAND_IN)).values_list("pk").query.sql_with_params()
        assert list(params).count(_STAND_IN) == 1, "the stand-in id must occur once"
        found = _ONE_GAME_SQL[connection.vendor] = (sql, tuple(params))
    return found


def counted_game_ids(game_ids: Iterable[int]) -> set[int]:
    ids = list(game_ids)
    if not ids:
        return set()
    if len(ids) == 1:
        sql, params = _one_game_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, [ids[0] if p == _STAND_IN and type(p) is int else p for p in params])
            return {row[0] for row in cursor.fetchall()}
    return set(counted_games(Game.objects.filter(pk__in=ids)).values_list("pk", flat=True))


def untrusted_rated_games() -> QuerySet[Game]:
    """Games that would count but for trust — casual ones marked rated, and
    tournament ones — whose host or organizers are not trusted: they count for
    nobody's rating; staff see them listed (players:untrusted) to decide
    whether to grant the permission."""
    from tournaments.models import Table

    candidates = Game.objects.filter(Q(rated=True) | Exists(Table.objects.filter(game_id=OuterRef("pk"))))
    return (
        candidates.exclude(pk__in=counted_games(candidates).values("pk")).select_related("host").order_by("-created_at")
    )
