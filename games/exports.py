"""The Excel protocol of a game (openpyxl, write-only) and the JSON log.

Terms:
- *protocol* (``GameProtocol``): what a workbook needs about one game, prepared
  once — the header (tournament, stage, table, game №, date, host), every
  stored host action (``LogEntry``; undone ones included, for the journal), the
  engine state after the active actions (``state.record`` holds nominations,
  votes, shots, checks, best moves, penalties, winks and tech pauses, each
  with the ``index`` of its action) and the points per seat. Building the
  sheets from it touches no database.
- *sheets*: «Протокол» (laid out like the FIIM paper protocol: header, ten
  player rows, result, best move, nights, protest, host; beside it one voting
  block per Day), «Ночи» (shots, checks, best move per Night), «Дисциплина»
  (penalties, winks, tech pauses) and «Журнал» (every action with its time,
  undone ones marked). With several games the workbook has one «Протокол»
  sheet per game; the detail sheets, when asked for, are shared and start
  with a «Игра» column.
- *lang*: "ru" (default) or "en": the headings and texts of the workbook. It is
  a parameter of the export rather than the active Django language because an
  organizer may file a Russian protocol while browsing in English; the texts
  live in ``LABELS`` below.

Why write-only: the workbook is streamed out without keeping cell objects in
memory; every style is created once per workbook (``_Styles``) and its
``StyleArray`` is shared by all the cells that use it, which is what keeps a
100-game workbook within a second.

API (used by the views and commands here, and by the tournaments app for its
tournament workbook):

- ``collect_protocols(games, *, journal=True, scores=None) -> list[GameProtocol]``
  reads games in a fixed number of queries (games with host and tournament
  table, then all their actions) and replays each log once. ``scores`` maps
  a game id to ``{seat: {"points", "extra", "ci"}}`` when the caller already has
  them; otherwise ``tournaments.scoring.game_seat_scores(game)`` is asked, and
  outside a tournament points come from the result (win 1, loss 0).
- ``write_game_protocol_sheets(workbook, games_or_protocols, lang="ru", *,
  details=True, titles=None)`` adds the sheets to a write-only workbook made by
  ``new_workbook()`` (or any ``Workbook(write_only=True)``).
- ``build_games_workbook(games, lang="ru", *, details=None) -> Workbook``: a
  complete write-only workbook (not yet saved); ``details`` defaults to True
  for one game, False for several (one «Протокол» sheet per game).
- ``save_workbook(workbook, fileobj)`` / ``workbook_bytes(workbook)``.
- ``export_log(game) -> dict``: the protocol log (FORMAT.md), as ``export_log``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import IO, Any

from openpyxl import Workbook
from openpyxl.cell import Cell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.page import PageMargins

from games.rules import GameState, Regulations, RuleViolation, apply_in_place, new_state

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# --- texts -------------------------------------------------------------------

LABELS: dict[str, dict[str, str]] = {
    "ru": {
        "sheet_protocol": "Протокол",
        "sheet_nights": "Ночи",
        "sheet_discipline": "Дисциплина",
        "sheet_log": "Журнал",
        "title": "ПРОТОКОЛ ИГРЫ",
        "tournament": "Турнир",
        "stage": "Этап",
        "date": "Дата",
        "table_no": "Стол №",
        "game_no": "Игра №",
        "host": "Ведущий",
        "game": "Игра",
        "seat": "№",
        "player": "Игрок",
        "role": "Роль",
        "fouls": "Фолы",
        "removed": "Удал.",
        "left": "Выбыл",
        "points": "Баллы",
        "extra": "Доп.",
        "ci": "Ci",
        "result": "Победа",
        "best_move": "Лучший ход",
        "bm_player": "Игрок",
        "bm_seats": "Номера",
        "bm_verdict": "Отметка",
        "protest": "Протест",
        "signature": "Подпись",
        "votes_title": "ГОЛОСОВАНИЯ",
        "day": "День",
        "night": "Ночь",
        "nominated_by": "Выставил",
        "vote": "Голосование",
        "revote": "Переголосование",
        "lift": "Подъём",
        "left_by_vote": "Покинул",
        "nobody": "никто",
        "no_candidates": "нет выставленных",
        "lift_yes": "из {n} за подъём — покидают",
        "lift_no": "из {n} за подъём — остаются",
        "shot": "Выстрел",
        "don_check": "Проверка Дона",
        "sheriff_check": "Проверка Шерифа",
        "answer": "Ответ",
        "outcome": "Итог",
        "don": "Дон",
        "mafia": "Мафия",
        "killed": "убит {seat}",
        "miss": "промах",
        "is_sheriff": "шериф",
        "not_sheriff": "не шериф",
        "red": "красный",
        "black": "чёрный",
        "bm_accepted": "принят, чёрных: {n}",
        "bm_not_accepted": "не принят",
        "bm_pass": "пас",
        "winner_red": "Красные (мирные)",
        "winner_black": "Чёрные (мафия)",
        "winner_draw": "Ничья (W4)",
        "annulled": "Игра аннулирована — переигровка (W6)",
        "not_over": "Игра не окончена",
        "ppk_note": "ППК команде {team} (W5)",
        "team_red": "красных",
        "team_black": "чёрных",
        "penalties": "Наказания",
        "winks": "Подмигивания",
        "tech_pauses": "Технические паузы",
        "time": "Время",
        "phase": "Фаза",
        "penalty": "Наказание",
        "reason": "Причина",
        "consequence": "Последствие",
        "wink_by": "Кто",
        "wink_to": "Кому",
        "none": "нет",
        "action_no": "№",
        "action": "Действие",
        "data": "Данные",
        "by": "Кем",
        "undone": "Отменено",
        "undone_at": "отменено {time}",
        "p_foul": "Фол ({n}-й)",
        "p_warning": "Предупреждение ({n}-е)",
        "p_grey_card": "Серая карточка",
        "p_disqualify": "Дисквалифицирующий фол",
        "p_remove": "Удаление (техническое)",
        "p_ppk": "ППК",
        "removed_how": "покинул игру: {how}",
        "cancels_vote": "отменяет голосование Дня {day}",
        "replay_error": "Ошибка протокола: {error}",
        "note_vote_cancelled": "голосование отменено (F7–F10)",
        "note_vote_stopped": "голосование остановлено (F10)",
        "note_single_candidate_day1": "один кандидат в День 1 — без голосования (V5)",
        "note_no_nominees": "нет выставленных",
        "note_split": "равенство 3+ кандидатов в День 1 (V6)",
        "note_no_elimination": "подъём не набрал большинства",
        "note_v11": "все за столом на голосовании — никто (V11)",
        "note_draw": "ничья (W4)",
    },
    "en": {
        "sheet_protocol": "Protocol",
        "sheet_nights": "Nights",
        "sheet_discipline": "Discipline",
        "sheet_log": "Log",
        "title": "GAME PROTOCOL",
        "tournament": "Tournament",
        "stage": "Stage",
        "date": "Date",
        "table_no": "Table №",
        "game_no": "Game №",
        "host": "Host",
        "game": "Game",
        "seat": "№",
        "player": "Player",
        "role": "Role",
        "fouls": "Fouls",
        "removed": "Rem.",
        "left": "Left",
        "points": "Points",
        "extra": "Extra",
        "ci": "Ci",
        "result": "Winner",
        "best_move": "Best move",
        "bm_player": "Player",
        "bm_seats": "Seats",
        "bm_verdict": "Verdict",
        "protest": "Protest",
        "signature": "Signature",
        "votes_title": "VOTES",
        "day": "Day",
        "night": "Night",
        "nominated_by": "Nominated by",
        "vote": "Vote",
        "revote": "Revote",
        "lift": "Lift vote",
        "left_by_vote": "Left",
        "nobody": "nobody",
        "no_candidates": "no nominations",
        "lift_yes": "of {n} for the lift — they leave",
        "lift_no": "of {n} for the lift — they stay",
        "shot": "Shot",
        "don_check": "Don's check",
        "sheriff_check": "Sheriff's check",
        "answer": "Answer",
        "outcome": "Outcome",
        "don": "Don",
        "mafia": "Mafia",
        "killed": "{seat} killed",
        "miss": "miss",
        "is_sheriff": "sheriff",
        "not_sheriff": "not sheriff",
        "red": "red",
        "black": "black",
        "bm_accepted": "accepted, blacks: {n}",
        "bm_not_accepted": "not accepted",
        "bm_pass": "pass",
        "winner_red": "Red (town)",
        "winner_black": "Black (mafia)",
        "winner_draw": "Draw (W4)",
        "annulled": "Game annulled — replay ordered (W6)",
        "not_over": "Game not finished",
        "ppk_note": "ППК to the {team} team (W5)",
        "team_red": "red",
        "team_black": "black",
        "penalties": "Penalties",
        "winks": "Winks",
        "tech_pauses": "Technical pauses",
        "time": "Time",
        "phase": "Phase",
        "penalty": "Penalty",
        "reason": "Reason",
        "consequence": "Consequence",
        "wink_by": "By",
        "wink_to": "To",
        "none": "none",
        "action_no": "№",
        "action": "Action",
        "data": "Data",
        "by": "By",
        "undone": "Undone",
        "undone_at": "undone {time}",
        "p_foul": "Foul (#{n})",
        "p_warning": "Warning (#{n})",
        "p_grey_card": "Grey card",
        "p_disqualify": "Disqualifying foul",
        "p_remove": "Removal (technical)",
        "p_ppk": "ППК",
        "removed_how": "left the game: {how}",
        "cancels_vote": "cancels the vote of Day {day}",
        "replay_error": "Protocol error: {error}",
        "note_vote_cancelled": "vote cancelled (F7–F10)",
        "note_vote_stopped": "vote stopped (F10)",
        "note_single_candidate_day1": "one candidate on Day 1 — no vote (V5)",
        "note_no_nominees": "no nominations",
        "note_split": "Day 1 tie of 3+ candidates (V6)",
        "note_no_elimination": "the lift vote failed",
        "note_v11": "everyone at the table tied — nobody leaves (V11)",
        "note_draw": "draw (W4)",
    },
}

ROLE_LETTERS = {
    "ru": {"sheriff": "Ш", "don": "Д", "mafia": "М", "civilian": ""},
    "en": {"sheriff": "S", "don": "D", "mafia": "M", "civilian": ""},
}
PHASE_LETTERS = {"ru": {"day": "Д", "night": "Н"}, "en": {"day": "D", "night": "N"}}
HOW_LEFT = {
    "ru": {
        "vote": "голосование",
        "lift_vote": "подъём",
        "shot": "убит",
        "fouls": "4 фола",
        "disqualified": "дисквалиф.",
        "warnings": "2 предупр.",
        "removed": "удалён (тех.)",
    },
    "en": {
        "vote": "voted out",
        "lift_vote": "lift vote",
        "shot": "shot",
        "fouls": "4 fouls",
        "disqualified": "disqualified",
        "warnings": "2 warnings",
        "removed": "removed (tech.)",
    },
}
# Ways of leaving that are a removal by the host (F3, F4, X4): the «Удал.» mark.
REMOVAL_HOWS = frozenset(("fouls", "disqualified", "warnings", "removed"))
FOUL_MARK = "✕"
REMOVAL_MARK = {"ru": "У", "en": "R"}

STEP_NAMES = {
    "ru": {
        "dogovorka": "договорка",
        "free_seating": "свободная посадка",
        "speech": "речь",
        "tie_speech": "речь 30 с",
        "last_word": "последнее слово",
        "voting": "голосование",
        "lift_vote": "подъём",
        "mafia_shot": "выстрел",
        "don_check": "проверка Дона",
        "sheriff_check": "проверка Шерифа",
        "best_move": "лучший ход",
        "finished": "конец",
    },
    "en": {
        "dogovorka": "agreement",
        "free_seating": "free seating",
        "speech": "speech",
        "tie_speech": "30 s speech",
        "last_word": "last word",
        "voting": "vote",
        "lift_vote": "lift vote",
        "mafia_shot": "shot",
        "don_check": "Don's check",
        "sheriff_check": "Sheriff's check",
        "best_move": "best move",
        "finished": "end",
    },
}


def normalize_lang(lang: str | None) -> str:
    return "en" if (lang or "").lower().startswith("en") else "ru"


# --- prepared data -------------------------------------------------------------


@dataclass
class LogEntry:
    """One stored host action (a GameAction row), undone or not."""

    seq: int
    payload: dict[str, Any]
    created_at: datetime | None = None
    by: str = ""
    undone_at: datetime | None = None

    @property
    def undone(self) -> bool:
        return self.undone_at is not None


@dataclass
class Header:
    game_id: int | None = None
    title: str = ""
    tournament: str = ""
    stage: str = ""
    table_no: Any = None
    game_no: Any = None
    date: date | None = None
    host: str = ""


@dataclass
class GameProtocol:
    header: Header
    entries: list[LogEntry]
    state: GameState
    # seq -> (day, phase, step, speaker) of the state the action was recorded in.
    contexts: dict[int, tuple[Any, Any, Any, Any]] = field(default_factory=dict)
    # seq of the active entries by record index (record entries carry the index).
    seq_by_index: list[int] = field(default_factory=list)
    scores: dict[int, dict[str, Any]] | None = None
    error: str = ""

    def entry_for_index(self, index: Any) -> LogEntry | None:
        if isinstance(index, int) and 0 <= index < len(self.seq_by_index):
            return self._by_seq().get(self.seq_by_index[index])
        return None

    def _by_seq(self) -> dict[int, LogEntry]:
        cached: dict[int, LogEntry] | None = getattr(self, "_seq_map", None)
        if cached is None:
            cached = {e.seq: e for e in self.entries}
            self._seq_map = cached
        return cached


def prepare_protocol(
    *,
    header: Header,
    entries: Sequence[LogEntry],
    regulations: Regulations | None = None,
    scores: dict[int, dict[str, Any]] | None = None,
    journal: bool = True,
) -> GameProtocol:
    """Replay the active entries once; with ``journal`` also note the state each
    action (undone ones included) was recorded in, for the «Журнал» sheet."""
    ordered = sorted(entries, key=lambda e: e.seq)
    state = new_state(regulations)
    contexts: dict[int, tuple[Any, Any, Any, Any]] = {}
    seq_by_index: list[int] = []
    error = ""
    for entry in ordered:
        if journal:
            contexts[entry.seq] = (state.day, state.phase, state.step, state.speaker)
        if entry.undone or error:
            continue
        try:
            apply_in_place(state, entry.payload)  # one state for the whole replay (no copies)
        except RuleViolation as exc:  # a stored log the engine refuses: keep what replayed
            error = f"#{entry.seq}: {exc}"
            continue
        seq_by_index.append(entry.seq)
    return GameProtocol(
        header=header,
        entries=list(ordered),
        state=state,
        contexts=contexts,
        seq_by_index=seq_by_index,
        scores=scores,
        error=error,
    )


# --- reading games from the database ---------------------------------------------

_TABLE_PATH = "tournament_table__round__stage__tournament"


def _tournament_select_related() -> list[str]:
    """The tournaments app may not have its Table model yet: join only what exists."""
    from games.models import Game

    model: Any = Game
    parts = _TABLE_PATH.split("__")
    for i, name in enumerate(parts):
        try:
            f = model._meta.get_field(name)
        except Exception:  # FieldDoesNotExist: stop at what exists
            return ["__".join(parts[:i])] if i else []
        model = getattr(f, "related_model", None)
        if model is None:
            return ["__".join(parts[: i + 1])]
    return [_TABLE_PATH]


def _header_for(game: Any) -> Header:
    from django.utils import timezone

    table = getattr(game, "tournament_table", None)
    rnd = getattr(table, "round", None)
    stage = getattr(rnd, "stage", None)
    tournament = getattr(stage, "tournament", None)
    host = game.host
    host_name = (host.get_full_name() if hasattr(host, "get_full_name") else "") or host.get_username()
    when = game.created_at
    return Header(
        game_id=game.pk,
        title=game.title,
        tournament=str(getattr(tournament, "name", "") or ""),
        stage=str(getattr(stage, "name", "") or ""),
        table_no=getattr(table, "number", None),
        game_no=getattr(rnd, "number", None),
        date=timezone.localtime(when).date() if when else None,
        host=host_name,
    )


def _scores_for(game: Any) -> dict[int, dict[str, Any]] | None:
    if getattr(game, "tournament_table", None) is None:  # joined already: no query
        return None
    try:
        from tournaments.scoring import game_seat_scores  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # the tournaments app has no scoring yet
        return None
    result = game_seat_scores(game)
    return {int(k): dict(v) for k, v in result.items()} if result else None


def _local_naive(value: datetime | None, tz: Any = None) -> datetime | None:
    """Local wall time without tzinfo (Excel has no time zones)."""
    if value is None:
        return None
    if value.tzinfo is not None:
        if tz is None:
            from django.utils import timezone

            tz = timezone.get_current_timezone()
        value = value.astimezone(tz)
    return value.replace(tzinfo=None, microsecond=0)


def collect_protocols(
    games: Iterable[Any],
    *,
    journal: bool = True,
    scores: dict[int, dict[int, dict[str, Any]]] | None = None,
) -> list[GameProtocol]:
    """Protocols of the given games (objects or ids), in the given order.

    Two queries for any number of games (games joined with host and
    tournament table; then all their actions as plain rows — model instances
    for thousands of actions would cost more than the workbook), plus what
    ``tournaments.scoring`` needs for tournament games when ``scores`` is not
    given."""
    from django.utils import timezone

    from games.models import Game, GameAction

    ids = [g if isinstance(g, int) else int(g.pk) for g in games]
    by_id = {g.pk: g for g in Game.objects.filter(pk__in=ids).select_related("host", *_tournament_select_related())}
    rows = (
        GameAction.objects.filter(game_id__in=list(by_id))
        .order_by("game_id", "seq")
        .values_list("game_id", "seq", "payload", "created_at", "undone_at", "created_by__username")
    )
    tz = timezone.get_current_timezone()
    entries: dict[int, list[LogEntry]] = {}
    for game_id, seq, payload, created_at, undone_at, username in rows:
        entries.setdefault(game_id, []).append(
            LogEntry(seq=seq, payload=payload, created_at=_local_naive(created_at, tz), by=username or "", undone_at=_local_naive(undone_at, tz))
        )
    out = []
    for game_id in ids:
        game = by_id.get(game_id)
        if game is None:
            raise Game.DoesNotExist(f"game {game_id} does not exist")
        regulations = Regulations.from_dict(game.regulations) if game.regulations else None
        game_scores = scores.get(game_id) if scores is not None else _scores_for(game)
        out.append(prepare_protocol(header=_header_for(game), entries=entries.get(game_id, []), regulations=regulations, scores=game_scores, journal=journal))
    return out


def export_log(game: Any) -> dict[str, Any]:
    """The protocol log of FORMAT.md (what ``manage.py export_log`` prints)."""
    from games.services import game_export_log

    return game_export_log(game=game)


# --- styles ----------------------------------------------------------------------

_THIN = Side(style="thin", color="000000")
_MEDIUM = Side(style="medium", color="000000")
_BOX = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)
_GREY = PatternFill("solid", fgColor="E7E6E6")
_DARK = PatternFill("solid", fgColor="D0CECE")
_MARK = PatternFill("solid", fgColor="F4CCCC")
_BLACKROW = PatternFill("solid", fgColor="EDEDED")
_FONT = "Arial"

_CENTER = Alignment(horizontal="center", vertical="center", wrap_text=True)
_LEFT = Alignment(horizontal="left", vertical="center", wrap_text=True)
_LEFT_NOWRAP = Alignment(horizontal="left", vertical="center")

STYLE_SPECS: dict[str, dict[str, Any]] = {
    "plain": {},
    "title": {"font": Font(name=_FONT, size=14, bold=True), "alignment": Alignment(horizontal="center", vertical="center")},
    "label": {"font": Font(name=_FONT, size=9, bold=True), "alignment": _LEFT, "border": _BOX, "fill": _GREY},
    "value": {"font": Font(name=_FONT, size=10), "alignment": _LEFT, "border": _BOX},
    "value_bold": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _LEFT, "border": _BOX},
    "th": {"font": Font(name=_FONT, size=9, bold=True), "alignment": _CENTER, "border": _BOX, "fill": _GREY},
    "td": {"font": Font(name=_FONT, size=10), "alignment": _CENTER, "border": _BOX},
    "td_bold": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _CENTER, "border": _BOX},
    "td_left": {"font": Font(name=_FONT, size=10), "alignment": _LEFT, "border": _BOX},
    "td_black": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _CENTER, "border": _BOX, "fill": _BLACKROW},
    "td_mark": {"font": Font(name=_FONT, size=10, bold=True, color="9C0006"), "alignment": _CENTER, "border": _BOX, "fill": _MARK},
    "td_left_mark": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _LEFT, "border": _BOX, "fill": _MARK},
    "td_num": {"font": Font(name=_FONT, size=10), "alignment": _CENTER, "border": _BOX, "number_format": "0.##"},
    "day": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _LEFT, "border": _BOX, "fill": _DARK},
    "day_seat": {"font": Font(name=_FONT, size=10, bold=True), "alignment": _CENTER, "border": _BOX, "fill": _DARK},
    "section": {"font": Font(name=_FONT, size=11, bold=True), "alignment": _LEFT_NOWRAP},
    "time": {"font": Font(name=_FONT, size=9), "alignment": _CENTER, "border": _BOX, "number_format": "hh:mm:ss"},
    "small": {"font": Font(name=_FONT, size=8), "alignment": _LEFT, "border": _BOX},
    # The journal: one line per action, no wrapping (rows keep their height).
    "log": {"font": Font(name=_FONT, size=9), "alignment": _LEFT_NOWRAP, "border": _BOX},
    "log_wrap": {"font": Font(name=_FONT, size=9), "alignment": _LEFT, "border": _BOX},
    "log_c": {"font": Font(name=_FONT, size=9), "alignment": Alignment(horizontal="center", vertical="center"), "border": _BOX},
    "log_small": {"font": Font(name=_FONT, size=7, color="404040"), "alignment": _LEFT_NOWRAP, "border": _BOX},
    "undone": {"font": Font(name=_FONT, size=9, italic=True, strike=True, color="808080"), "alignment": _LEFT, "border": _BOX},
    "undone_data": {"font": Font(name=_FONT, size=7, italic=True, strike=True, color="808080"), "alignment": _LEFT_NOWRAP, "border": _BOX},
    "undone_c": {"font": Font(name=_FONT, size=9, italic=True, strike=True, color="808080"), "alignment": Alignment(horizontal="center", vertical="center"), "border": _BOX},
    "undone_time": {"font": Font(name=_FONT, size=9, italic=True, strike=True, color="808080"), "alignment": _CENTER, "border": _BOX, "number_format": "hh:mm:ss"},
    "undone_note": {"font": Font(name=_FONT, size=9, bold=True, color="9C0006"), "alignment": _CENTER, "border": _BOX},
    "note": {"font": Font(name=_FONT, size=8, italic=True), "alignment": Alignment(horizontal="left", vertical="top", wrap_text=True), "border": _BOX},
    "sign": {"font": Font(name=_FONT, size=10), "border": Border(bottom=_MEDIUM)},
}


class _SharedStyle(StyleArray):  # type: ignore[misc]
    """A StyleArray shared by many cells: its hash is computed once (openpyxl
    hashes a cell's style twice for every cell it writes)."""

    _hash: int

    def __hash__(self) -> int:
        return self._hash


def _shared(arr: StyleArray) -> _SharedStyle:
    shared = _SharedStyle(arr)
    shared._hash = hash(tuple(shared))  # the same hash as an equal StyleArray
    return shared


class _Styles:
    """One StyleArray per named style and workbook, shared by every cell."""

    def __init__(self, workbook: Workbook) -> None:
        self._workbook = workbook
        self._arrays: dict[str, Any] = {}

    def array(self, name: str) -> Any:
        arr = self._arrays.get(name)
        if arr is None:
            # A throwaway cell registers the font/border/fill once in the
            # workbook's style tables; its StyleArray then stands for the style.
            tmp = Cell(_DummySheet(self._workbook))
            for attr, value in STYLE_SPECS[name].items():
                setattr(tmp, attr, value)
            arr = _shared(tmp._style if tmp._style is not None else StyleArray())
            self._arrays[name] = arr
        return arr


class _DummySheet:
    def __init__(self, workbook: Workbook) -> None:
        self.parent = workbook


def _styles(workbook: Workbook) -> _Styles:
    styles: _Styles | None = getattr(workbook, "_mafia_export_styles", None)
    if styles is None:
        styles = _Styles(workbook)
        workbook._mafia_export_styles = styles
    return styles


# --- a sheet drawn on a grid, then streamed row by row -------------------------------


_new_cell = Cell.__new__
_ILLEGAL = dict.fromkeys((*range(0, 9), 11, 12, *range(14, 32)))


def _cell(ws: Any, row: int, column: int, value: Any, style: Any) -> Cell:
    """A Cell built without openpyxl's per-value type guessing (the hot path of
    a 100-game workbook). Strings are always text: a nickname starting with
    "=" must never become a formula."""
    cell = _new_cell(Cell)
    cell.parent = ws
    cell.row = row
    cell.column = column
    cell._hyperlink = None
    cell._comment = None
    cell._style = style
    if value is None:
        cell.data_type = "n"
    elif isinstance(value, str):
        value = value.translate(_ILLEGAL)
        cell.data_type = "s"
    elif isinstance(value, bool):
        cell.data_type = "b"
    elif isinstance(value, int | float):
        cell.data_type = "n"
    elif isinstance(value, datetime | date):
        cell.data_type = "d"
    else:
        value = str(value)
        cell.data_type = "s"
    cell._value = value
    return cell


class _Grid:
    """Cells placed anywhere (the protocol has blocks side by side), then
    written in row order, which write-only mode requires."""

    def __init__(self) -> None:
        self.cells: dict[int, dict[int, tuple[Any, str | None]]] = {}
        self.merges: list[str] = []
        self.heights: dict[int, float] = {}
        self.max_row = 0
        self.ncols = 0

    def put(self, row: int, col: int, value: Any, style: str | None = None) -> None:
        self.cells.setdefault(row, {})[col] = (value, style)
        if row > self.max_row:
            self.max_row = row

    def height(self, row: int, points: float) -> None:
        """The left and right blocks share rows: a row is as tall as its tallest need."""
        self.heights[row] = max(points, self.heights.get(row, 0))

    def merge(self, row: int, col: int, row2: int, col2: int, value: Any, style: str | None = None) -> None:
        """Value in the top-left cell; the style on every cell so the borders show."""
        for r in range(row, row2 + 1):
            for c in range(col, col2 + 1):
                self.put(r, c, value if (r == row and c == col) else None, style)
        if row2 > row or col2 > col:
            self.merges.append(f"{get_column_letter(col)}{row}:{get_column_letter(col2)}{row2}")

    def write(self, ws: Any, styles: _Styles) -> None:
        for r, height in self.heights.items():
            ws.row_dimensions[r].height = height
        # The writer only iterates the merges and makes a MergeCell of each
        # ref; plain refs spare a CellRange per merge (adding them one by one
        # to the MultiCellRange is even quadratic).
        ws.merged_cells = list(self.merges)
        empty: list[Any] = []
        for r in range(1, self.max_row + 1):
            row = self.cells.get(r)
            if not row:
                ws.append(empty)
                continue
            ws.append([_cell(ws, r, c, row[c][0], styles.array(row[c][1] or "plain")) for c in sorted(row)])


def _styled_row(ws: Any, styles: _Styles, values: Sequence[Any], style: str | Sequence[str]) -> list[Any]:
    if isinstance(style, str):
        arr = styles.array(style)
        return [_cell(ws, 1, i, value, arr) for i, value in enumerate(values, 1)]
    return [_cell(ws, 1, i, value, styles.array(style[i - 1])) for i, value in enumerate(values, 1)]


class _Rows:
    """Appends styled rows to a write-only sheet and counts them, so that a row
    whose wrapped text needs several lines gets its height before it is
    written (rows do not grow by themselves when the file is opened)."""

    def __init__(self, ws: Any, styles: _Styles, widths: Sequence[float]) -> None:
        self.ws, self.styles, self.widths, self.count = ws, styles, list(widths), 0

    def add(self, values: Sequence[Any], style: str | Sequence[str] = "td", wrap: Sequence[int] = ()) -> None:
        self.count += 1
        lines = 1
        for i in wrap:
            value = values[i] if i < len(values) else None
            if isinstance(value, str) and value:
                per_line = max(1, int(self.widths[i] * 1.05))  # ≈ characters of 9–10 pt per width unit
                lines = max(lines, -(-len(value) // per_line))
        if lines > 1:
            self.ws.row_dimensions[self.count].height = 12.5 * lines
        self.ws.append(_styled_row(self.ws, self.styles, values, style) if values else [])


def _cells_to_row(cells: Sequence[Any], row_idx: int) -> Iterable[Any]:
    """Stands in for WriteOnlyWorksheet._values_to_row: our rows are ready
    Cell objects with their column and shared style, so they only need the row
    number (openpyxl's version tries each value as a plain value first)."""
    for cell in cells:
        cell.row = row_idx
        yield cell


def _new_sheet(workbook: Workbook, title: str) -> Any:
    ws = workbook.create_sheet(title=title)
    if hasattr(ws, "_values_to_row"):  # write-only worksheets stream rows through it
        ws._values_to_row = _cells_to_row
    return ws


def _page_setup(ws: Any, *, one_page: bool = True, title_rows: str | None = None) -> None:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = 9  # A4
    ws.page_setup.fitToWidth = 1
    # The journal of a long game is many rows: it keeps its width on one page
    # and runs over several pages with the heading repeated, rather than being
    # shrunk to an unreadable single page.
    ws.page_setup.fitToHeight = 1 if one_page else 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.horizontalCentered = True
    ws.page_margins = PageMargins(left=0.4, right=0.4, top=0.5, bottom=0.5, header=0.2, footer=0.2)
    if title_rows:
        ws.print_title_rows = title_rows


def _widths(ws: Any, widths: Sequence[float]) -> None:
    for i, w in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(i)].width = w


# --- helpers on the record ------------------------------------------------------------


def _record(state: GameState, name: str) -> list[dict[str, Any]]:
    rec = state.record
    value = rec.get(name) if hasattr(rec, "get") else getattr(rec, name, None)
    return list(value or [])


def _seat_name(state: GameState, seat: Any) -> str:
    players = state.players or []
    if isinstance(seat, int) and 1 <= seat <= len(players):
        return f"{seat} {players[seat - 1]}"
    return "" if seat is None else str(seat)


def _phase_label(lang: str, day: Any, phase: Any) -> str:
    L = LABELS[lang]
    if phase == "day":
        return f"{L['day']} {day}"
    if phase == "night":
        return f"{L['night']} {day}"
    return ""


def _short_phase(lang: str, day: Any, phase: Any) -> str:
    letter = PHASE_LETTERS[lang].get(phase or "", "")
    return f"{letter}{day}" if letter and day is not None else ""


def _int_keys(mapping: Any) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for k, v in (mapping or {}).items():
        try:
            out[int(k)] = v
        except (TypeError, ValueError):
            continue
    return out


def _reason_text(reason: str, lang: str) -> str:
    if not reason:
        return ""
    try:
        from games.rules.catalogue import PENALTY_REASONS
    except ImportError:
        return reason
    for item in PENALTY_REASONS:
        if item.get("code") == reason:
            return str(item.get("text_en" if lang == "en" else "text_ru") or reason)
    return reason


def _winner_text(state: GameState, lang: str) -> str:
    L = LABELS[lang]
    status = state.status
    if status == "annulled":
        return L["annulled"]
    if status != "finished" and not state.winner:
        return L["not_over"]
    text = {"red": L["winner_red"], "black": L["winner_black"], "draw": L["winner_draw"]}.get(state.winner or "", L["not_over"])
    if state.ppk:
        team = L["team_red"] if state.ppk == "red" else L["team_black"]
        text += " — " + L["ppk_note"].format(team=team)
    return text


def _points(proto: GameProtocol, seat: int) -> tuple[Any, Any, Any]:
    if proto.scores:
        row = proto.scores.get(seat) or {}
        # Extra points and Ci are left blank when there are none, as on paper.
        return row.get("points"), row.get("extra") or None, row.get("ci") or None
    state = proto.state
    # Outside a tournament: the result itself (win 1, loss 0); nothing before the end.
    if state.status != "finished" or state.winner not in ("red", "black", "draw"):
        return None, None, None
    return (1 if state.team_of(seat) == state.winner else 0), None, None


def _best_move_verdict(bm: dict[str, Any] | None, lang: str) -> str:
    L = LABELS[lang]
    if not bm:
        return ""
    if bm.get("passed"):
        return L["bm_pass"]
    if bm.get("accepted"):
        return L["bm_accepted"].format(n=int(bm.get("blacks") or 0))
    return L["bm_not_accepted"]


def _left_by_seat(state: GameState) -> dict[int, dict[str, Any]]:
    return {int(e["seat"]): e for e in state.left}


@dataclass
class _Night:
    night: int
    shot: dict[str, Any] | None = None
    don: dict[str, Any] | None = None
    sheriff: dict[str, Any] | None = None
    best_move: dict[str, Any] | None = None


def _nights(state: GameState) -> list[_Night]:
    nights: dict[int, _Night] = {}
    last = 0
    if state.day is not None and state.status != "setup":
        last = state.day if state.phase == "night" else state.day - 1
    for n in range(1, last + 1):
        nights[n] = _Night(n)
    for e in _record(state, "shots"):
        nights.setdefault(e["night"], _Night(e["night"])).shot = e
    for e in _record(state, "checks"):
        night = nights.setdefault(e["night"], _Night(e["night"]))
        if e.get("by") == "don":
            night.don = e
        else:
            night.sheriff = e
    for e in _record(state, "best_moves"):
        nights.setdefault(e["night"], _Night(e["night"])).best_move = e
    return [nights[k] for k in sorted(nights) if k >= 1]


def _shot_outcome(state: GameState, night: _Night, lang: str) -> str:
    L = LABELS[lang]
    if night.shot is None:
        return ""
    victim = night.shot.get("victim")
    if victim is None:
        return L["miss"]
    return L["killed"].format(seat=_seat_name(state, victim))


def _check_answer(check: dict[str, Any] | None, lang: str) -> str:
    L = LABELS[lang]
    if check is None:
        return ""
    result = check.get("result")
    if check.get("by") == "don":
        return L["is_sheriff"] if result else L["not_sheriff"]
    return L["black"] if result == "black" else L["red"]


def _best_move_text(state: GameState, bm: dict[str, Any] | None, lang: str) -> str:
    if not bm:
        return ""
    seats = ", ".join(str(s) for s in bm.get("seats") or [])
    verdict = _best_move_verdict(bm, lang)
    head = f"{bm.get('seat')}"
    return f"{head}: {seats} — {verdict}" if seats else f"{head}: {verdict}"


def _black_seats(state: GameState) -> list[int]:
    roles = _int_keys(state.roles)
    don = [s for s, r in roles.items() if r == "don"]
    mafia = sorted(s for s, r in roles.items() if r == "mafia")
    return don + mafia


# --- the «Протокол» sheet ----------------------------------------------------------------

# Columns: A № | B player | C role | D–G fouls | H removal | I left | J points |
# K extra | L Ci | M gap | N vote labels | O… one column per candidate (at
# least _MIN_CANDIDATE_COLS; together at least _CANDIDATES_WIDTH wide, so a
# Day's notes fit beside its label — fewer, wider columns are fewer cells).
_PROTOCOL_WIDTHS = [4.5, 20, 5.5, 3.6, 3.6, 3.6, 3.6, 5.5, 14, 7, 6, 6, 2, 15]
_CANDIDATE_WIDTH = 5
_CANDIDATES_WIDTH = 30
_MIN_CANDIDATE_COLS = 4
_VOTE_LABEL_COL = 14
_FIRST_CAND_COL = 15


def _candidate_width(ncols: int) -> float:
    return max(_CANDIDATE_WIDTH, round(_CANDIDATES_WIDTH / max(ncols, 1), 1))


@dataclass
class _DayBlock:
    day: int
    candidates: list[int]
    nominators: dict[int, int]
    rounds: list[dict[str, Any]]
    leaving: list[int]
    notes: list[str]


def _day_blocks(state: GameState) -> list[_DayBlock]:
    if state.status == "setup" or not state.day:
        return []
    blocks = {d: _DayBlock(d, [], {}, [], [], []) for d in range(1, int(state.day) + 1)}
    for e in _record(state, "nominations"):
        block = blocks.get(e["day"])
        if block is not None and e.get("result") != "supported" and e["target"] not in block.candidates:
            block.candidates.append(e["target"])
            block.nominators[e["target"]] = e["by"]
    for e in _record(state, "votes"):
        block = blocks.get(e["day"])
        if block is None:
            continue
        block.rounds.append(e)
        if e.get("outcome") == "night":
            block.notes.append("note_split")
        elif e.get("outcome") == "no_elimination":
            block.notes.append("note_no_elimination" if e.get("kind") == "lift" else "note_v11")
    for e in _record(state, "events"):
        block = blocks.get(e.get("day"))  # type: ignore[arg-type]
        key = f"note_{e.get('kind')}"
        if block is None or key not in LABELS["ru"] or key in block.notes or key == "note_draw":
            continue
        if key == "note_no_nominees" and not block.candidates:
            continue  # the block already says «нет выставленных»
        block.notes.append(key)
    for e in _record(state, "penalties"):
        # F7–F10: the removal that cancels a Day's vote, noted on that Day even
        # before the vote would have been held.
        block = blocks.get(e.get("cancels_vote_day"))  # type: ignore[arg-type]
        if block is not None and "note_vote_cancelled" not in block.notes:
            block.notes.append("note_vote_cancelled")
    for e in state.left:
        if e.get("phase") == "day" and e.get("how") in ("vote", "lift_vote"):
            block = blocks.get(e["day"])
            if block is not None:
                block.leaving.append(int(e["seat"]))
    return [blocks[d] for d in sorted(blocks)]


def _draw_protocol(proto: GameProtocol, lang: str) -> _Grid:
    L = LABELS[lang]
    state = proto.state
    h = proto.header
    g = _Grid()
    blocks = _day_blocks(state)
    g.ncols = max([_MIN_CANDIDATE_COLS, *(len(b.candidates) for b in blocks)])
    last = _FIRST_CAND_COL + g.ncols - 1
    g.merge(1, 1, 1, 12, L["title"], "title")
    g.height(1, 24)
    g.merge(1, _VOTE_LABEL_COL, 1, last, f"{L['game']} #{h.game_id}" + (f" — {h.title}" if h.title else "") if h.game_id else h.title, "section")
    # Header: label / value pairs on three rows.
    g.merge(2, 1, 2, 2, L["tournament"], "label")
    g.merge(2, 3, 2, 8, h.tournament, "value_bold")
    g.merge(2, 9, 2, 9, L["date"], "label")
    g.merge(2, 10, 2, 12, h.date.strftime("%d.%m.%Y") if h.date else "", "value")
    g.merge(3, 1, 3, 2, L["stage"], "label")
    g.merge(3, 3, 3, 8, h.stage, "value")
    g.put(3, 9, L["table_no"], "label")
    g.put(3, 10, h.table_no, "td_bold")
    g.put(3, 11, L["game_no"], "label")
    g.put(3, 12, h.game_no, "td_bold")
    g.merge(4, 1, 4, 2, L["host"], "label")
    g.merge(4, 3, 4, 12, h.host, "value")
    # Players.
    top = 6
    g.merge(top, 1, top + 1, 1, L["seat"], "th")
    g.merge(top, 2, top + 1, 2, L["player"], "th")
    g.merge(top, 3, top + 1, 3, L["role"], "th")
    g.merge(top, 4, top, 7, L["fouls"], "th")
    for i in range(4):
        g.put(top + 1, 4 + i, i + 1, "th")
    for col, key in ((8, "removed"), (9, "left"), (10, "points"), (11, "extra"), (12, "ci")):
        g.merge(top, col, top + 1, col, L[key], "th")
    roles = _int_keys(state.roles)
    left = _left_by_seat(state)
    fouls = _int_keys(state.fouls)
    players = state.players or []
    for seat in range(1, 11):
        r = top + 1 + seat
        g.height(r, 16)
        role = roles.get(seat, "civilian")
        black = role in ("don", "mafia")
        g.put(r, 1, seat, "td_bold")
        g.put(r, 2, players[seat - 1] if seat <= len(players) else "", "td_left")
        g.put(r, 3, ROLE_LETTERS[lang].get(role, ""), "td_black" if black else "td_bold")
        n = int(fouls.get(seat, 0))
        for i in range(4):
            g.put(r, 4 + i, FOUL_MARK if i < n else None, "td_mark" if i < n else "td")
        how = (left.get(seat) or {}).get("how", "")
        g.put(r, 8, REMOVAL_MARK[lang] if how in REMOVAL_HOWS else None, "td_mark" if how in REMOVAL_HOWS else "td")
        if seat in left:
            e = left[seat]
            g.put(r, 9, f"{_short_phase(lang, e.get('day'), e.get('phase'))} {HOW_LEFT[lang].get(how, how)}".strip(), "td_left")
        else:
            g.put(r, 9, None, "td_left")
        points, extra, ci = _points(proto, seat)
        g.put(r, 10, points, "td_num")
        g.put(r, 11, extra, "td_num")
        g.put(r, 12, ci, "td_num")
    r = top + 13
    # Result.
    g.merge(r, 1, r, 2, L["result"], "label")
    g.merge(r, 3, r, 12, _winner_text(state, lang), "value_bold")
    g.height(r, 18)
    # Best move: the player's seat, up to three seats, the verdict.
    r += 2
    bms = _record(state, "best_moves")
    bm = bms[-1] if bms else None
    g.merge(r, 1, r + 1, 2, L["best_move"], "label")
    g.put(r, 3, L["bm_player"], "th")
    g.merge(r, 4, r, 6, L["bm_seats"], "th")
    g.merge(r, 7, r, 12, L["bm_verdict"], "th")
    seats = list((bm or {}).get("seats") or [])
    g.put(r + 1, 3, (bm or {}).get("seat"), "td_bold")
    for i in range(3):
        g.put(r + 1, 4 + i, seats[i] if i < len(seats) else None, "td_bold")
    g.merge(r + 1, 7, r + 1, 12, _best_move_verdict(bm, lang), "td_left")
    # Nights in brief (the «Ночи» sheet has the detail).
    r += 3
    nights = _nights(state)
    g.merge(r, 1, r, 2, L["night"], "th")
    g.merge(r, 3, r, 6, L["shot"], "th")
    g.merge(r, 7, r, 9, L["don_check"], "th")
    g.merge(r, 10, r, 12, L["sheriff_check"], "th")
    for night in nights or [_Night(0)]:
        r += 1
        g.merge(r, 1, r, 2, f"{L['night']} {night.night}" if night.night else "", "td_left")
        g.merge(r, 3, r, 6, _shot_outcome(state, night, lang), "td_left")
        don = f"{_seat_name(state, night.don['target'])} — {_check_answer(night.don, lang)}" if night.don else ""
        sheriff = f"{_seat_name(state, night.sheriff['target'])} — {_check_answer(night.sheriff, lang)}" if night.sheriff else ""
        g.merge(r, 7, r, 9, don, "td_left")
        g.merge(r, 10, r, 12, sheriff, "td_left")
    # Protest and the host's signature.
    r += 2
    g.merge(r, 1, r + 1, 2, L["protest"], "label")
    g.merge(r, 3, r + 1, 12, None, "value")
    r += 3
    g.merge(r, 1, r, 2, L["host"], "label")
    g.merge(r, 3, r, 7, h.host, "value_bold")
    g.merge(r, 8, r, 9, L["signature"], "label")
    g.merge(r, 10, r, 12, None, "sign")
    if proto.error:
        r += 2
        g.merge(r, 1, r, 12, L["replay_error"].format(error=proto.error), "small")
    _draw_votes(g, state, blocks, lang, top, last)
    return g


def _draw_votes(g: _Grid, state: GameState, blocks: list[_DayBlock], lang: str, top: int, last: int) -> None:
    L = LABELS[lang]
    lc, fc = _VOTE_LABEL_COL, _FIRST_CAND_COL
    g.merge(top, lc, top, last, L["votes_title"], "th")
    r = top
    for block in blocks:
        r += 1
        g.put(r, lc, f"{L['day']} {block.day}", "day")
        if not block.candidates:
            g.merge(r, fc, r, last, L["no_candidates"], "day")
        else:
            col_of = {seat: fc + i for i, seat in enumerate(block.candidates[: last - fc + 1])}
            for c in range(fc, last + 1):
                g.put(r, c, None, "day_seat")
            for seat, c in col_of.items():
                g.put(r, c, seat, "td_mark" if seat in block.leaving else "day_seat")
            r += 1
            g.put(r, lc, L["nominated_by"], "label")
            for c in range(fc, last + 1):
                g.put(r, c, None, "td")
            for seat, c in col_of.items():
                g.put(r, c, block.nominators.get(seat), "td")
            revotes = 0
            for vote in block.rounds:
                r += 1
                kind = vote.get("kind")
                if kind == "lift":
                    yes = len(vote.get("yes") or [])
                    voters = yes + len(vote.get("no") or [])
                    carried = vote.get("outcome") == "leave"
                    g.put(r, lc, L["lift"], "label")
                    g.put(r, fc, yes, "td_bold")
                    g.merge(r, fc + 1, r, last, (L["lift_yes"] if carried else L["lift_no"]).format(n=voters), "td_left")
                    continue
                if kind == "revote":
                    revotes += 1
                    label = L["revote"] + (f" {revotes}" if revotes > 1 else "")
                else:
                    label = L["vote"]
                g.put(r, lc, label, "label")
                totals = _int_keys(vote.get("totals"))
                if not totals:  # count the ballots if the engine gave no totals
                    for cand in _int_keys(vote.get("ballots")).values():
                        totals[int(cand)] = totals.get(int(cand), 0) + 1
                cands = {int(c) for c in vote.get("candidates") or totals}
                for c in range(fc, last + 1):
                    g.put(r, c, None, "td")
                for seat, c in col_of.items():
                    if seat in cands:
                        g.put(r, c, int(totals.get(seat, 0)), "td_bold")
        r += 1
        g.put(r, lc, L["left_by_vote"], "label")
        # The Day still being played has no outcome yet.
        in_progress = block.day == state.day and state.phase == "day" and state.status == "running" and not block.leaving
        names = ", ".join(_seat_name(state, s) for s in block.leaving) or ("—" if in_progress else L["nobody"])
        g.merge(r, fc, r, last, names, "td_left_mark" if block.leaving else "td_left")
        if block.notes:
            r += 1
            text = "; ".join(L[n] for n in block.notes)
            g.merge(r, lc, r, last, text, "note")
            # Rows do not grow by themselves when the file is opened: give a
            # long note the lines it needs (≈ 1.3 characters of 8 pt per width unit).
            room = (15 + _candidate_width(last - fc + 1) * (last - fc + 1)) * 1.3
            g.height(r, 11.5 * max(1, -(-len(text) // int(room))))


def write_protocol_sheet(workbook: Workbook, proto: GameProtocol, lang: str = "ru", title: str | None = None) -> Any:
    lang = normalize_lang(lang)
    ws = _new_sheet(workbook, title or LABELS[lang]["sheet_protocol"])
    grid = _draw_protocol(proto, lang)
    _widths(ws, [*_PROTOCOL_WIDTHS, *([_candidate_width(grid.ncols)] * grid.ncols)])
    ws.freeze_panes = "A6"
    _page_setup(ws)
    grid.write(ws, _styles(workbook))
    return ws


# --- «Ночи» -------------------------------------------------------------------------------


def write_nights_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_nights"])
    head = [L["night"], L["don"], L["mafia"], L["mafia"], L["outcome"], L["don_check"], L["answer"], L["sheriff_check"], L["answer"], L["best_move"]]
    widths = [8, 10, 10, 10, 18, 18, 12, 18, 12, 28]
    if many:
        head, widths = [L["game"], *head], [8, *widths]
    _widths(ws, widths)
    ws.freeze_panes = "C2" if many else "B2"
    _page_setup(ws, one_page=not many, title_rows="1:1")
    rows = _Rows(ws, _styles(workbook), widths)
    ws.row_dimensions[1].height = 28
    rows.add(head, "th")
    row_styles = ["td_bold", "td", "td", "td", "td_left", "td_left", "td", "td_left", "td", "td_left"]
    if many:
        row_styles = ["td_bold", *row_styles]
    for proto in protos:
        state = proto.state
        blacks = _black_seats(state)
        for night in _nights(state):
            shots = _int_keys((night.shot or {}).get("by"))
            black_cells = []
            for i in range(3):
                seat = blacks[i] if i < len(blacks) else None
                if seat is None or night.shot is None:
                    black_cells.append("")
                elif seat in shots:
                    target = shots[seat]
                    black_cells.append(f"{seat} → {target if target is not None else '—'}")
                else:
                    black_cells.append(f"{seat} → —" if _at_table_in_night(state, seat, night.night) else "")
            values = [
                f"{L['night']} {night.night}",
                *black_cells,
                _shot_outcome(state, night, lang),
                _seat_name(state, night.don["target"]) if night.don else "",
                _check_answer(night.don, lang),
                _seat_name(state, night.sheriff["target"]) if night.sheriff else "",
                _check_answer(night.sheriff, lang),
                _best_move_text(state, night.best_move, lang),
            ]
            if many:
                values = [f"#{proto.header.game_id}", *values]
            rows.add(values, row_styles, wrap=range(len(values)))
    return ws


def _at_table_in_night(state: GameState, seat: int, night: int) -> bool:
    for e in state.left:
        if int(e["seat"]) != seat:
            continue
        day, phase = e.get("day") or 0, e.get("phase")
        # Night k follows Day k; whoever left on Day k or earlier was gone.
        return not (day < night or (day == night and phase == "day"))
    return True


# --- «Дисциплина» -----------------------------------------------------------------------


def _penalty_text(e: dict[str, Any], lang: str) -> str:
    L = LABELS[lang]
    kind = e.get("kind", "")
    key = f"p_{kind}"
    if key not in L:
        return str(kind)
    text = L[key].format(n=e.get("count") or 1)
    if kind == "ppk" and e.get("team"):
        text += f" ({L['team_red'] if e['team'] == 'red' else L['team_black']})"
    return text


def _penalty_consequence(e: dict[str, Any], lang: str) -> str:
    L = LABELS[lang]
    parts = []
    if e.get("removed"):
        how = e.get("how") or ""
        parts.append(L["removed_how"].format(how=HOW_LEFT[lang].get(how, how)))
    if e.get("cancels_vote_day"):
        parts.append(L["cancels_vote"].format(day=e["cancels_vote_day"]))
    return "; ".join(parts)


def write_discipline_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_discipline"])
    widths = [10, 11, 5, 18, 22, 44, 30]
    if many:
        widths = [8, *widths]
    _widths(ws, widths)
    _page_setup(ws, one_page=not many)
    out = _Rows(ws, _styles(workbook), widths)
    lead = [L["game"]] if many else []

    def game_cell(proto: GameProtocol) -> list[Any]:
        return [f"#{proto.header.game_id}"] if many else []

    def section(title: str, head: list[str], rows: list[tuple[list[Any], list[str]]]) -> None:
        out.add([title], "section")
        out.add([*lead, *head], "th")
        if not rows:
            out.add([*([""] if many else []), L["none"]], "td_left")
        for values, style in rows:
            out.add(values, style, wrap=range(len(values)))
        out.add([])

    penalties: list[tuple[list[Any], list[str]]] = []
    winks: list[tuple[list[Any], list[str]]] = []
    pauses: list[tuple[list[Any], list[str]]] = []
    base = ["td_bold"] if many else []
    for proto in protos:
        state = proto.state
        players = state.players or []
        for e in _record(state, "penalties"):
            entry = proto.entry_for_index(e.get("index"))
            seat = e.get("seat")
            penalties.append(
                (
                    [
                        *game_cell(proto),
                        entry.created_at if entry else None,
                        _phase_label(lang, e.get("day"), e.get("phase")),
                        seat,
                        players[seat - 1] if isinstance(seat, int) and 1 <= seat <= len(players) else "",
                        _penalty_text(e, lang),
                        _reason_text(str(e.get("reason") or ""), lang),
                        _penalty_consequence(e, lang),
                    ],
                    [*base, "time", "td", "td_bold", "td_left", "td_left", "td_left", "td_left"],
                )
            )
        for e in _record(state, "winks"):
            entry = proto.entry_for_index(e.get("index"))
            winks.append(
                (
                    [*game_cell(proto), entry.created_at if entry else None, _phase_label(lang, e.get("day"), e.get("phase")), e.get("by"), _seat_name(state, e.get("by")), _seat_name(state, e.get("target"))],
                    [*base, "time", "td", "td_bold", "td_left", "td_left"],
                )
            )
        for e in _record(state, "tech_pauses"):
            entry = proto.entry_for_index(e.get("index"))
            seat = e.get("seat")
            pauses.append(
                (
                    [*game_cell(proto), entry.created_at if entry else None, _phase_label(lang, e.get("day"), e.get("phase")), seat, players[seat - 1] if isinstance(seat, int) and 1 <= seat <= len(players) else ""],
                    [*base, "time", "td", "td_bold", "td_left"],
                )
            )
    section(L["penalties"], [L["time"], L["phase"], L["seat"], L["player"], L["penalty"], L["reason"], L["consequence"]], penalties)
    section(L["winks"], [L["time"], L["phase"], L["seat"], L["wink_by"], L["wink_to"]], winks)
    section(L["tech_pauses"], [L["time"], L["phase"], L["seat"], L["player"]], pauses)
    return ws


# --- «Журнал» ----------------------------------------------------------------------------


def _seats_text(seats: Any) -> str:
    return ", ".join(str(s) for s in seats or []) or "—"


def _by_seat(mapping: Any) -> list[tuple[Any, Any]]:
    """A payload's seat-keyed object in seat order: PostgreSQL's jsonb does not
    keep the order the keys were written in, SQLite does."""
    items = list((mapping or {}).items())
    return sorted(items, key=lambda kv: (0, int(kv[0])) if str(kv[0]).isdigit() else (1, str(kv[0])))


def describe_action(payload: dict[str, Any], lang: str = "ru", context: tuple[Any, Any, Any, Any] | None = None, state: GameState | None = None) -> str:
    """A readable line for one host action (the «Журнал» sheet)."""
    lang = normalize_lang(lang)
    ru = lang == "ru"
    do = payload.get("do", "")
    seat = payload.get("seat")
    reason = _reason_text(str(payload.get("reason") or ""), lang)
    tail = f" — {reason}" if reason else ""
    if do == "seat":
        players = payload.get("players") or []
        return ("Рассадка: " if ru else "Seating: ") + ", ".join(f"{i} {p}" for i, p in enumerate(players, 1))
    if do == "roles":
        letters = ROLE_LETTERS[lang]
        return ("Роли: " if ru else "Roles: ") + f"{letters['sheriff']} {payload.get('sheriff')}, {letters['don']} {payload.get('don')}, {letters['mafia']} {_seats_text(payload.get('mafia'))}"
    if do == "start":
        return "Начало игры: «В городе ночь»" if ru else "Game started: night falls"
    if do == "next":
        step = (context or (None, None, None, None))[2]
        speaker = (context or (None, None, None, None))[3]
        name = STEP_NAMES[lang].get(step or "", step or "")
        text = ("Далее: конец шага «" if ru else "Next: end of «") + f"{name}" + (f" {speaker}" if speaker else "") + "»"
        if step == "mafia_shot":
            text += " — промах (никто не назван)" if ru else " — miss (nobody named)"
        elif step in ("don_check", "sheriff_check"):
            text += " — без проверки" if ru else " — no check"
        elif step == "best_move":
            text += " — не оставлен" if ru else " — none left"
        return text
    if do == "nominate":
        return ("Выставление: " if ru else "Nomination: ") + f"{payload.get('by')} → {payload.get('target')}"
    if do == "votes":
        parts = [f"{c}: {_seats_text(v)}" for c, v in _by_seat(payload.get("for"))]
        return ("Голосование — " if ru else "Vote — ") + ("; ".join(parts) or ("никто не голосовал" if ru else "nobody voted"))
    if do == "lift_vote":
        return ("Подъём — за: " if ru else "Lift vote — yes: ") + _seats_text(payload.get("yes"))
    if do == "shots":
        parts = [f"{b} → {t if t is not None else '—'}" for b, t in _by_seat(payload.get("by"))]
        return ("Выстрелы: " if ru else "Shots: ") + ("; ".join(parts) or "—")
    if do in ("don_check", "sheriff_check"):
        who = ("Дон" if do == "don_check" else "Шериф") if ru else ("Don" if do == "don_check" else "Sheriff")
        return f"{who} {'проверил' if ru else 'checked'} {payload.get('target')}"
    if do == "best_move":
        if payload.get("pass"):
            return "Лучший ход: пас" if ru else "Best move: pass"
        if payload.get("accepted") is False:
            return "Лучший ход: не принят" if ru else "Best move: not accepted"
        return ("Лучший ход: " if ru else "Best move: ") + _seats_text(payload.get("seats"))
    if do in ("foul", "warning", "grey_card", "disqualify", "remove"):
        name = LABELS[lang][f"p_{do}"].split(" (")[0]
        return f"{name}: {seat}{tail}"
    if do == "ppk":
        team = payload.get("team")
        team_text = LABELS[lang]["team_red" if team == "red" else "team_black"]
        return f"ППК: {team_text}" + (f" ({seat})" if seat else "") + tail
    if do == "wink":
        return ("Подмигивание: " if ru else "Wink: ") + f"{payload.get('by')} → {payload.get('target')}"
    if do == "tech_pause":
        return ("Техническая пауза: " if ru else "Technical pause: ") + f"{seat}"
    if do == "annul":
        return ("Игра аннулирована" if ru else "Game annulled") + tail
    return str(do)


def _record_notes(proto: GameProtocol, lang: str) -> dict[int, str]:
    """What the engine answered, per action seq (check results, kills, outcomes)."""
    L = LABELS[lang]
    state = proto.state
    notes: dict[int, list[str]] = {}

    def note(index: Any, text: str) -> None:
        if isinstance(index, int) and 0 <= index < len(proto.seq_by_index) and text:
            notes.setdefault(proto.seq_by_index[index], []).append(text)

    for e in _record(state, "checks"):
        note(e.get("index"), _check_answer(e, lang))
    for e in _record(state, "shots"):
        victim = e.get("victim")
        note(e.get("index"), L["miss"] if victim is None else L["killed"].format(seat=victim))
    for e in _record(state, "nominations"):
        if e.get("result") == "supported":
            note(e.get("index"), "поддерживается" if lang == "ru" else "supported")
    for e in _record(state, "best_moves"):
        note(e.get("index"), _best_move_verdict(e, lang))
    for e in _record(state, "penalties"):
        note(e.get("index"), _penalty_consequence(e, lang))
    for e in _record(state, "votes"):
        leaving = e.get("leaving") or []
        if leaving:
            note(e.get("index"), (LABELS[lang]["left_by_vote"] + ": ") + _seats_text(leaving))
    return {seq: "; ".join(parts) for seq, parts in notes.items()}


def _canonical_payload(value: Any) -> Any:
    """`do` first, then the other keys in order (seat numbers as numbers), at
    every depth: PostgreSQL's jsonb keeps no key order (SQLite does), and the
    same log must give the same workbook on both."""
    if isinstance(value, dict):
        order = sorted(value, key=lambda k: (k != "do", (0, int(k), "") if str(k).isdigit() else (1, 0, str(k))))
        return {k: _canonical_payload(value[k]) for k in order}
    if isinstance(value, list):
        return [_canonical_payload(v) for v in value]
    return value


def write_log_sheet(workbook: Workbook, protos: Sequence[GameProtocol], lang: str = "ru") -> Any:
    lang = normalize_lang(lang)
    L = LABELS[lang]
    many = len(protos) > 1
    ws = _new_sheet(workbook, L["sheet_log"])
    head = [L["action_no"], L["time"], L["phase"], L["action"], L["outcome"], L["by"], L["undone"], L["data"]]
    widths = [5, 9, 26, 52, 24, 10, 16, 60]
    if many:
        head, widths = [L["game"], *head], [8, *widths]
    _widths(ws, widths)
    ws.freeze_panes = "A2"
    _page_setup(ws, one_page=False, title_rows="1:1")
    rows = _Rows(ws, _styles(workbook), widths)
    rows.add(head, "th")
    live = ["log_c", "time", "log", "log_wrap", "log_wrap", "log_c", "log_c", "log_small"]
    wrap = (3, 4) if not many else (4, 5)
    dead = ["undone_c", "undone_time", "undone_c", "undone", "undone", "undone_c", "undone_note", "undone_data"]
    if many:
        live, dead = ["td_bold", *live], ["td_bold", *dead]
    for proto in protos:
        notes = _record_notes(proto, lang)
        for entry in proto.entries:
            ctx = proto.contexts.get(entry.seq)
            phase = ""
            if ctx is not None:
                phase = _phase_label(lang, ctx[0], ctx[1])
                step = STEP_NAMES[lang].get(ctx[2] or "", "")
                if phase and step:
                    phase = f"{phase}, {step}"
            values = [
                entry.seq,
                entry.created_at,
                phase,
                describe_action(entry.payload, lang, ctx, proto.state),
                "" if entry.undone else notes.get(entry.seq, ""),
                entry.by,
                L["undone_at"].format(time=entry.undone_at.strftime("%H:%M:%S")) if entry.undone_at else "",
                json.dumps(_canonical_payload(entry.payload), ensure_ascii=False, separators=(",", ":")),
            ]
            if many:
                values = [f"#{proto.header.game_id}", *values]
            rows.add(values, dead if entry.undone else live, wrap=wrap)
    # The raw JSON column is for machines: it stays in the sheet, off the print.
    ws.print_area = f"A1:{get_column_letter(len(widths) - 1)}{max(rows.count, 1)}"
    return ws


# --- workbooks ----------------------------------------------------------------------------


def new_workbook() -> Workbook:
    return Workbook(write_only=True)


def write_game_protocol_sheets(
    workbook: Workbook,
    games: Sequence[Any],
    lang: str = "ru",
    *,
    details: bool = True,
    titles: Sequence[str] | None = None,
) -> list[Any]:
    """Add the protocol sheets of ``games`` (Game objects, ids or prepared
    ``GameProtocol``s) to a write-only workbook; returns the sheets added.

    One game: «Протокол» (+ «Ночи», «Дисциплина», «Журнал» with ``details``).
    Several: «Протокол #<id>» per game (or ``titles``), then the detail
    sheets shared by all games with a «Игра» column."""
    if not getattr(workbook, "write_only", False):
        raise TypeError("write_game_protocol_sheets needs a write-only workbook (exports.new_workbook())")
    lang = normalize_lang(lang)
    protos = [g for g in games if isinstance(g, GameProtocol)]
    if len(protos) != len(games):
        protos = collect_protocols(games, journal=details)
    L = LABELS[lang]
    sheets = []
    for i, proto in enumerate(protos):
        if titles is not None:
            title = titles[i]
        elif len(protos) == 1:
            title = L["sheet_protocol"]
        else:
            title = f"{L['sheet_protocol']} #{proto.header.game_id}"
        sheets.append(write_protocol_sheet(workbook, proto, lang, title))
    if details and protos:
        sheets.append(write_nights_sheet(workbook, protos, lang))
        sheets.append(write_discipline_sheet(workbook, protos, lang))
        sheets.append(write_log_sheet(workbook, protos, lang))
    return sheets


def build_games_workbook(games: Sequence[Any], lang: str = "ru", *, details: bool | None = None) -> Workbook:
    """A complete write-only workbook (save it with ``save_workbook``)."""
    wb = new_workbook()
    if details is None:
        details = len(games) == 1
    write_game_protocol_sheets(wb, games, lang, details=details)
    return wb


def save_workbook(workbook: Workbook, fileobj: IO[bytes] | str) -> None:
    workbook.save(fileobj)


def workbook_bytes(workbook: Workbook) -> bytes:
    buf = io.BytesIO()
    workbook.save(buf)
    return buf.getvalue()
