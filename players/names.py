"""Players by name: matching typed nicknames, creating players, linking a new
game's seats (the host's seating form uses this module; it imports nothing of
tournaments, so games may call it without depending on tournaments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.models import GameSeat
from players.matching import KNOWN, Match, NameIndex, normalize
from players.models import Alias, Player


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
        raise PlayerError(
            _("Ник «%(nick)s» уже занят игроком %(owner)s.") % {"nick": nickname, "owner": taken[0].nickname},
            "nickname",
        )
    return Player.objects.create(nickname=nickname, club=club, discord_user_id=discord_user_id, user=user)


def player_add_alias(*, player: Player, nickname: str) -> Alias | None:
    """Another nickname of this player (none when it is already his)."""
    key = normalize(nickname)
    if not key or key == player.key or player.aliases.filter(key=key).exists():
        return None
    return Alias.objects.create(player=player, nickname=" ".join(nickname.split()))


@dataclass
class Resolution:
    """Typed nicknames resolved to players; `pending` still needs a person's answer."""

    player_ids: list[int | None] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)  # indexes needing a choice
    create: set[int] = field(default_factory=set)  # indexes confirmed as new players


NEW_CHOICE = "new"


def resolve_nicknames(nicknames: Sequence[str], choices: dict[int, str] | None = None, *, by: Any = None) -> Resolution:
    """Known nicknames are linked at once; a suggestion or an unknown nickname needs
    a choice (a player id, or NEW_CHOICE) — given in `choices` by index.

    A chosen player must be one the form offered for that nickname (its
    suggestions); only staff (`by`) may link a seat to any player. Otherwise a
    host could seat anyone's player under any name and move his rating
    (issue 22): an id not offered is taken as no choice."""
    from games.permissions import user_may_link_any_player

    matches = players_match(nicknames=nicknames)
    out = Resolution(matches=matches)
    any_player = user_may_link_any_player(by)
    for i, m in enumerate(matches):
        choice = (choices or {}).get(i, "")
        offered = {c.player_id for c in m.suggestions}
        if m.status == KNOWN and m.player is not None:
            out.player_ids.append(m.player.player_id)
        elif choice == NEW_CHOICE:
            out.player_ids.append(None)
            out.create.add(i)
        elif choice.isdigit() and (
            int(choice) in offered or (any_player and Player.objects.filter(pk=int(choice)).exists())
        ):
            out.player_ids.append(int(choice))
        else:
            out.player_ids.append(None)
            out.pending.append(i)
    return out


def apply_resolution(nicknames: Sequence[str], resolution: Resolution, *, by: Any = None) -> list[Player | None]:
    """Create the confirmed new players; a chosen suggestion keeps the typed nickname
    as his alias when staff or the player himself (his own account, `by`)
    chose it — one host's typing never names another man's player for every
    later table (issue 22). A nickname still pending stays without a player."""
    from games.permissions import user_may_link_any_player

    confirms_any = user_may_link_any_player(by)
    players: list[Player | None] = []
    with transaction.atomic():
        for i, (nick, pid) in enumerate(zip(nicknames, resolution.player_ids, strict=True)):
            if i in resolution.create:
                existing = _owners_of(normalize(nick))
                players.append(existing[0] if len(existing) == 1 else player_create(nickname=nick))
            elif pid is not None:
                player = Player.objects.get(pk=pid)
                if confirms_any or (
                    by is not None and player.user_id is not None and player.user_id == getattr(by, "pk", None)
                ):
                    player_add_alias(player=player, nickname=nick)
                players.append(player)
            else:
                players.append(None)
    return players


def seating_check(nicknames: Sequence[str], data: Any, *, by: Any = None) -> Resolution:
    """The host's seating form: the first submit only matches; once the form says
    `players_confirmed`, every choice `player-<i>` is taken (a blank one leaves the
    seat without a player)."""
    if data.get("players_confirmed"):
        # A choice counts only for the nickname it was made for (the list may have been edited).
        choices = {
            i: str(data.get(f"player-{i}", ""))
            for i, nick in enumerate(nicknames)
            if data.get(f"player-nick-{i}") == nick
        }
        res = resolve_nicknames(nicknames, choices, by=by)
        res.pending = []
        return res
    return resolve_nicknames(nicknames, by=by)


def seat_players(*, game: Any, nicknames: Sequence[str], resolution: Resolution, by: Any = None) -> None:
    """Link the seats of a new game (whatever order the seating drew) to the resolved players."""
    players = apply_resolution(nicknames, resolution, by=by)
    by_nick = {nick: p for nick, p in zip(nicknames, players, strict=True) if p is not None}
    for seat in GameSeat.objects.filter(game=game):
        if (p := by_nick.get(seat.nickname)) is not None:
            GameSeat.objects.filter(pk=seat.pk).update(player=p)
