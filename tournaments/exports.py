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

from django.db.models import Q
from django.utils.translation import pgettext

from games import exports as game_exports
from games import vocabulary
from games.exports import cells
from games.exports.labels import ByLanguage
from games.models import GameStatus
from tournaments import standings as st
from tournaments import visibility
from tournaments.models import Table, Tournament


# The standings sheet's texts: msgids in the "standings workbook" context (the
# English is in locale/en), in the language the workbook is asked for.
def _texts() -> dict[str, Any]:
    return {
        "sheet": pgettext("standings workbook", "Турнирная таблица"),
        "title": pgettext("standings workbook", "Турнирная таблица"),
        "policy": pgettext("standings workbook", "Система подсчёта, версия"),
        "games": pgettext("standings workbook", "Сыграно игр"),
        "cols": [
            pgettext("standings workbook", "Место"),
            pgettext("standings workbook", "Ник"),
            pgettext("standings workbook", "Игры"),
            pgettext("standings workbook", "Победы"),
            pgettext("standings workbook", "Ничьи"),
            pgettext("standings workbook", "За результат"),
            pgettext("standings workbook", "ЛХ"),
            "Ci",
            pgettext("standings workbook", "Доп."),
            pgettext("standings workbook", "Штрафы"),
            pgettext("standings workbook", "Итого"),
            pgettext("standings workbook", "Фолы"),
        ],
        # The roles in the regulations' order, in the game's words.
        "roles": [vocabulary.ROLES(code) for code in ("sheriff", "don", "mafia", "civilian")],
        "played_won": [
            pgettext("standings workbook", "И"),
            pgettext("standings workbook", "П"),
        ],
        "accuracy": pgettext("standings workbook", "Точность ЛХ"),
        "legend": pgettext(
            "standings workbook",
            "И — игры, П — победы в роли; Э1 Т3 — баллы за игру этапа 1, тура 3; «А» — игра аннулирована (W6), не учтена.",
        ),
        "round": pgettext("standings workbook", "Э{stage} Т{round}"),
        "protocol": pgettext("standings workbook", "Э{stage} Т{round} С{table}"),
        "annulled_suffix": pgettext("standings workbook", " А"),
    }


LABELS = ByLanguage[Any](_texts)

_HEAD_TOP = 4  # the two header rows: 4 and 5
_NICK_MAX_WIDTH = 34.0  # longer nicknames wrap (and their row grows)


def _num(value: Any) -> float | int:
    f = float(value)
    return int(f) if f.is_integer() else round(f, 3)


def _header_width(text: str) -> float:
    """Wide enough for the header on at most two lines, never splitting a word."""
    longest_word = max((cells.text_units(w) for w in text.split()), default=0.0)
    return max(longest_word, cells.text_units(text) / 2) + 2.5


def write_standings_sheet(
    workbook: Any, data: st.Standings, lang: str = "ru", *, rounds: list[tuple[int, int, int]] | None = None
) -> Any:
    """The standings sheet (first in the workbook); `rounds` = [(stage id, stage order, round №)] for the per-round columns.

    Printed landscape on A4, one page wide and as many pages long as needed,
    with the two header rows and the rank and nickname columns repeated on
    every page. Every figure is a number cell; points share one format
    (games.exports.cells.POINTS_FORMAT), as on the standings page."""
    L = LABELS[lang]
    ws = cells._new_sheet(workbook, L["sheet"])
    rounds = rounds or []
    g = cells._Grid()
    top, sub = _HEAD_TOP, _HEAD_TOP + 1
    # (header, sub-header or None, style of the data cells) per column.
    columns: list[tuple[str, str | None, str]] = [(L["cols"][0], None, "td_bold"), (L["cols"][1], None, "td_left")]
    columns += [(h, None, "td_int") for h in L["cols"][2:5]]
    columns += [(h, None, "td_num") for h in L["cols"][5:10]]
    columns += [(L["cols"][10], None, "td_num_bold"), (L["cols"][11], None, "td_int")]
    for role in L["roles"]:
        columns += [(role, L["played_won"][0], "td_int"), (role, L["played_won"][1], "td_int")]
    columns.append((L["accuracy"], None, "td_pct"))
    columns += [(L["round"].format(stage=order, round=rn), None, "td_num") for _sid, order, rn in rounds]
    ncols = len(columns)
    widths = [max(_header_width(h) if s is None else cells.text_units(h) / 2 + 2, 5.0) for h, s, _st in columns]
    # Headers: one cell over both rows, or the role over its two sub-columns.
    c = 1
    while c <= ncols:
        head, subhead, _style = columns[c - 1]
        if subhead is None:
            g.merge(top, c, sub, c, head, "th")
            c += 1
        else:
            g.merge(top, c, top, c + 1, head, "th")
            g.put(sub, c, subhead, "th")
            g.put(sub, c + 1, columns[c][1], "th")
            c += 2
    g.height(top, 15)
    g.height(sub, 15)
    # Points per (player, stage, round): a player plays at most one game a round.
    per_round: dict[tuple[Any, Any, int], Any] = {}
    for line in data.lines:
        s = data.scores[(line.game_id, line.seat_no)]
        per_round[(line.player, line.order[1], line.order[2])] = s.total
    nick_width = max([widths[1], *(cells.text_units(r.nickname) + 2 for r in data.rows)])
    widths[1] = min(nick_width, _NICK_MAX_WIDTH)
    r = sub
    for row in data.rows:
        r += 1
        acc = row.best_move_accuracy
        values: list[Any] = [
            row.rank,
            row.nickname,
            row.games,
            row.wins,
            row.draws,
            _num(row.base),
            _num(row.best_move),
            _num(row.ci),
            _num(row.extra),
            _num(-row.penalties),
            _num(row.total),
            row.fouls,
        ]
        for _role, played, won in row.role_stats:
            values += [played, won]
        values.append(round(acc, 3) if acc is not None else None)
        for sid, _order, rn in rounds:
            v = per_round.get((row.key, sid, rn))
            values.append(_num(v) if v is not None else None)
        for c, value in enumerate(values, start=1):
            g.put(r, c, value, columns[c - 1][2])
        g.height(r, 14 * cells.lines_needed(row.nickname, widths[1]))
    last = r
    # Title, policy and games above the table; the legend below it (all as
    # wide as the table, so nothing is cut).
    g.merge(1, 1, 1, ncols, f"{data.tournament.name} — {L['title']}", "title")
    g.height(1, 24)
    policy_cols = max(3, ncols // 2)
    g.merge(2, 1, 2, policy_cols - 1, L["policy"], "label")
    g.put(2, policy_cols, data.tournament.scoring_revision, "td_int")
    g.merge(2, policy_cols + 1, 2, max(ncols - 1, policy_cols + 1), L["games"], "label")
    g.put(2, max(ncols, policy_cols + 2), data.games, "td_int")
    legend_row = last + 2
    table_width = sum(widths)
    g.merge(legend_row, 1, legend_row, ncols, L["legend"], "note")
    g.height(legend_row, 11.5 * cells.lines_needed(L["legend"], table_width * 1.2))
    cells._widths(ws, widths)
    ws.freeze_panes = f"C{sub + 1}"
    cells._page_setup(ws, one_page=False, title_rows=f"{top}:{sub}")
    ws.print_title_cols = "A:B"
    g.write(ws, cells._styles(workbook))
    return ws


def _protocol_tables(tournament: Tournament, rounds: list[int] | None = None) -> list[tuple[Table, int, bool]]:
    """(table, game id, annulled) of every game over (of the `rounds` given), in tournament
    order; a table's annulled games (W6, replayed) come before the game that replaced them."""
    over = [GameStatus.FINISHED, GameStatus.ANNULLED]
    in_tournament = Table.objects.filter(round__stage__tournament=tournament)
    if rounds is not None:
        in_tournament = in_tournament.filter(round_id__in=rounds)
    tables = list(
        in_tournament.filter(Q(game__status__in=over) | Q(annulled_games__isnull=False))
        .distinct()
        .select_related("round__stage", "game")
        .prefetch_related("annulled_games")
        .order_by("round__stage__order", "round__number", "number")
    )
    out: list[tuple[Table, int, bool]] = []
    for tb in tables:
        for game in sorted(tb.annulled_games.all(), key=lambda g: g.pk):
            out.append((tb, game.pk, True))
        if tb.game is not None and tb.game.status in over:
            out.append((tb, tb.game.pk, tb.game.status == GameStatus.ANNULLED))
    return out


def build_tournament_workbook(tournament: Tournament, lang: str = "ru", *, public: bool = False) -> Any:
    """`public`: the workbook anyone may download — with hidden results, the standings and the
    protocols of the rounds the public sees only (tournaments.visibility)."""
    lang = game_exports.normalize_lang(lang)
    data = st.compute(tournament, public=public)
    wb = game_exports.new_workbook()
    games = _protocol_tables(tournament, visibility.public_round_ids(tournament) if public else None)
    rounds = sorted(
        {(tb.round.stage_id, tb.round.stage.order, tb.round.number) for tb, _gid, _a in games},
        key=lambda x: (x[1], x[2]),
    )
    write_standings_sheet(wb, data, lang, rounds=rounds)
    if games:
        scores: dict[int, dict[int, dict[str, Any]]] = {}
        for (game_id, seat), s in data.scores.items():
            scores.setdefault(game_id, {})[seat] = s.as_floats()
        game_ids = [gid for _tb, gid, _a in games]
        protos = game_exports.collect_protocols(
            game_ids, journal=False, scores={gid: scores.get(gid, {}) for gid in game_ids}
        )
        L = LABELS[lang]
        titles = []
        for (tb, gid, annulled), proto in zip(games, protos, strict=True):
            title = L["protocol"].format(stage=tb.round.stage.order, round=tb.round.number, table=tb.number)
            if annulled:
                # W6: kept, marked, not counted (its scores are empty: no points).
                title += f"{L['annulled_suffix']}#{gid}"
                proto.scores = None
            # A replayed game no longer points at its table: give its header the table's.
            proto.header.tournament = tournament.name
            proto.header.stage = tb.round.stage.name
            proto.header.table_no = tb.number
            proto.header.game_no = tb.round.number
            titles.append(title[:31])
        game_exports.write_game_protocol_sheets(wb, protos, lang, details=False, titles=titles)
    return wb


def tournament_workbook_bytes(tournament: Tournament, lang: str = "ru", *, public: bool = False) -> bytes:
    return game_exports.workbook_bytes(build_tournament_workbook(tournament, lang, public=public))


def save_tournament_workbook(tournament: Tournament, fileobj: IO[bytes] | str, lang: str = "ru") -> None:
    game_exports.save_workbook(build_tournament_workbook(tournament, lang), fileobj)
