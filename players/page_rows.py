"""View-models of the long tables of the rating pages: each row's HTML built once in Python.

The leaderboard's 100 rows and a busy player's 100 games and 50 rating values
were most of those pages' time in the template engine (about twelve variables
per row, each resolved, localized and escaped, a ``{% url %}`` per link; at
100,000 games the queries took a fraction of it). Here a row is one
``format_html`` call: every value escaped, each link from a path reversed once
per page (a sentinel id replaced), each date formatted once per day. The
markup is the one the templates had (templates/players/ratings.html and
detail.html loop over these rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Any

from django.urls import reverse
from django.utils import formats, timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games import vocabulary
from games.titles import game_name
from players.leaderboard import Row
from players.templatetags.players_tags import percent_of, rating, signed

_SENTINEL = 987654321


def path_of(name: str) -> Callable[[int], str]:
    """The URL of `name` for an object id: reversed once, the id put in by text."""
    pattern = reverse(name, args=[_SENTINEL])
    head, tail = pattern.split(str(_SENTINEL), 1)
    return lambda pk: f"{head}{pk}{tail}"


def short_dates(*, local: bool) -> Callable[[datetime], str]:
    """SHORT_DATE_FORMAT of a moment, formatted once per day. `local`: the day in the
    current time zone (the ``date`` template filter's), else the moment's own day."""
    found: dict[date, str] = {}

    def text(at: datetime) -> str:
        day = timezone.localtime(at).date() if local and timezone.is_aware(at) else at.date()
        out = found.get(day)
        if out is None:
            out = found[day] = formats.date_format(day, "SHORT_DATE_FORMAT")
        return out

    return text


def leaderboard_rows(rows: Sequence[Row], *, tab: str, season: bool) -> list[SafeString]:
    """The leaderboard's rows (templates/players/ratings.html). Only the nickname
    and the translated texts need escaping (once each); the numbers are formatted
    here (digits, signs, %, —) and the links are reversed paths of integer ids:
    a format_html per row escaped every number again (half of the page's time)."""
    player_url = path_of("players:detail")
    provisional = format_html(
        ' <abbr class="provisional" title="{}">{}</abbr>',
        _("Предварительный рейтинг: учтённых игр пока мало, он ещё не устоялся"),
        _("предв."),
    )
    out = []
    for r in rows:
        delta = f'<td class="num">{signed(r.delta) if r.delta is not None else "—"}</td>' if season else ""
        roles = "".join(
            f'<td class="num{" is-current" if role == tab else ""}">{g}/{w}{f" · {percent_of(w, g)}" if g else ""}</td>'
            for role, g, w, _rate in r.role_cells
        )
        out.append(
            mark_safe(  # noqa: S308 - the nickname is escaped, every other value is a number formatted here
                f'<tr><td class="num">{r.rank}</td><td><a href="{escape(player_url(r.player_id))}">{escape(r.nickname)}</a></td>'
                f'<td class="num">{rating(r.rating)}{provisional if r.provisional else ""}</td>{delta}'
                f'<td class="num">{r.rated_games}</td><td class="num">{r.games}</td><td class="num">{r.wins}</td>'
                f'<td class="num">{percent_of(r.wins, r.games)}</td>{roles}</tr>'
            )
        )
    return out


def history_rows(history: Iterable[tuple[str, float | None, int]]) -> list[SafeString]:
    """The rating values table of the player page: (day, rating, game id)."""
    board = path_of("board:board")
    return [
        format_html(
            '<tr><td>{}</td><td class="num">{}</td><td><a href="{}">#{}</a></td></tr>',
            day,
            rating(value),
            board(gid),
            gid,
        )
        for day, value, gid in history
    ]


# What ``game_rows`` reads of each PlayerGame row, in this order.
GAME_ROW_VALUES = (
    "finished_at", "game_id", "game__title", "seat_no", "role", "won", "line__draws", "rating_before", "rating_after",
)  # fmt: skip


def game_rows(games: Iterable[Sequence[Any]]) -> list[SafeString]:
    """The player page's games: PlayerGame rows as GAME_ROW_VALUES tuples."""
    board, protocol = path_of("board:board"), path_of("exports:protocol_xlsx")
    day = short_dates(local=True)
    won, draw, lost = _("победа"), _("ничья"), _("поражение")
    out = []
    for at, game_id, title, seat_no, role, game_won, draws, before, after in games:
        delta = signed(after - before) if after is not None and before is not None else "—"
        out.append(
            format_html(
                '<tr><td>{}</td><td><a href="{}">{}</a></td><td class="num">{}</td><td>{}</td><td>{}</td>'
                '<td class="num">{}</td><td><a href="{}">xlsx</a></td></tr>',
                day(at),
                board(game_id),
                game_name(title, game_id),
                seat_no,
                vocabulary.ROLES(role),
                won if game_won else draw if draws else lost,
                delta,
                protocol(game_id),
            )
        )
    return out
