"""Names the app generates, shown in the reader's language.

When a tournament starts a round, the game of each table is titled
«<tournament> · Этап 1 · тур 1, стол 1» and a stage without a name is called
«Этап 1» — in the organizer's language at that moment, stored as text. A
reader in another language should see the app's default in his own language,
while a name the organizer typed stays as typed.

The stored text is recognized by the very patterns the app generated it with
(the catalogue's msgids and their translations), so nothing new is stored
and names written before this module existed are recognized too. Only the
generated parts are re-rendered: in «Кубок · Финал · тур 1, стол 1» the
organizer's «Кубок» and «Финал» stay, «тур 1, стол 1» follows the reader.
"""

from __future__ import annotations

import re
from functools import cache

from django.conf import settings
from django.utils.translation import gettext, gettext_noop, override

# The msgids of the generated names (tournaments/services.py makes them).
STAGE_NAME = gettext_noop("Этап %(n)s")
TABLE_GAME = gettext_noop("тур %(r)s, стол %(t)s")
REPLAY = gettext_noop("переигровка")
TOURNAMENT_CREATED = gettext_noop("Создан турнир")
SEPARATOR = " · "


def _in_every_language(msgid: str) -> list[str]:
    out = []
    for code, _name in settings.LANGUAGES:
        with override(code):
            text = gettext(msgid)
        if text not in out:
            out.append(text)
    return out


def _pattern(template: str, variant: int) -> str:
    """A translated template as a regex: %(x)s becomes the group x_<variant>."""
    return re.sub(r"%\\\((\w+)\\\)s", lambda m: f"(?P<{m.group(1)}_{variant}>\\d+)", re.escape(template))


def _alternatives(msgid: str) -> str:
    return "|".join(f"(?:{_pattern(t, i)})" for i, t in enumerate(_in_every_language(msgid)))


def _number(m: re.Match[str], name: str) -> int:
    return int(next(v for k, v in m.groupdict().items() if v is not None and k.rsplit("_", 1)[0] == name))


@cache
def _stage_re() -> re.Pattern[str]:
    return re.compile(f"^(?:{_alternatives(STAGE_NAME)})$")


@cache
def _table_re() -> re.Pattern[str]:
    replays = "|".join(re.escape(t) for t in _in_every_language(REPLAY))
    return re.compile(
        f"^(?P<head>.*?){re.escape(SEPARATOR)}(?:{_alternatives(TABLE_GAME)})(?P<replay>{re.escape(SEPARATOR)}(?:{replays}))?$"
    )


def stage_name(name: str) -> str:
    """«Этап 2» / "Stage 2" in the reader's language; a typed name as typed."""
    m = _stage_re().match(name or "")
    return gettext(STAGE_NAME) % {"n": _number(m, "n")} if m else name


def table_game_title(tournament: str, stage: str, round_no: int, table_no: int, *, replay: bool = False) -> str:
    """The title of a tournament table's game, in the active language."""
    title = f"{tournament}{SEPARATOR}{stage}{SEPARATOR}" + gettext(TABLE_GAME) % {"r": round_no, "t": table_no}
    if replay:
        title += SEPARATOR + gettext(REPLAY)
    return title


def game_title(title: str) -> str:
    """A game's title with its generated parts in the reader's language."""
    m = _table_re().match(title or "")
    if not m:
        return title
    round_no, table_no = _number(m, "r"), _number(m, "t")
    head = m.group("head")
    tournament, _sep, stage = head.rpartition(SEPARATOR)
    if not _sep:  # no stage part: the tournament's name alone
        tournament, stage = head, ""
    if stage:
        return table_game_title(tournament, stage_name(stage), round_no, table_no, replay=bool(m.group("replay")))
    out = f"{tournament}{SEPARATOR}" + gettext(TABLE_GAME) % {"r": round_no, "t": table_no}
    return out + (SEPARATOR + gettext(REPLAY) if m.group("replay") else "")


def game_name(title: str, pk: int | None) -> str:
    """What the reader calls a game: its title (``game_title``), or «Игра №n»
    when it has none."""
    return game_title(title) if title else gettext("Игра №%(pk)s") % {"pk": pk}


def revision_note(note: str) -> str:
    """The note of a tournament's first scoring revision, in the reader's language."""
    return gettext(TOURNAMENT_CREATED) if note and note in _in_every_language(TOURNAMENT_CREATED) else note
