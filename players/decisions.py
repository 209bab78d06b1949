"""The decision queue: seats and participants that have no player yet.

Terms:
- *pending*: a game seat or a tournament participant linked to nobody — its
  host chose «решить позже», or its nickname was close to somebody's without
  being his (players/matching.py). It waits here until a person decides.
- *decision*: link it to a suggestion, to any player found by search, or to a
  new player created from its nickname. A linked nickname that differs from
  the player's becomes his alias, so the next game finds him by itself. Each
  decision is kept (``LinkDecision``).
- *who sees what*: staff see every pending row; an organizer those of his
  tournaments (participants and the seats of his tables' games); a host the
  seats of his own games.

A decided seat of a finished game changes that game's statistics and, when it
counts, the ratings from it on: ``_follow`` is the one place that asks the
stored books (players/book.py ``sync_game``, the incremental update the end of
a game uses) to play it again, so the numbers equal a full recompute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from games.models import Game, GameSeat, GameStatus
from players import discipline
from players.matching import Candidate, Match, normalize
from players.models import LinkDecision, Player
from players.names import (
    PlayerError,
    _owners_of,
    name_index,
    player_add_alias,
    player_create,
)


@dataclass
class PendingRow:
    kind: str  # LinkDecision.SEAT | LinkDecision.PARTICIPANT
    pk: int
    nickname: str
    where: str  # the game or the tournament, for people
    url: str
    match: Match
    suggestions: list[Candidate] = field(default_factory=list)


def _is_staff(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False) and (user.is_staff or user.is_superuser))


def pending_seats(user: Any) -> QuerySet[GameSeat]:
    qs = (
        GameSeat.objects.filter(player__isnull=True)
        .select_related("game")
        .order_by("-game__created_at", "game_id", "seat_no")
    )
    if _is_staff(user):
        return qs
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    return qs.filter(
        Q(game__host=user) | Q(game__tournament_table__round__stage__tournament__organizers=user)
    ).distinct()


def pending_participants(user: Any) -> QuerySet[Any]:
    from tournaments.models import Participant

    qs = (
        Participant.objects.filter(player__isnull=True)
        .select_related("tournament")
        .order_by("tournament_id", "nickname")
    )
    if _is_staff(user):
        return qs
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    return qs.filter(tournament__organizers=user).distinct()


def pending_rows(user: Any, *, limit: int = 200) -> list[PendingRow]:
    """What this user may decide, each with its suggestions (participants first:
    deciding one links his tables' seats as well)."""
    index = name_index()
    rows: list[PendingRow] = []
    for p in pending_participants(user)[:limit]:
        m = index.match(p.nickname)
        rows.append(
            PendingRow(
                LinkDecision.PARTICIPANT,
                p.pk,
                p.nickname,
                p.tournament.name,
                f"/tournaments/{p.tournament_id}/",
                m,
                _suggestions(m),
            )
        )
    for s in pending_seats(user)[:limit]:
        m = index.match(s.nickname)
        where = _("%(game)s, место %(seat)s") % {"game": s.game.title or f"#{s.game_id}", "seat": s.seat_no}
        rows.append(PendingRow(LinkDecision.SEAT, s.pk, s.nickname, where, f"/games/{s.game_id}/", m, _suggestions(m)))
    return rows


def _suggestions(m: Match) -> list[Candidate]:
    return [m.player] if m.player is not None else list(m.suggestions)


def user_can_decide(user: Any, kind: str, pk: int) -> bool:
    qs = pending_seats(user) if kind == LinkDecision.SEAT else pending_participants(user)
    return qs.filter(pk=pk).exists()


def decide(*, kind: str, pk: int, player: Player | None = None, create: bool = False, by: Any = None) -> LinkDecision:
    """Link a pending seat or participant to `player`, or (`create`) to a new player
    of its nickname. Refused (PlayerError, nothing changed) when it is already
    linked, or when the nickname is taken by somebody (then link to him)."""
    from tournaments.models import Participant

    if (player is None) == (not create):
        raise PlayerError(_("Выберите игрока или создайте нового."))
    model: Any = GameSeat if kind == LinkDecision.SEAT else Participant if kind == LinkDecision.PARTICIPANT else None
    if model is None:
        raise PlayerError(_("Неизвестный вид записи."))
    with transaction.atomic():
        row = model.objects.select_for_update().filter(pk=pk).first()
        if row is None:
            raise PlayerError(_("Такой записи нет."))
        if row.player_id is not None:
            raise PlayerError(_("«%(nick)s» уже связан с игроком.") % {"nick": row.nickname})
        if player is not None:
            _refuse_a_second_place(kind, row, player)
        created = False
        if create:
            if taken := _owners_of(normalize(row.nickname)):
                raise PlayerError(
                    _("Ник «%(nick)s» уже занят игроком %(owner)s: свяжите с ним.")
                    % {"nick": row.nickname, "owner": taken[0].nickname}
                )
            player = player_create(nickname=row.nickname)
            created = True
        assert player is not None
        player_add_alias(player=player, nickname=row.nickname)
        model.objects.filter(pk=row.pk).update(player=player)
        decision = LinkDecision.objects.create(
            kind=kind,
            seat=row if kind == LinkDecision.SEAT else None,
            participant=row if kind == LinkDecision.PARTICIPANT else None,
            nickname=row.nickname,
            player=player,
            created_player=created,
            by=by if getattr(by, "is_authenticated", False) else None,
        )
        games = [row.game_id] if kind == LinkDecision.SEAT else _link_participant_seats(row, player)
        _follow(games)
        discipline.fill_players()
    return decision


def _refuse_a_second_place(kind: str, row: Any, player: Player) -> None:
    """One person sits once at a game and is one participant of a tournament."""
    from tournaments.models import Participant

    if kind == LinkDecision.SEAT:
        other = GameSeat.objects.filter(game_id=row.game_id, player=player).exclude(pk=row.pk).first()
        if other is not None:
            raise PlayerError(
                _("%(player)s уже сидит в этой игре на месте %(seat)s: «%(nick)s» — другой человек.")
                % {"player": player.nickname, "seat": other.seat_no, "nick": row.nickname}
            )
    else:
        twin = Participant.objects.filter(tournament_id=row.tournament_id, player=player).exclude(pk=row.pk).first()
        if twin is not None:
            raise PlayerError(
                _("%(player)s уже участник этого турнира («%(other)s»): «%(nick)s» — другой человек.")
                % {"player": player.nickname, "other": twin.nickname, "nick": row.nickname}
            )


def _link_participant_seats(participant: Any, player: Player) -> list[int]:
    """The participant's seats in his tables' games, still unlinked, now his."""
    from tournaments.models import TableSeat

    ids: list[int] = []
    for game_id, seat_no in TableSeat.objects.filter(participant=participant, table__game__isnull=False).values_list(
        "table__game_id", "seat_no"
    ):
        if GameSeat.objects.filter(game_id=game_id, seat_no=seat_no, player__isnull=True).update(player=player):
            ids.append(game_id)
    return ids


def _follow(game_ids: list[int]) -> None:
    """Statistics and ratings follow the decision at once: the incremental update
    (players/book.py sync_game) of each finished game, earliest first."""
    from players import book

    games = Game.objects.filter(pk__in=game_ids, status=GameStatus.FINISHED, finished_at__isnull=False).order_by(
        "finished_at", "pk"
    )
    for game in games:
        book.sync_game(game)


def parse_target(text: str) -> tuple[str, int]:
    """A command-line name of a pending row: ``49`` or ``seat#49`` (a game seat),
    ``participant#12`` or ``p12`` (a tournament participant)."""
    raw = text.strip().lower().replace(" ", "")
    for prefix, kind in (
        ("participant", LinkDecision.PARTICIPANT),
        ("seat", LinkDecision.SEAT),
        ("p", LinkDecision.PARTICIPANT),
        ("s", LinkDecision.SEAT),
    ):
        if raw.startswith(prefix):
            rest = raw[len(prefix) :].lstrip("#:")
            if rest.isdigit():
                return kind, int(rest)
    if raw.lstrip("#").isdigit():
        return LinkDecision.SEAT, int(raw.lstrip("#"))
    raise PlayerError(
        _("Не понимаю «%(text)s»: нужен номер места (seat#49) или участника (participant#12).") % {"text": text}
    )


def find_player(text: str) -> Player | None:
    """A player by id (``22`` or ``#22``) or by nickname (aliases, case, look-alikes)."""
    from players.names import player_by_nickname

    raw = text.strip()
    if raw.lstrip("#").isdigit():
        return Player.objects.filter(pk=int(raw.lstrip("#"))).first()
    return player_by_nickname(raw[:64])


def duplicate_suggestions(player: Player) -> list[Player]:
    """Players who may be this one under another record: a name of theirs is close
    to one of his, or the same up to look-alike letters (players/matching.py)."""
    index = name_index()
    names = [player.nickname, *player.aliases.values_list("nickname", flat=True)]
    ids: list[int] = []
    for name in names:
        m = index.match(name)
        for c in [*([m.player] if m.player else []), *m.suggestions, *index.close(normalize(name))]:
            if c.player_id != player.pk and c.player_id not in ids:
                ids.append(c.player_id)
    found = Player.objects.in_bulk(ids)
    return [found[i] for i in ids if i in found]
