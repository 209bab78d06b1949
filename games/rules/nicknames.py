"""When two typed nicknames are the same nickname (pure: no Django).

Terms:
- *key*: a nickname reduced for comparison. Case is folded, ``ё`` is read as
  ``е``, zero-width characters (and the soft hyphen) are dropped, runs of
  whitespace become one space, the ends are stripped, and the Latin letters
  that look like Cyrillic ones (*confusables*: a/а, e/е, o/о, p/р, c/с, x/х,
  y/у, k/к, m/м, t/т, h/н, b/в, capitals included) are read as the Cyrillic
  letter. «Чайкa» typed with a Latin ``a`` and «Чайка» share one key; so do
  ``Ёжик``, `` ежик `` and ``ЕЖИК``.

Why fold to Cyrillic: the club's nicknames are mostly Russian, and a host's
keyboard slips from one layout to the other mid-word; a key only has to be the
same for look-alikes, so the direction is a choice, made once here. A key is
never shown: people see the nickname as typed.

Used wherever uniqueness matters (a game's table, a tournament's participants,
players' names) and by the players' matching (players/matching.py), so that a
look-alike is one nickname everywhere.
"""

from __future__ import annotations

import re

# Latin letter (after case folding) -> the Cyrillic letter it looks like.
CONFUSABLES = str.maketrans("aeopcxykmthb", "аеорсхукмтнв")
# Zero-width space/non-joiner/joiner, word joiner, BOM, soft hyphen, Mongolian vowel separator.
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"))
_SPACES = re.compile(r"\s+")


def nickname_key(nickname: str) -> str:
    """The comparison key of a nickname (see the module docstring)."""
    folded = nickname.translate(ZERO_WIDTH).casefold().replace("ё", "е").translate(CONFUSABLES)
    return _SPACES.sub(" ", folded).strip()


def nickname_sort_key(nickname: str) -> tuple[str, str]:
    """Russian alphabetical order, the same on every page and database: case
    folded, Ё beside Е (after it on a tie), then the nickname as typed so the
    order is total. Code points would put «Ёж» before «Аня»."""
    folded = nickname.casefold()
    return (folded.replace("ё", "е"), folded.replace("ё", "е\uffff") + "\x00" + nickname)
