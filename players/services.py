"""The write path for players: create, rename, merge, match and link.

Views and commands call these; they never write Player, Alias or links
themselves. A refused change raises ``PlayerError`` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games.models import GameSeat
from players.matching import KNOWN, Match, normalize
from players.models import DisciplineRecord, Player, PlayerGame, PlayerMerge
from players.names import NEW_CHOICE as NEW_CHOICE
from players.names import PlayerError as PlayerError
from players.names import Resolution as Resolution
from players.names import _owners_of as _owners_of
from players.names import apply_resolution as apply_resolution
from players.names import name_index as name_index
from players.names import player_add_alias as player_add_alias
from players.names import player_by_nickname as player_by_nickname
from players.names import player_create as player_create
from players.names import players_match as players_match
from players.names import resolve_nicknames as resolve_nicknames
from players.names import seat_players as seat_players
from players.names import seating_check as seating_check


def player_rename(*, player: Player, nickname: str) -> Player:
    """A new display nickname; the old one stays as an alias (matching still finds him)."""
    nickname = " ".join(nickname.split())
    if not nickname or len(nickname) > 64:
        raise PlayerError(_("Ник должен быть от 1 до 64 символов."), "nickname")
    key = normalize(nickname)
    if taken := _owners_of(key, exclude=player.pk):
        raise PlayerError(
            _("Ник «%(nick)s» уже занят игроком %(owner)s.") % {"nick": nickname, "owner": taken[0].nickname},
            "nickname",
        )
    with transaction.atomic():
        old = player.nickname
        player.nickname = nickname
        player.save()
        player.aliases.filter(key=key).delete()  # his own former name is now his name again
        player_add_alias(player=player, nickname=old)
    return player


def player_merge(*, duplicate: Player, into: Player, by: Any = None) -> PlayerMerge:
    """Join a duplicate into the kept player: seats, participants and names move; recorded."""
    from tournaments.models import Participant

    if duplicate.pk == into.pk:
        raise PlayerError(_("Нельзя объединить игрока с самим собой."))
    with transaction.atomic():
        # His first stored game: from there on, ratings are played again with one person.
        first = (
            PlayerGame.objects.filter(player=duplicate)
            .order_by("finished_at", "game_id")
            .values_list("finished_at", "game_id")
            .first()
        )
        seats = GameSeat.objects.filter(player=duplicate).update(player=into)
        participants = Participant.objects.filter(player=duplicate).update(player=into)
        DisciplineRecord.objects.filter(player=duplicate).update(
            player=into
        )  # his reprimands and bans are the kept player's
        for alias in list(duplicate.aliases.all()):
            player_add_alias(player=into, nickname=alias.nickname)
        player_add_alias(player=into, nickname=duplicate.nickname)
        if not into.club and duplicate.club:
            into.club = duplicate.club
        if not into.discord_user_id and duplicate.discord_user_id:
            into.discord_user_id = duplicate.discord_user_id
        if into.user_id is None and duplicate.user_id is not None:
            into.user_id = duplicate.user_id
        into.save()
        merge = PlayerMerge.objects.create(
            kept=into,
            merged_player_id=duplicate.pk,
            merged_nickname=duplicate.nickname,
            seats_moved=seats,
            participants_moved=participants,
            by=by if getattr(by, "is_authenticated", False) else None,
        )
        participants_fold_after_merge(player=into)
        if first is not None:
            from players import book

            # The duplicate's rows are rewound while he still exists, then played again
            # with his seats pointing at the kept player.
            book.replay_from(*first)
        duplicate.delete()
    return merge


# --- seats and participants --------------------------------------------------------


def _played(participant: Any) -> bool:
    return bool(participant.seats.exists())


def participants_fold_after_merge(*, player: Player) -> list[Any]:
    """After a merge, one person may be two participants of one tournament. When at
    most one of them sat at a table they are shown as one: the others (no seats)
    go, the participant who played (else the first registered) stays. When both
    played, nothing is guessed: they are returned, and the decision queue asks
    the organizer which to keep (``participants_fold``)."""
    from tournaments.models import Participant

    undecided: list[Any] = []
    by_tournament: dict[int, list[Any]] = {}
    for p in Participant.objects.filter(player=player).order_by("pk"):
        by_tournament.setdefault(p.tournament_id, []).append(p)
    for group in by_tournament.values():
        if len(group) < 2:
            continue
        played = [p for p in group if _played(p)]
        if len(played) > 1:
            undecided.extend(played)
            continue
        keep = played[0] if played else group[0]
        Participant.objects.filter(pk__in=[p.pk for p in group if p.pk != keep.pk]).delete()
    return undecided


def duplicate_participants(*, tournaments: Any = None) -> list[list[Any]]:
    """Groups of participants of one tournament who are one player (each group ≥ 2)."""
    from django.db.models import Count

    from tournaments.models import Participant

    qs = Participant.objects.filter(player__isnull=False)
    if tournaments is not None:
        qs = qs.filter(tournament__in=tournaments)
    pairs = qs.values("tournament_id", "player_id").annotate(n=Count("id")).filter(n__gt=1)
    groups = []
    for row in pairs:
        groups.append(
            list(
                Participant.objects.filter(tournament_id=row["tournament_id"], player_id=row["player_id"])
                .select_related("tournament", "player")
                .order_by("pk")
            )
        )
    return groups


def participants_fold(*, keep: Any, drop: Any) -> Any:
    """The organizer's answer: `drop`'s table seats become `keep`'s, and `drop` goes.
    Refused when they sat at one table (two seats of one game cannot be one person's)."""
    from tournaments.models import Participant, TableSeat

    if (
        keep.pk == drop.pk
        or keep.tournament_id != drop.tournament_id
        or keep.player_id is None
        or keep.player_id != drop.player_id
    ):
        raise PlayerError(_("Объединять можно только участников одного турнира, которые один игрок."))
    with transaction.atomic():
        tables = set(TableSeat.objects.filter(participant=keep).values_list("table_id", flat=True))
        if TableSeat.objects.filter(participant=drop, table_id__in=tables).exists():
            raise PlayerError(
                _("«%(a)s» и «%(b)s» сидели за одним столом: это два человека, не объединяю.")
                % {"a": keep.nickname, "b": drop.nickname}
            )
        TableSeat.objects.filter(participant=drop).update(participant=keep)
        Participant.objects.filter(pk=drop.pk).delete()
    return keep


def game_link_seats(*, game: Any, players: Iterable[Player | None]) -> int:
    """Link the game's seats 1..10, in order, to these players."""
    n = 0
    for seat_no, player in enumerate(players, start=1):
        if player is not None:
            n += GameSeat.objects.filter(game=game, seat_no=seat_no).update(player=player)
    return n


@dataclass
class LinkReport:
    linked: int = 0
    created: int = 0
    ambiguous: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (where, nickname, candidates)


def link_existing(*, create_missing: bool = False) -> LinkReport:
    """Link seats and participants that have no player yet by exact match (aliases, case, ё/е)."""
    from tournaments.models import Participant

    report = LinkReport()
    index = name_index()
    with transaction.atomic():
        for model, label in ((Participant, "participant"), (GameSeat, "seat")):
            for row in model.objects.filter(player__isnull=True).order_by("pk"):
                m = index.match(row.nickname)
                if m.status == KNOWN and m.player is not None:
                    model.objects.filter(pk=row.pk).update(player_id=m.player.player_id)
                    report.linked += 1
                elif m.suggestions:
                    where = f"{label} #{row.pk}"
                    report.ambiguous.append(
                        (where, row.nickname, [f"{c.nickname} (#{c.player_id})" for c in m.suggestions])
                    )
                elif create_missing:
                    p = player_create(nickname=row.nickname)
                    model.objects.filter(pk=row.pk).update(player=p)
                    index = name_index()
                    report.created += 1
                    report.linked += 1
        from players.discipline import fill_players

        fill_players()
    return report


# --- tournament participants -------------------------------------------------------


@dataclass
class PendingLink:
    """A participant (or a typed nickname) waiting for a person to choose its player."""

    participant_id: int
    nickname: str
    match: Match


def participants_link_known(*, participants: Iterable[Any], link: bool = True) -> list[PendingLink]:
    """Link participants whose nickname names exactly one player (unless `link` is
    off: a page only reads); return the others."""
    from tournaments.models import Participant

    index = name_index()
    pending = []
    for p in participants:
        if p.player_id is not None:
            continue
        m = index.match(p.nickname)
        if m.status == KNOWN and m.player is not None:
            if link:
                Participant.objects.filter(pk=p.pk).update(player_id=m.player.player_id)
                p.player_id = m.player.player_id
        else:
            pending.append(PendingLink(p.pk, p.nickname, m))
    return pending


def participants_confirm(*, tournament: Any, choices: dict[int, str], by: Any = None) -> int:
    """Link the tournament's unlinked participants as chosen: a player id or
    NEW_CHOICE (a new player). Returns how many.

    As at a casual table (players/trust.py): the chosen player must be one
    offered for that nickname unless staff (`by`) choose, and the nickname
    becomes his alias only when staff or the player's own account confirm it."""
    from players.trust import user_may_link_any_player
    from tournaments.models import Participant

    staff = user_may_link_any_player(by)
    index = name_index()
    done = 0
    with transaction.atomic():
        for p in Participant.objects.filter(tournament=tournament, player__isnull=True, pk__in=list(choices)):
            choice = choices[p.pk]
            offered = {c.player_id for c in index.match(p.nickname).suggestions}
            if choice == NEW_CHOICE:
                owners = _owners_of(normalize(p.nickname))
                player = owners[0] if len(owners) == 1 else player_create(nickname=p.nickname)
            elif (
                choice.isdigit()
                and (staff or int(choice) in offered)
                and (found := Player.objects.filter(pk=int(choice)).first()) is not None
            ):
                player = found
                if staff or (player.user_id is not None and player.user_id == getattr(by, "pk", None)):
                    player_add_alias(player=player, nickname=p.nickname)
            else:
                continue
            Participant.objects.filter(pk=p.pk).update(player=player)
            done += 1
    return done
