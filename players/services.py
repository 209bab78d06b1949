"""The write path for players: create, rename, merge, match and link.

Views and commands call these; they never write Player, Alias or links
themselves. A refused change raises ``PlayerError`` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.models import GameSeat
from players.matching import KNOWN, Match, NameIndex, normalize
from players.models import Alias, Player, PlayerGame, PlayerMerge


class PlayerError(Exception):
    def __init__(self, message: str, field: str = "") -> None:
        self.message = message
        self.field = field
        super().__init__(message)


def name_index(*, cutoff: float = 0.75) -> NameIndex:
    names: list[tuple[int, str, str]] = [(pk, nick, nick) for pk, nick in Player.objects.values_list("pk", "nickname")]
    names += list(Alias.objects.values_list("player_id", "player__nickname", "nickname"))
    return NameIndex(names, cutoff=cutoff)


def players_match(*, nicknames: Sequence[str]) -> list[Match]:
    index = name_index()
    return index.match_all(nicknames)


def player_by_nickname(nickname: str) -> Player | None:
    """The one player with this nickname or alias (None when nobody or several)."""
    owners = _owners_of(normalize(nickname)) if nickname.strip() else []
    return owners[0] if len(owners) == 1 else None


def _owners_of(key: str, exclude: int | None = None) -> list[Player]:
    qs = Player.objects.filter(Q(key=key) | Q(aliases__key=key)).distinct()
    if exclude is not None:
        qs = qs.exclude(pk=exclude)
    return list(qs)


def player_create(*, nickname: str, club: str = "", discord_user_id: str = "", user: Any = None) -> Player:
    nickname = " ".join(nickname.split())
    if not nickname:
        raise PlayerError(_("Ник не может быть пустым."), "nickname")
    if len(nickname) > 64:
        raise PlayerError(_("Ник длиннее 64 символов."), "nickname")
    if taken := _owners_of(normalize(nickname)):
        raise PlayerError(_("Ник «%(nick)s» уже занят игроком %(owner)s.") % {"nick": nickname, "owner": taken[0].nickname}, "nickname")
    return Player.objects.create(nickname=nickname, club=club, discord_user_id=discord_user_id, user=user)


def player_add_alias(*, player: Player, nickname: str) -> Alias | None:
    """Another nickname of this player (none when it is already his)."""
    key = normalize(nickname)
    if not key or key == player.key or player.aliases.filter(key=key).exists():
        return None
    return Alias.objects.create(player=player, nickname=" ".join(nickname.split()))


def player_rename(*, player: Player, nickname: str) -> Player:
    """A new display nickname; the old one stays as an alias (matching still finds him)."""
    nickname = " ".join(nickname.split())
    if not nickname or len(nickname) > 64:
        raise PlayerError(_("Ник должен быть от 1 до 64 символов."), "nickname")
    key = normalize(nickname)
    if taken := _owners_of(key, exclude=player.pk):
        raise PlayerError(_("Ник «%(nick)s» уже занят игроком %(owner)s.") % {"nick": nickname, "owner": taken[0].nickname}, "nickname")
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
        first = PlayerGame.objects.filter(player=duplicate).order_by("finished_at", "game_id").values_list("finished_at", "game_id").first()
        seats = GameSeat.objects.filter(player=duplicate).update(player=into)
        participants = Participant.objects.filter(player=duplicate).update(player=into)
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
        merge = PlayerMerge.objects.create(kept=into, merged_player_id=duplicate.pk, merged_nickname=duplicate.nickname, seats_moved=seats, participants_moved=participants, by=by if getattr(by, "is_authenticated", False) else None)
        if first is not None:
            from players import book

            # The duplicate's rows are rewound while he still exists, then played again
            # with his seats pointing at the kept player.
            book.replay_from(*first)
        duplicate.delete()
    return merge


# --- seats and participants --------------------------------------------------------


@dataclass
class Resolution:
    """Typed nicknames resolved to players; `pending` still needs a person's answer."""

    player_ids: list[int | None] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)  # indexes needing a choice
    create: set[int] = field(default_factory=set)  # indexes confirmed as new players


NEW_CHOICE = "new"


def resolve_nicknames(nicknames: Sequence[str], choices: dict[int, str] | None = None) -> Resolution:
    """Known nicknames are linked at once; a suggestion or an unknown nickname needs
    a choice (a player id, or NEW_CHOICE) — given in `choices` by index."""
    matches = players_match(nicknames=nicknames)
    out = Resolution(matches=matches)
    for i, m in enumerate(matches):
        choice = (choices or {}).get(i, "")
        if m.status == KNOWN and m.player is not None:
            out.player_ids.append(m.player.player_id)
        elif choice == NEW_CHOICE:
            out.player_ids.append(None)
            out.create.add(i)
        elif choice.isdigit() and Player.objects.filter(pk=int(choice)).exists():
            out.player_ids.append(int(choice))
        else:
            out.player_ids.append(None)
            out.pending.append(i)
    return out


def apply_resolution(nicknames: Sequence[str], resolution: Resolution) -> list[Player | None]:
    """Create the confirmed new players; a chosen suggestion keeps the typed nickname
    as his alias. A nickname still pending stays without a player."""
    players: list[Player | None] = []
    with transaction.atomic():
        for i, (nick, pid) in enumerate(zip(nicknames, resolution.player_ids, strict=True)):
            if i in resolution.create:
                existing = _owners_of(normalize(nick))
                players.append(existing[0] if len(existing) == 1 else player_create(nickname=nick))
            elif pid is not None:
                player = Player.objects.get(pk=pid)
                player_add_alias(player=player, nickname=nick)
                players.append(player)
            else:
                players.append(None)
    return players


def seating_check(nicknames: Sequence[str], data: Any) -> Resolution:
    """The host's seating form: the first submit only matches; once the form says
    `players_confirmed`, every choice `player-<i>` is taken (a blank one leaves the
    seat without a player)."""
    if data.get("players_confirmed"):
        # A choice counts only for the nickname it was made for (the list may have been edited).
        choices = {i: str(data.get(f"player-{i}", "")) for i, nick in enumerate(nicknames) if data.get(f"player-nick-{i}") == nick}
        res = resolve_nicknames(nicknames, choices)
        res.pending = []
        return res
    return resolve_nicknames(nicknames)


def seat_players(*, game: Any, nicknames: Sequence[str], resolution: Resolution) -> None:
    """Link the seats of a new game (whatever order the seating drew) to the resolved players."""
    players = apply_resolution(nicknames, resolution)
    by_nick = {nick: p for nick, p in zip(nicknames, players, strict=True) if p is not None}
    for seat in GameSeat.objects.filter(game=game):
        if (p := by_nick.get(seat.nickname)) is not None:
            GameSeat.objects.filter(pk=seat.pk).update(player=p)


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
                    report.ambiguous.append((where, row.nickname, [f"{c.nickname} (#{c.player_id})" for c in m.suggestions]))
                elif create_missing:
                    p = player_create(nickname=row.nickname)
                    model.objects.filter(pk=row.pk).update(player=p)
                    index = name_index()
                    report.created += 1
                    report.linked += 1
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


def participants_confirm(*, tournament: Any, choices: dict[int, str]) -> int:
    """Link the tournament's unlinked participants as chosen: a player id (the typed
    nickname becomes his alias) or NEW_CHOICE (a new player). Returns how many."""
    from tournaments.models import Participant

    done = 0
    with transaction.atomic():
        for p in Participant.objects.filter(tournament=tournament, player__isnull=True, pk__in=list(choices)):
            choice = choices[p.pk]
            if choice == NEW_CHOICE:
                owners = _owners_of(normalize(p.nickname))
                player = owners[0] if len(owners) == 1 else player_create(nickname=p.nickname)
            elif choice.isdigit() and (found := Player.objects.filter(pk=int(choice)).first()) is not None:
                player = found
                player_add_alias(player=player, nickname=p.nickname)
            else:
                continue
            Participant.objects.filter(pk=p.pk).update(player=player)
            done += 1
    return done
