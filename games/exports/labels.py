"""The texts of the workbook (``LABELS``) and the letters and marks of its cells.

The Russian texts are msgids of Django's catalogue in the message context
"workbook" («workbook mark» for the one-letter marks), so a cell and the
console can say the same Russian word in two English ones; the English is in
locale/en. The game's own short words (how a player left, a step, a role's or
a phase's letter) are games.vocabulary's tables. A workbook is written in the
language it is asked for, whatever the request's: ``LABELS[lang]`` and the
other tables here are plain dicts of that language, built once per language.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from django.utils.translation import override, pgettext_lazy

from games import vocabulary

T = TypeVar("T")

_TEXTS: dict[str, Any] = {
    "sheet_protocol": pgettext_lazy("workbook", "Протокол"),
    "sheet_nights": pgettext_lazy("workbook", "Ночи"),
    "sheet_discipline": pgettext_lazy("workbook", "Дисциплина"),
    "sheet_log": pgettext_lazy("workbook", "Журнал"),
    "title": pgettext_lazy("workbook", "ПРОТОКОЛ ИГРЫ"),
    "tournament": pgettext_lazy("workbook", "Турнир"),
    "stage": pgettext_lazy("workbook", "Этап"),
    "date": pgettext_lazy("workbook", "Дата"),
    "table_no": pgettext_lazy("workbook", "Стол №"),
    "game_no": pgettext_lazy("workbook", "Игра №"),
    "host": pgettext_lazy("workbook", "Ведущий"),
    "game": pgettext_lazy("workbook", "Игра"),
    "seat": "№",  # the same in both languages
    "player": pgettext_lazy("workbook", "Игрок"),
    "role": pgettext_lazy("workbook", "Роль"),
    "fouls": pgettext_lazy("workbook", "Фолы"),
    "removed": pgettext_lazy("workbook", "Удал."),
    "left": pgettext_lazy("workbook", "Выбыл"),
    "points": pgettext_lazy("workbook", "Баллы"),
    "extra": pgettext_lazy("workbook", "Доп."),
    "ci": "Ci",  # the same in both languages
    "result": pgettext_lazy("workbook", "Победа"),
    "best_move": pgettext_lazy("workbook", "Лучший ход"),
    "bm_player": pgettext_lazy("workbook", "Кто"),
    "bm_seats": pgettext_lazy("workbook", "Номера"),
    "bm_verdict": pgettext_lazy("workbook", "Отметка"),
    "protest": pgettext_lazy("workbook", "Протест"),
    "signature": pgettext_lazy("workbook", "Подпись"),
    "votes_title": pgettext_lazy("workbook", "ГОЛОСОВАНИЯ"),
    "day": pgettext_lazy("workbook", "День"),
    "night": pgettext_lazy("workbook", "Ночь"),
    "nominated_by": pgettext_lazy("workbook", "Выставил"),
    "vote": pgettext_lazy("workbook", "Голосование"),
    "revote": pgettext_lazy("workbook", "Переголосование"),
    "lift": pgettext_lazy("workbook", "Подъём"),
    "left_by_vote": pgettext_lazy("workbook", "Покинул"),
    "nobody": pgettext_lazy("workbook", "никто"),
    "no_candidates": pgettext_lazy("workbook", "нет выставленных"),
    "lift_yes": pgettext_lazy("workbook", "из {n} за подъём — покидают"),
    "lift_no": pgettext_lazy("workbook", "из {n} за подъём — остаются"),
    "shot": pgettext_lazy("workbook", "Выстрел"),
    "don_check": pgettext_lazy("workbook", "Проверка Дона"),
    "sheriff_check": pgettext_lazy("workbook", "Проверка Шерифа"),
    "answer": pgettext_lazy("workbook", "Ответ"),
    "outcome": pgettext_lazy("workbook", "Итог"),
    "don": pgettext_lazy("workbook", "Дон"),
    "mafia": pgettext_lazy("workbook", "Мафия"),
    "killed": pgettext_lazy("workbook", "убит {seat}"),
    "miss": pgettext_lazy("workbook", "промах"),
    "is_sheriff": pgettext_lazy("workbook", "шериф"),
    "not_sheriff": pgettext_lazy("workbook", "не шериф"),
    "red": pgettext_lazy("workbook", "красный"),
    "black": pgettext_lazy("workbook", "чёрный"),
    "bm_accepted": pgettext_lazy("workbook", "принят, чёрных: {n}"),
    "bm_not_accepted": pgettext_lazy("workbook", "не принят"),
    "bm_pass": pgettext_lazy("workbook", "пас"),
    "winner_red": pgettext_lazy("workbook", "Красные (мирные)"),
    "winner_black": pgettext_lazy("workbook", "Чёрные (мафия)"),
    "winner_draw": pgettext_lazy("workbook", "Ничья (W4)"),
    "annulled": pgettext_lazy("workbook", "Игра аннулирована — переигровка (W6)"),
    "not_over": pgettext_lazy("workbook", "Игра не окончена"),
    "ppk_note": pgettext_lazy("workbook", "ППК команде {team} (W5)"),
    "team_red": pgettext_lazy("workbook", "красных"),
    "team_black": pgettext_lazy("workbook", "чёрных"),
    "penalties": pgettext_lazy("workbook", "Наказания"),
    "winks": pgettext_lazy("workbook", "Подмигивания"),
    "tech_pauses": pgettext_lazy("workbook", "Технические паузы"),
    "time": pgettext_lazy("workbook", "Время"),
    "phase": pgettext_lazy("workbook", "Фаза"),
    "penalty": pgettext_lazy("workbook", "Наказание"),
    "reason": pgettext_lazy("workbook", "Причина"),
    "consequence": pgettext_lazy("workbook", "Последствие"),
    "wink_by": pgettext_lazy("workbook", "Кто"),
    "wink_to": pgettext_lazy("workbook", "Кому"),
    "none": pgettext_lazy("workbook", "нет"),
    "action_no": "№",  # the same in both languages
    "action": pgettext_lazy("workbook", "Действие"),
    "data": pgettext_lazy("workbook", "Данные"),
    "by": pgettext_lazy("workbook", "Кем"),
    "undone": pgettext_lazy("workbook", "Отменено"),
    "undone_at": pgettext_lazy("workbook", "отменено {time}"),
    "p_foul": pgettext_lazy("workbook", "Фол ({n}-й)"),
    "p_warning": pgettext_lazy("workbook", "Предупреждение ({n}-е)"),
    "p_grey_card": pgettext_lazy("workbook", "Серая карточка"),
    "p_disqualify": pgettext_lazy("workbook", "Дисквалифицирующий фол"),
    "p_remove": pgettext_lazy("workbook", "Удаление (техническое)"),
    "p_ppk": pgettext_lazy("workbook", "ППК"),
    "removed_how": pgettext_lazy("workbook", "покинул игру: {how}"),
    "cancels_vote": pgettext_lazy("workbook", "отменяет голосование Дня {day}"),
    "replay_error": pgettext_lazy("workbook", "Ошибка протокола: {error}"),
    "refused_now": pgettext_lazy("workbook", "по нынешним правилам не принимается, пропущено (правило {rule})"),
    "after_leaving": pgettext_lazy("workbook", "после ухода из игры (F19): за столом ничего не меняет"),
    "ban_7_days": pgettext_lazy("workbook", "ЧС на 7 дней (F4)"),
    "refused_note": pgettext_lazy(
        "workbook",
        "Игра записана по прежнему прочтению правил: по нынешним правилам не принимаются и пропущены действия {list} (см. «Журнал»).",
    ),
    "note_vote_cancelled": pgettext_lazy("workbook", "голосование отменено (F7–F10)"),
    "note_vote_stopped": pgettext_lazy("workbook", "голосование остановлено (F10)"),
    "note_single_candidate_day1": pgettext_lazy("workbook", "один кандидат в День 1 — без голосования (V5)"),
    "note_no_nominees": pgettext_lazy("workbook", "нет выставленных"),
    "note_split": pgettext_lazy("workbook", "равенство 3+ кандидатов в День 1 (V6)"),
    "note_no_elimination": pgettext_lazy("workbook", "подъём не набрал большинства"),
    "note_v11": pgettext_lazy("workbook", "все за столом на голосовании — никто (V11)"),
    "note_draw": pgettext_lazy("workbook", "ничья (W4)"),
    "sheet_votes": pgettext_lazy("workbook", "Голоса"),
    "bm_points": pgettext_lazy("workbook", "ЛХ"),
    "discipline": pgettext_lazy("workbook", "Дисц."),
    "judge": pgettext_lazy("workbook", "Главный судья / организатор"),
    "draw_short": pgettext_lazy("workbook", "ничья"),
    "mark_warning": pgettext_lazy("workbook mark", "П"),
    "mark_grey": pgettext_lazy("workbook mark", "СК"),
    "mark_ppk": pgettext_lazy("workbook mark", "ППК"),
    "mark_pause": pgettext_lazy("workbook mark", "Т"),
    "legend": pgettext_lazy(
        "workbook",
        "✕ — фол (F2); У — удалён (4 фола, дисквалификация, 2 предупреждения, техническое удаление); Дисц.: П2 — предупреждений (F4), СК — серая карточка (F15), ППК — нарушитель ППК (W5), Т1 — технических пауз (D7); ЛХ — баллы за лучший ход (N6); Ci — N10/N11.",
    ),
    "voters": pgettext_lazy("workbook", "Голосовавшие"),
    "count": pgettext_lazy("workbook", "Голосов"),
    "candidate": pgettext_lazy("workbook", "Кандидат"),
    "round": pgettext_lazy("workbook", "Голосование"),
    "auto_mark": "*",  # the same in both languages
    "votes_legend": pgettext_lazy(
        "workbook", "* — голос отдан по умолчанию за последнего кандидата (V4): игрок не голосовал."
    ),
    "lift_yes_row": pgettext_lazy("workbook", "за подъём"),
    "lift_no_row": pgettext_lazy("workbook", "против"),
    "black_seat": pgettext_lazy("workbook", "{role} №{seat}"),
    "gone": pgettext_lazy("workbook", "выбыл"),
    "ppk_name": pgettext_lazy("workbook", "ППК"),
    "penalty_or_target": pgettext_lazy("workbook", "Наказание / кому"),
    "decided_by_shot": pgettext_lazy("workbook", "игра решена выстрелом (W1)"),
    "not_held_w1": pgettext_lazy("workbook", "не проводилась (W1)"),
}


def normalize_lang(lang: str | None) -> str:
    return "en" if (lang or "").lower().startswith("en") else "ru"


class ByLanguage(Mapping[str, dict[str, T]]):
    """``table[lang]``: the table in that language (``ru`` or ``en``), built once."""

    def __init__(self, build: Callable[[], dict[str, T]]) -> None:
        self._build = build
        self._built: dict[str, dict[str, T]] = {}

    def __getitem__(self, lang: str) -> dict[str, T]:
        lang = normalize_lang(lang)
        table = self._built.get(lang)
        if table is None:
            with override(lang):
                table = self._built[lang] = self._build()
        return table

    def __iter__(self) -> Iterator[str]:
        return iter(("ru", "en"))

    def __len__(self) -> int:
        return 2


LABELS = ByLanguage[str](lambda: {key: str(text) for key, text in _TEXTS.items()})
ROLE_LETTERS = ByLanguage(lambda: {code: vocabulary.ROLE_BADGES(code) for code in vocabulary.ROLES} | {"civilian": ""})
PHASE_LETTERS = ByLanguage(lambda: {code: vocabulary.PHASE_LETTERS(code) for code in vocabulary.PHASE_LETTERS})
HOW_LEFT = ByLanguage(lambda: {code: vocabulary.HOW_LEFT_SHORT(code) for code in vocabulary.HOW_LEFT_SHORT})
STEP_NAMES = ByLanguage(lambda: {code: vocabulary.STEPS_SHORT(code) for code in vocabulary.STEPS_SHORT})
# Ways of leaving that are a removal by the host (F3, F4, X4): the «Удал.» mark.
REMOVAL_HOWS = frozenset(("fouls", "disqualified", "warnings", "removed"))
FOUL_MARK = "✕"
_MARKS = ByLanguage(lambda: {"removal": str(pgettext_lazy("workbook mark", "У"))})


def removal_mark(lang: str) -> str:
    """The «Удал.» column's mark of a player the host removed."""
    return _MARKS[lang]["removal"]
