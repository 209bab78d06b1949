"""Matching typed nicknames to players (pure: no Django).

Terms:
- *key*: a nickname normalised for comparison (games/rules/nicknames.py):
  case folded, ``ё`` read as ``е``, Latin look-alike letters read as the
  Cyrillic ones, zero-width characters dropped, runs of whitespace collapsed
  to one space, ends stripped. ``Ёжик``, `` ежик `` and ``ЕЖИК`` share the key
  ``ежик``; «Чайкa» (Latin a) and «Чайка» share one too.
- *known*: the key equals the key of exactly one player's display nickname
  or one of his aliases (former nicknames).
- *ambiguous*: the key names several players (two people once used it).
- *suggestion*: a player whose nickname or alias is close to the typed one
  (difflib's ratio) and carries the same numbers, offered to a person, never
  linked by itself. Numbers tell people apart (``Игрок_01`` and ``Игрок_02``,
  ``Max2`` and ``Max3`` are two players), so a name with other digits is never
  offered as the same person misspelt.
- *new*: neither known nor close to anybody.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from games.rules.nicknames import nickname_key

_NUMBERS = re.compile(r"\d+")

KNOWN = "known"
AMBIGUOUS = "ambiguous"
SUGGEST = "suggest"
NEW = "new"


def _numbers(key: str) -> list[str]:
    """The numbers in a name, leading zeros dropped (``01`` is ``1``)."""
    return [n.lstrip("0") or "0" for n in _NUMBERS.findall(key)]


def normalize(nickname: str) -> str:
    return nickname_key(nickname)


@dataclass(frozen=True)
class Candidate:
    player_id: int
    nickname: str  # the player's display nickname
    via: str = ""  # the alias that matched, when not the display nickname


@dataclass
class Match:
    typed: str
    status: str  # KNOWN | AMBIGUOUS | SUGGEST | NEW
    player: Candidate | None = None
    suggestions: list[Candidate] = field(default_factory=list)


class NameIndex:
    """Every player's names by key; built once per request or command."""

    def __init__(self, names: Iterable[tuple[int, str, str]], *, cutoff: float = 0.75, limit: int = 5) -> None:
        """`names`: (player_id, display nickname, name) — name is the nickname itself or an alias."""
        self.cutoff = cutoff
        self.limit = limit
        self._by_key: dict[str, dict[int, Candidate]] = {}
        for player_id, display, name in names:
            via = "" if name == display else name
            bucket = self._by_key.setdefault(normalize(name), {})
            # A display-nickname hit wins over an alias hit of the same player.
            if player_id not in bucket or not via:
                bucket[player_id] = Candidate(player_id, display, via)

    def match(self, typed: str) -> Match:
        key = normalize(typed)
        exact = self._by_key.get(key, {})
        if len(exact) == 1:
            return Match(typed, KNOWN, player=next(iter(exact.values())))
        if len(exact) > 1:
            return Match(typed, AMBIGUOUS, suggestions=sorted(exact.values(), key=lambda c: c.player_id))
        return Match(typed, SUGGEST if (close := self.close(key)) else NEW, suggestions=close)

    def close(self, key: str) -> list[Candidate]:
        seen: dict[int, Candidate] = {}
        numbers = _numbers(key)
        for near in difflib.get_close_matches(key, list(self._by_key), n=self.limit * 2, cutoff=self.cutoff):
            if _numbers(near) != numbers:
                continue
            for candidate in self._by_key[near].values():
                seen.setdefault(candidate.player_id, candidate)
        return list(seen.values())[: self.limit]

    def match_all(self, typed: Iterable[str]) -> list[Match]:
        return [self.match(t) for t in typed]
