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

from collections.abc import Callable, Iterable, Sequence
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


# A game's end asks about one game. The queryset above, even compiled once,
# costs PostgreSQL ~2 ms of planning per run (its trusted-users subquery is a
# LEFT JOIN over four tables with DISTINCT, written twice), more than the rest
# of the game's reads together. For a few games the same rule is written here
# as one statement: the candidates (the host of a game marked rated, every
# organizer of its tournament) and which of them are trusted (active, and a
# superuser or holding the permission directly or through a group). On
# PostgreSQL that statement is the body of a function (migration
# players/0007): PL/pgSQL keeps its plan for the session, where the statement
# sent as text was planned on every game's end (0.4–0.7 ms of its ~5 ms).
# tests/players/test_trust.py checks it says what ``counted_games`` says, case
# by case, on both databases.
FEW_GAMES = 20
COUNTED_GAMES_FUNCTION = "players_counted_games"
_FEW_GAMES_SQL: dict[tuple[str, int], str] = {}


def _few_games_sql(n: int) -> str:
    """The statement for `n` games where it is sent as text (SQLite), built once per `n`."""
    key = (connection.vendor, n)
    found = _FEW_GAMES_SQL.get(key)
    if found is None:
        found = _FEW_GAMES_SQL[key] = _counted_among_sql(
            lambda column: f"{column} IN ({', '.join(['%s'] * n)})", "%s", "%s"
        )
    return found


def counted_games_function_sql() -> str:
    """The PostgreSQL function behind ``few_games_statement``: its arguments are
    the game ids, the permission's app label and its codename (migration
    players/0007 creates it; a migration that renames a table it reads makes it
    again). Its plan is generic (the ids are a primary-key lookup whatever they
    are), so a session plans it once."""
    body = _counted_among_sql(lambda column: f"{column} = ANY($1)", "$2", "$3")
    return (
        f"CREATE OR REPLACE FUNCTION {COUNTED_GAMES_FUNCTION}(bigint[], text, text) RETURNS SETOF bigint "
        f"LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$ "
        f"BEGIN RETURN QUERY {body}; END $fn$"
    )


def _counted_among_sql(ids_match: Callable[[str], str], app_label: str, codename: str) -> str:
    """The ids (as bigint) of the games whose id `ids_match` that count; `app_label`
    and `codename` are where the permission's two names go."""
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType

    from tournaments.models import Round, Stage, Table, Tournament

    def table(model: Any) -> str:
        return connection.ops.quote_name(model._meta.db_table)

    def col(model: Any, name: str) -> str:
        return connection.ops.quote_name(model._meta.get_field(name).column)

    user = get_user_model()
    user_perms = user._meta.get_field("user_permissions").remote_field.through
    user_groups = user._meta.get_field("groups").remote_field.through
    group_perms = Group._meta.get_field("permissions").remote_field.through
    organizers = Tournament._meta.get_field("organizers").remote_field.through
    g, u = table(Game), table(user)
    game_id, table_game = f"g.{col(Game, 'id')}", f"t.{col(Table, 'game')}"
    return (
        # The permission's id, once (both grant paths use it).
        f"WITH perm AS MATERIALIZED (SELECT p.{col(Permission, 'id')} AS id FROM {table(Permission)} p "
        f"JOIN {table(ContentType)} ct ON ct.{col(ContentType, 'id')} = p.{col(Permission, 'content_type')} "
        f"WHERE ct.{col(ContentType, 'app_label')} = {app_label} AND p.{col(Permission, 'codename')} = {codename}), "
        # Who would make each game count if trusted.
        f"candidate AS (SELECT g.{col(Game, 'id')} AS game_id, g.{col(Game, 'host')} AS user_id FROM {g} g "
        f"WHERE {ids_match(game_id)} AND g.{col(Game, 'rated')} "
        f"UNION ALL SELECT t.{col(Table, 'game')}, o.{col(organizers, 'user')} FROM {table(Table)} t "
        f"JOIN {table(Round)} r ON r.{col(Round, 'id')} = t.{col(Table, 'round')} "
        f"JOIN {table(Stage)} s ON s.{col(Stage, 'id')} = r.{col(Round, 'stage')} "
        f"JOIN {table(organizers)} o ON o.{col(organizers, 'tournament')} = s.{col(Stage, 'tournament')} "
        f"WHERE {ids_match(table_game)}) "
        f"SELECT DISTINCT CAST(c.game_id AS BIGINT) FROM candidate c JOIN {u} u ON u.{col(user, 'id')} = c.user_id "
        f"WHERE u.{col(user, 'is_active')} AND (u.{col(user, 'is_superuser')} "
        f"OR EXISTS (SELECT 1 FROM {table(user_perms)} up WHERE up.{col(user_perms, 'user')} = u.{col(user, 'id')} "
        f"AND up.{col(user_perms, 'permission')} IN (SELECT id FROM perm)) "
        f"OR EXISTS (SELECT 1 FROM {table(user_groups)} ug JOIN {table(group_perms)} gp "
        f"ON gp.{col(group_perms, 'group')} = ug.{col(user_groups, 'group')} "
        f"WHERE ug.{col(user_groups, 'user')} = u.{col(user, 'id')} AND gp.{col(group_perms, 'permission')} IN (SELECT id FROM perm)))"
    )


def few_games_statement(game_ids: Sequence[int]) -> tuple[str, list[Any]] | None:
    """The statement whose rows are the ids among a few games that count for
    ratings (to be sent with other reads); None for more than FEW_GAMES."""
    if not game_ids or len(game_ids) > FEW_GAMES:
        return None
    app_label, codename = RATED_HOST_PERMISSION.split(".")
    if connection.vendor == "postgresql":
        return f"SELECT * FROM {COUNTED_GAMES_FUNCTION}(%s::bigint[], %s, %s)", [list(game_ids), app_label, codename]
    return _few_games_sql(len(game_ids)), [app_label, codename, *game_ids, *game_ids]


def counted_game_ids(game_ids: Iterable[int]) -> set[int]:
    """The ids among these games that count for ratings (``counted_games``)."""
    ids = list(game_ids)
    if not ids:
        return set()
    statement = few_games_statement(ids)
    if statement is None:
        return set(counted_games(Game.objects.filter(pk__in=ids)).values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(*statement)
        return {row[0] for row in cursor.fetchall()}


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
