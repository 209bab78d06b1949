"""Who may change a game: its host, the organizers of its tournament, superusers."""

from typing import Any

from games.models import Game


def user_can_edit_game(user: Any, game: Game) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser or game.host_id == user.pk:
        return True
    # A tournament game: its Table (tournaments app) points here with
    # related_name "tournament_table".
    table = getattr(game, "tournament_table", None)
    if table is None:
        return False
    tournament = table.round.stage.tournament
    return bool(tournament.organizers.filter(pk=user.pk).exists())


# Given by staff in the admin to a user or a group (Game.Meta.permissions);
# superusers have every permission. players/trust.py says what it decides.
RATED_HOST_PERMISSION = "games.host_rated_games"


def user_may_host_rated_games(user: Any) -> bool:
    """A casual game of this host may count for the players' rating."""
    return bool(getattr(user, "is_authenticated", False) and user.is_active and user.has_perm(RATED_HOST_PERMISSION))


def user_may_link_any_player(user: Any) -> bool:
    """Staff may link a seat to any player and confirm a nickname as his alias
    (players/trust.py); here so that the seating form's module needs nothing
    of tournaments."""
    return bool(getattr(user, "is_authenticated", False) and user.is_active and (user.is_staff or user.is_superuser))
