"""Per-month totals (issue 30): kept by the incremental path, equal to the rebuild,
and what a season of whole months is summed from; provisional ratings."""

import random
import re
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services as game_services
from games.models import Game
from players import book, leaderboard
from players.chart import Point, rating_svg
from players.models import PlayerGame, PlayerMonth, PlayerStats
from players.rating import PROVISIONAL_GAMES, UNCERTAINTY, uncertainty
from players.statistics import COUNTERS
from tests.players.helpers import (
    NAMES,
    RED_WINS,
    make_players,
    random_finished_game,
    scripted_game,
    snapshot,
)

pytestmark = pytest.mark.django_db

POOL = [f"P{i:02d}" for i in range(1, 15)]


def _months_ago(n: int, day: int = 10) -> date:
    today = timezone.localdate().replace(day=1)
    for _ in range(n):
        today = (today - timedelta(days=1)).replace(day=1)
    return today.replace(day=day)


def _spread_over_months(host, n_games: int = 9, seed: int = 30):
    """Random games (some not rated) ended over the last three months, stored by a rebuild."""
    make_players(POOL)
    rng = random.Random(seed)
    games = [random_finished_game(host, rng.sample(POOL, 10), rng, rated=n % 4 != 3) for n in range(n_games)]
    tz = timezone.get_current_timezone()
    for n, g in enumerate(games):
        day = _months_ago(2 - n * 3 // n_games, day=5 + n)
        Game.objects.filter(pk=g.pk).update(
            finished_at=timezone.datetime.combine(day, timezone.datetime.min.time(), tz) + timedelta(hours=12)
        )
    book.recompute()
    return [Game.objects.get(pk=g.pk) for g in games]


def test_month_rows_sum_to_the_players_totals_and_keep_the_rating_after_the_month(host):
    games = _spread_over_months(host)
    assert set(PlayerMonth.objects.values_list("month", flat=True)) == {_months_ago(k, day=1) for k in range(3)}
    for stats in PlayerStats.objects.all():
        months = list(PlayerMonth.objects.filter(player_id=stats.player_id).order_by("month"))
        for name in COUNTERS:
            assert sum(getattr(m, name) for m in months) == getattr(stats, name), name
        assert sum(m.rated_games for m in months) == stats.rated_games
        rated = [m for m in months if m.rated_games]
        assert (rated[-1].rating_last if rated else None) == stats.rating
    assert len(games) == 9


def test_undoing_an_old_end_rewinds_the_later_months_as_the_rebuild_would(host):
    """The incremental path rewinds every game after the undone one (a suffix across
    months): its month rows equal a full rebuild's, bit for bit."""
    games = _spread_over_months(host)
    first = next(g for g in games if g.rated)
    game_services.game_undo_last_action(game=first, expected_seq=first.seq, by=host)
    incremental = snapshot()
    assert incremental[3], "month rows are part of the snapshot"
    book.recompute()
    assert snapshot() == incremental
    # and a game ending now adds to this month's rows only
    rng = random.Random(3)
    random_finished_game(host, rng.sample(POOL, 10), rng)
    incremental = snapshot()
    book.recompute()
    assert snapshot() == incremental


def test_a_season_of_whole_months_is_summed_from_the_month_rows_not_the_games(host):
    _spread_over_months(host)
    first, last = _months_ago(1, day=1), _months_ago(0, day=1)
    end = (last + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    f = leaderboard.Filters(start=first, end=end, limit=100)
    assert f.whole_months == (first, last)
    with CaptureQueriesContext(connection) as queries:
        rows, count = leaderboard.leaderboard(f)
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert PlayerMonth._meta.db_table in sql and "players_playergame" not in sql
    assert len(queries.captured_queries) == 2  # the ranked page, then the page's players' sums
    scanned = {r.player_id: r for r in leaderboard._season_rows(f)}
    assert count == len([r for r in scanned.values() if r.rated_games]) == len(rows)
    for r in rows:
        s = scanned[r.player_id]
        assert (r.rating, r.rated_games, r.counters) == (s.rating, s.rated_games, s.counters)
        assert r.delta == pytest.approx(s.delta)
    ratings = [r.rating for r in rows]
    assert ratings == sorted(ratings, reverse=True)
    # a role tab ranks by the role's win rate
    sheriff, _n = leaderboard.leaderboard(leaderboard.Filters(tab="sheriff", start=first, end=end))
    rates = [r.role("sheriff")[2] for r in sheriff]
    assert rates == sorted(rates, reverse=True) and all(r.role("sheriff")[0] >= 1 for r in sheriff)


def test_a_season_inside_a_month_is_scanned_and_the_page_says_so(client, host):
    _spread_over_months(host)
    month = _months_ago(1, day=1)
    whole = client.get(reverse("players:ratings"), {"from": f"{month:%Y-%m}", "to": f"{month:%Y-%m}"}).content.decode()
    assert "Границы сезона внутри месяца" not in whole and "Δ" in whole
    inside = client.get(
        reverse("players:ratings"), {"from": month.replace(day=3).isoformat(), "to": month.replace(day=20).isoformat()}
    ).content.decode()
    assert "Границы сезона внутри месяца" in inside
    assert leaderboard.Filters(start=month.replace(day=3)).whole_months is None
    # the month form of the bounds: the first and the last day of those months
    assert "Текущий сезон" in whole


def test_provisional_players_are_hidden_from_the_main_table_unless_asked(client, host, settings):
    settings.PLAYERS_PROVISIONAL_GAMES = 2
    make_players([*NAMES, "Kilo"])
    scripted_game(host, NAMES, end=RED_WINS)
    scripted_game(host, ["Kilo", *NAMES[1:]], end=RED_WINS)  # Alpha: one counted game, Kilo: one
    url = reverse("players:ratings")
    names = re.findall(r'<a href="/players/\d+/">([^<]+)</a>', client.get(url).content.decode())
    assert sorted(names) == sorted(NAMES[1:])
    html = client.get(url, {"provisional": "1"}).content.decode()
    assert sorted(re.findall(r'<a href="/players/\d+/">([^<]+)</a>', html)) == sorted([*NAMES, "Kilo"])
    assert html.count('class="provisional"') == 2
    # the same rule for a season of whole months, and the role tabs keep everybody
    month = timezone.localdate()
    season = {"from": f"{month:%Y-%m}", "to": f"{month:%Y-%m}"}
    assert sorted(
        re.findall(r'<a href="/players/\d+/">([^<]+)</a>', client.get(url, season).content.decode())
    ) == sorted(NAMES[1:])
    assert "Alpha" in client.get(url, {"tab": "sheriff"}).content.decode()
    alpha = PlayerStats.objects.get(player__nickname="Alpha")
    page = client.get(reverse("players:detail", args=[alpha.player_id])).content.decode()
    assert "Рейтинг предварительный" in page


def test_the_chart_shows_the_band_and_the_formula_page_explains_it(client, host, settings):
    assert UNCERTAINTY[0][1] > UNCERTAINTY[-1][1]
    widths = [uncertainty(n) for n in range(0, 400, 5)]
    assert widths == sorted(widths, reverse=True) and uncertainty(10_000) == UNCERTAINTY[-1][1]
    svg = rating_svg(
        [Point("a", 1510.0), Point("b", 1500.0)], title="t", desc="d", band=[uncertainty(1), uncertainty(2)]
    )
    assert 'class="band"' in svg
    make_players()
    scripted_game(host, NAMES, end=RED_WINS)
    alpha = PlayerStats.objects.get(player__nickname="Alpha")
    page = client.get(reverse("players:detail", args=[alpha.player_id])).content.decode()
    assert 'class="band"' in page and f"± {uncertainty(1):.0f}" in page
    settings.PLAYERS_PROVISIONAL_GAMES = PROVISIONAL_GAMES
    how = client.get(reverse("players:how")).content.decode()
    assert 'id="provisional"' in how and f"меньше {PROVISIONAL_GAMES} учтённых игр" in how
    assert "Насколько рейтинг надёжен" in how and f"± {UNCERTAINTY[-1][1]:.0f}" in how


# --- issue 30: the rebuild at bulk speed, the one-game trust query, the player page ---


def test_a_failed_rebuild_keeps_the_old_rows_and_the_indexes(host, monkeypatch):
    _spread_over_months(host)
    rows = snapshot()
    with connection.cursor() as cursor:
        indexes = set(connection.introspection.get_constraints(cursor, PlayerGame._meta.db_table))

    def broken(*_args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(book, "_insert_player_games", broken)
    with pytest.raises(RuntimeError):
        book.recompute()
    assert snapshot() == rows
    with connection.cursor() as cursor:
        assert set(connection.introspection.get_constraints(cursor, PlayerGame._meta.db_table)) == indexes


def test_the_one_game_trust_query_agrees_with_the_queryset(host, django_user_model):
    """A game's end asks about one game through SQL compiled once (players/trust.py);
    it says what ``counted_games`` says: trusted rated, untrusted rated, unrated."""
    from players.trust import counted_game_ids, counted_games

    make_players(POOL)
    rng = random.Random(7)
    plain = django_user_model.objects.create_user(username="plain-30", password="x-pass-123")
    games = [
        random_finished_game(host, rng.sample(POOL, 10), rng, rated=True),
        random_finished_game(host, rng.sample(POOL, 10), rng, rated=False),
    ]
    untrusted = game_services.game_create(host=plain, title="untrusted", players=NAMES)
    Game.objects.filter(pk=untrusted.pk).update(rated=True)
    games.append(untrusted)
    for g in games:
        assert counted_game_ids([g.pk]) == set(counted_games(Game.objects.filter(pk=g.pk)).values_list("pk", flat=True))
    assert counted_game_ids([games[0].pk]) == {games[0].pk}
    assert counted_game_ids([games[1].pk]) == counted_game_ids([untrusted.pk]) == set()
    assert counted_game_ids([g.pk for g in games]) == {games[0].pk}


def test_the_player_page_does_not_read_his_games_result_rows_whole(client, host):
    """His warnings and grey cards come from one query reading two columns of his
    seats' result rows through their (game, seat) index, not every result row of
    every game he sat in as model instances (76 ms at 599 games), and without a
    join of the games table (PostgreSQL scanned every game for it: 15 ms at
    100,000 games)."""
    games = _spread_over_months(host, n_games=12)
    player = PlayerStats.objects.order_by("-games").first()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("players:detail", args=[player.player_id])).status_code == 200
    results = [q["sql"] for q in queries.captured_queries if "games_seatresult" in q["sql"]]
    assert len(results) == 1, results
    assert '"fouls"' not in results[0] and '"warnings"' in results[0] and '"grey_cards"' in results[0]
    assert '"games_game"' not in results[0]
    assert len(games) == 12
