"""The game's words, in one place (issue 23).

Every surface that names a role, a team, a step, a phase, a way of leaving
the game, a penalty kind or a result — the console, the public board and the
overlay, the workbooks, the Discord bridge, the players' pages and their
templates — takes the word from here, so the wording cannot drift between
them and a new kind is one line in one table.

A table maps the engine's code to a Russian msgid (Django's catalogue holds
the English); calling it gives the word in the active language, or in `lang`
when one is given (the workbooks and the bot's posts choose theirs). The
kind lists the engine defines (its penalty kinds, its steps) are the tables'
keys: `tests/test_vocabulary.py` checks that every code the engine can
produce has its word.

Words of the public board: a few generic translations name a secret in
English («Shot at night», «Mafia meeting»), which a spectator must not read
while the game runs (the leak scanner of tests/test_board_leaks.py looks for
them). Those entries carry the message context "public board"; `public()`
gives the word with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from django.utils.functional import Promise
from django.utils.text import capfirst
from django.utils.translation import (
    gettext,
    gettext_noop,
    override,
    pgettext,
    pgettext_lazy,
)

from games.rules.engine import PENALTY_KINDS as ENGINE_PENALTY_KINDS
from games.rules.state import BLACK_ROLES

PUBLIC_BOARD = "public board"


@dataclass(frozen=True)
class Words:
    """Codes and their msgids; `context` is the msgctxt of every entry, and
    `public_contexts` the codes the public board names in its own context."""

    msgids: Mapping[str, str | Promise]  # a lazy pgettext carries its own context
    context: str | None = None
    public_contexts: frozenset[str] = field(default_factory=frozenset)

    def __call__(self, code: str | None, lang: str | None = None, *, default: str | None = None) -> str:
        msgid = self.msgids.get(code or "")
        if msgid is None:
            return (code or "") if default is None else default
        return _translate(msgid, self.context, lang)

    def public(self, code: str | None, lang: str | None = None) -> str:
        """The word as the public board shows it (see the module's docstring)."""
        msgid = self.msgids.get(code or "")
        if msgid is None:
            return ""
        context = PUBLIC_BOARD if (code or "") in self.public_contexts else self.context
        return _translate(msgid, context, lang)

    def __contains__(self, code: object) -> bool:
        return code in self.msgids

    def __iter__(self) -> Iterator[str]:
        return iter(self.msgids)

    def codes(self) -> tuple[str, ...]:
        return tuple(self.msgids)


def _translate(msgid: str | Promise, context: str | None, lang: str | None) -> str:
    if not isinstance(msgid, str):
        if lang is None:
            return str(msgid)
        with override(lang):
            return str(msgid)
    if lang is None:
        return pgettext(context, msgid) if context else gettext(msgid)
    with override(lang):
        return pgettext(context, msgid) if context else gettext(msgid)


# --- who ---------------------------------------------------------------------------------

ROLES = Words(
    {
        "sheriff": gettext_noop("Шериф"),
        "don": gettext_noop("Дон"),
        "mafia": gettext_noop("Мафия"),
        "civilian": gettext_noop("Мирный"),
    }
)
# The console's one-letter badges (a civilian has none).
ROLE_BADGES = Words({"sheriff": "Ш", "don": "Д", "mafia": "М"}, context="role badge")  # see _CONTEXT_MSGIDS

# The team in the genitive plural, as the regulations name it in «ППК команде красных».
TEAMS_OF = Words({"red": gettext_noop("красных"), "black": gettext_noop("чёрных")})

WINNERS = Words(
    {
        "red": gettext_noop("Победа красных"),
        "black": gettext_noop("Победа чёрных"),
        "draw": gettext_noop("Ничья"),
    }
)


def team_of(role: str | None) -> str:
    """The team a role plays for: "black" for the Don and the mafia, else "red"."""
    return "black" if role in BLACK_ROLES else "red"


# --- how a player left the game (the engine's `left[].how`) -----------------------------

# One wording everywhere; a line or a cell that starts with it capitalises it.
HOW_LEFT = Words(
    {
        "vote": gettext_noop("заголосован"),
        "lift_vote": gettext_noop("поднят голосованием"),
        "shot": gettext_noop("убит ночью"),
        "fouls": gettext_noop("удалён: 4 фола"),
        "disqualified": gettext_noop("удалён: дисквалифицирующий фол"),
        "warnings": gettext_noop("удалён: 2 предупреждения"),
        "removed": gettext_noop("снят с игры"),
    },
)
# The public board's capitalised forms; «Убит ночью» in the board's own context
# (the generic English, «shot at night», reads as a night action).
HOW_LEFT_PUBLIC = Words(
    {
        "vote": gettext_noop("Заголосован"),
        "lift_vote": gettext_noop("Поднят голосованием"),
        "shot": "Убит ночью",  # in the "public board" context only (see _CONTEXT_MSGIDS)
        "fouls": gettext_noop("Удалён: 4 фола"),
        "disqualified": gettext_noop("Удалён: дисквалифицирующий фол"),
        "warnings": gettext_noop("Удалён: 2 предупреждения"),
        "removed": gettext_noop("Снят с игры"),
    },
    public_contexts=frozenset({"shot"}),
)

# --- penalties -----------------------------------------------------------------------------

PENALTIES = Words(
    {
        "foul": gettext_noop("фол"),
        "warning": gettext_noop("предупреждение"),
        "grey_card": gettext_noop("серая карточка"),
        "disqualify": gettext_noop("дисквалифицирующий фол"),
        "remove": gettext_noop("снятие с игры"),
        "ppk": gettext_noop("ППК"),
    }
)
# The kinds the host gives to one seat: the engine's (F2, F4, F15, F3) and the
# technical removal (X4). ППК is given to a team, not a seat (W5).
SEAT_PENALTY_KINDS: tuple[str, ...] = (*ENGINE_PENALTY_KINDS, "remove")

# --- the game's course ---------------------------------------------------------------------

STEPS = Words(
    {
        "dogovorka": gettext_noop("Договорка"),
        "free_seating": gettext_noop("Свободная посадка"),
        "speech": gettext_noop("Речь"),
        "voting": gettext_noop("Голосование"),
        "tie_speech": gettext_noop("Речь 30 секунд"),
        "lift_vote": gettext_noop("Голосование за подъём"),
        "last_word": gettext_noop("Последнее слово"),
        "mafia_shot": gettext_noop("Выстрел мафии"),
        "don_check": gettext_noop("Проверка Дона"),
        "sheriff_check": gettext_noop("Проверка Шерифа"),
        "best_move": gettext_noop("Лучший ход"),
        "finished": gettext_noop("Игра окончена"),
    },
    public_contexts=frozenset({"dogovorka"}),
)

STATUSES = Words(
    {
        "setup": gettext_noop("Подготовка"),
        "running": gettext_noop("Игра идёт"),
        "finished": gettext_noop("Игра окончена"),
        "annulled": gettext_noop("Игра аннулирована"),
    }
)


# --- the workbook's short forms (a cell is narrow) -------------------------------------------

# Marked with their message context right here: the same Russian word is
# another English one in a cell («голосование»: voted out, or the vote).
# How a player left, in the protocol sheet's «Выбыл» column.
HOW_LEFT_SHORT = Words(
    {
        "vote": pgettext_lazy("workbook", "голосование"),
        "lift_vote": pgettext_lazy("workbook", "подъём"),
        "shot": pgettext_lazy("workbook", "убит"),
        "fouls": pgettext_lazy("workbook", "4 фола"),
        "disqualified": pgettext_lazy("workbook", "дисквалиф."),
        "warnings": pgettext_lazy("workbook", "2 предупр."),
        "removed": pgettext_lazy("workbook", "удалён (тех.)"),
    }
)
# The step an action was recorded in, in the «Журнал» sheet.
STEPS_SHORT = Words(
    {
        "dogovorka": pgettext_lazy("workbook step", "договорка"),
        "free_seating": pgettext_lazy("workbook step", "свободная посадка"),
        "speech": pgettext_lazy("workbook step", "речь"),
        "tie_speech": pgettext_lazy("workbook step", "речь 30 с"),
        "last_word": pgettext_lazy("workbook step", "последнее слово"),
        "voting": pgettext_lazy("workbook step", "голосование"),
        "lift_vote": pgettext_lazy("workbook step", "подъём"),
        "mafia_shot": pgettext_lazy("workbook step", "выстрел"),
        "don_check": pgettext_lazy("workbook step", "проверка Дона"),
        "sheriff_check": pgettext_lazy("workbook step", "проверка Шерифа"),
        "best_move": pgettext_lazy("workbook step", "лучший ход"),
        "finished": pgettext_lazy("workbook step", "конец"),
    }
)
# «Д2», «Н1»: the phase's letter before the day's number.
PHASE_LETTERS = Words(
    {
        "day": pgettext_lazy("phase letter", "Д"),
        "night": pgettext_lazy("phase letter", "Н"),
    }
)


# The entries above that are translated in a message context, marked here for
# makemessages (gettext_noop takes no context); never evaluated for display.
_CONTEXT_MSGIDS = (
    pgettext_lazy("public board", "Убит ночью"),
    pgettext_lazy("public board", "Договорка"),
    pgettext_lazy("role badge", "Ш"),
    pgettext_lazy("role badge", "Д"),
    pgettext_lazy("role badge", "М"),
)


def when(day: int | None, phase: str | None, lang: str | None = None) -> str:
    """«День 2» / «Ночь 1» in the terms of FORMAT.md (a Night carries the Day
    before it); «Подготовка» before the first Day."""
    if day is None or phase is None:
        return _translate(gettext_noop("Подготовка"), None, lang)
    if phase == "day":
        return _translate(gettext_noop("День %(n)s"), None, lang) % {"n": day}
    return _translate(gettext_noop("Ночь %(n)s"), None, lang) % {"n": day}


def clock_text(ms: int) -> str:
    """m:ss, rounded up to the second (a clock at 0.4 s still shows 0:01)."""
    seconds = max(0, (int(ms) + 999) // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


def sentence(text: str) -> str:
    """A word that starts a line or a cell."""
    return str(capfirst(text))
