"""Hidden results: who sees a tournament's live standings, and which rounds the public sees.

An organizer may hide the standings from a chosen round on (gomafia's hidden-results
flag, asked of peers as «прятать таблицу начиная с раунда N»): the tournament's
`standings_frozen_after` names the last round the public sees. Every public surface of
the standings — the page and its fragment, the live socket (frames and snapshots), the
workbook (its standings sheet and the protocols it carries) and the players' tournament
pages — then reads only the games of that round and those before it, so nothing of a
later game reaches them: not a total, not an order, not a count of games, not a frame
(the socket sends a public frame only when the public content changes, `live.py`).
Organizers and the tournament's table hosts keep seeing the live table. Each game's own
board stays public: it is that game's live broadcast, not the tournament's results.
"""

from __future__ import annotations

from typing import Any

from tournaments.models import Round, Table, Tournament


def sees_live_standings(tournament: Tournament, user: Any) -> bool:
    """Organizers (and superusers) and the hosts of the tournament's tables."""
    if not getattr(user, "is_authenticated", False):
        return False
    if tournament.is_organizer(user):
        return True
    return Table.objects.filter(round__stage__tournament=tournament, host=user).exists()


def tournament_rounds(tournament: Tournament) -> list[Round]:
    """The tournament's rounds in play order (stage order, then round number)."""
    return list(
        Round.objects.filter(stage__tournament=tournament)
        .select_related("stage")
        .order_by("stage__order", "stage__pk", "number")
    )


def public_round_ids(tournament: Tournament) -> list[int] | None:
    """The rounds the public standings count, or None when they are not hidden."""
    frozen = tournament.standings_frozen_after_id
    if frozen is None:
        return None
    ids: list[int] = []
    for rnd in tournament_rounds(tournament):
        ids.append(rnd.pk)
        if rnd.pk == frozen:
            return ids
    return ids  # the round was deleted under us (SET_NULL races): everything
