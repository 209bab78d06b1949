"""The tournament workbook: the standings sheet first, then every game's protocol.

The standings sheet lists the ranking (the columns of the standings page)
and, to the right, each player's points per round («Э1 Т3» = stage 1,
round 3). Then one protocol sheet per game that is over (finished or
annulled: a running game's roles must not leave the host's console), in
tournament order, written by games.exports with the points computed here once
for the whole tournament (no per-game recomputation).
"""

from __future__ import annotations

from typing import IO, Any

from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill

from games import exports as game_exports
from games.models import GameStatus
from mafia_protocol import xlsx
from tournaments import standings as st
from tournaments.models import Table, Tournament

LABELS: dict[str, dict[str, Any]] = {
    "ru": {
        "sheet": "Турнирная таблица",
        "title": "Турнирная таблица",
        "policy": "Система подсчёта, версия",
        "games": "Сыграно игр",
        "cols": ["Место", "Ник", "Игры", "Победы", "Ничьи", "За результат", "ЛХ", "Ci", "Доп.", "Штрафы", "Итого", "Фолы", "Шериф И/П", "Дон И/П", "Мафия И/П", "Мирный И/П", "Точность ЛХ"],
        "round": "Э{stage} Т{round}",
        "protocol": "Э{stage} Т{round} С{table}",
    },
    "en": {
        "sheet": "Standings",
        "title": "Standings",
        "policy": "Scoring policy, version",
        "games": "Games played",
        "cols": ["Rank", "Nickname", "Games", "Wins", "Draws", "Result pts", "Best move", "Ci", "Extra", "Penalties", "Total", "Fouls", "Sheriff G/W", "Don G/W", "Mafia G/W", "Civilian G/W", "Best-move accuracy"],
        "round": "S{stage} R{round}",
        "protocol": "S{stage} R{round} T{table}",
    },
}


def _num(value: Any) -> float | int:
    f = float(value)
    return int(f) if f.is_integer() else round(f, 3)


def write_standings_sheet(workbook: Any, data: st.Standings, lang: str = "ru", *, rounds: list[tuple[int, int, int]] | None = None) -> Any:
    """The standings sheet (first in the workbook); `rounds` = [(stage id, stage order, round №)] for the per-round columns."""
    L = LABELS.get(lang, LABELS["ru"])
    ws = workbook.create_sheet(L["sheet"])
    bold = Font(bold=True)
    head_fill = PatternFill("solid", fgColor="DDDDDD")
    center = Alignment(horizontal="center")

    def cell(value: Any, *, font: Font | None = None, fill: PatternFill | None = None, align: Alignment | None = None) -> Cell:
        # User text (the tournament's and the players' names) is literal text, never a formula.
        return xlsx.cell(ws, value, font=font, fill=fill, alignment=align)

    ws.column_dimensions["B"].width = 22
    ws.append([cell(f"{data.tournament.name} — {L['title']}", font=Font(bold=True, size=14))])
    ws.append(xlsx.row(ws, [L["policy"], data.tournament.scoring_revision, "", L["games"], data.games]))
    ws.append([])
    rounds = rounds or []
    header = [cell(h, font=bold, fill=head_fill, align=center) for h in L["cols"]]
    header += [cell(L["round"].format(stage=order, round=rn), font=bold, fill=head_fill, align=center) for _sid, order, rn in rounds]
    ws.append(header)
    # Points per (player, stage, round): a player plays at most one game a round.
    per_round: dict[tuple[Any, Any, int], Any] = {}
    for line in data.lines:
        s = data.scores[(line.game_id, line.seat_no)]
        per_round[(line.player, line.order[1], line.order[2])] = s.total
    for r in data.rows:
        acc = r.best_move_accuracy
        row: list[Any] = [
            r.rank,
            r.nickname,
            r.games,
            r.wins,
            r.draws,
            _num(r.base),
            _num(r.best_move),
            _num(r.ci),
            _num(r.extra),
            _num(-r.penalties),
            cell(_num(r.total), font=bold),
            r.fouls,
            *(f"{g}/{w}" for _role, g, w in r.role_stats),
            round(acc, 3) if acc is not None else "",
        ]
        for sid, _order, rn in rounds:
            v = per_round.get((r.key, sid, rn))
            row.append(_num(v) if v is not None else "")
        ws.append(xlsx.row(ws, row))
    return ws


def build_tournament_workbook(tournament: Tournament, lang: str = "ru") -> Any:
    lang = game_exports.normalize_lang(lang)
    data = st.compute(tournament)
    wb = game_exports.new_workbook()
    tables = list(
        Table.objects.filter(round__stage__tournament=tournament, game__status__in=[GameStatus.FINISHED, GameStatus.ANNULLED])
        .select_related("round__stage")
        .order_by("round__stage__order", "round__number", "number")
    )
    rounds = sorted({(tb.round.stage_id, tb.round.stage.order, tb.round.number) for tb in tables}, key=lambda x: (x[1], x[2]))
    write_standings_sheet(wb, data, lang, rounds=rounds)
    if tables:
        scores: dict[int, dict[int, dict[str, Any]]] = {}
        for (game_id, seat), s in data.scores.items():
            scores.setdefault(game_id, {})[seat] = s.as_floats()
        game_ids = [tb.game_id for tb in tables if tb.game_id is not None]
        protos = game_exports.collect_protocols(game_ids, journal=False, scores={gid: scores.get(gid, {}) for gid in game_ids})
        L = LABELS[lang]
        titles = [L["protocol"].format(stage=tb.round.stage.order, round=tb.round.number, table=tb.number)[:31] for tb in tables]
        game_exports.write_game_protocol_sheets(wb, protos, lang, details=False, titles=titles)
    return wb


def tournament_workbook_bytes(tournament: Tournament, lang: str = "ru") -> bytes:
    return game_exports.workbook_bytes(build_tournament_workbook(tournament, lang))


def save_tournament_workbook(tournament: Tournament, fileobj: IO[bytes] | str, lang: str = "ru") -> None:
    game_exports.save_workbook(build_tournament_workbook(tournament, lang), fileobj)
