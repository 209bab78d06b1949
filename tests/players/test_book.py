"""Stored statistics and ratings follow the games (players/book.py)."""

import random

import pytest
from django.urls import reverse

from games import services as game_services
from games.models import GameSeat
from players import book
from players.models import PlayerGame, PlayerStats, RatedGame
from tests.players.helpers import (
    BLACK_WINS,
    NAMES,
    RED_WINS,
    import_example,
    make_players,
    random_finished_game,
    rating,
    scripted_game,
    snapshot,
    trusted,
)

pytestmark = pytest.mark.django_db

A = pytest.approx


def stats(player):
    return PlayerStats.objects.get(player=player)


def test_statistics_of_named_players_match_the_hand_counted_example_logs(host):
    """red_win.json: Sheriff Alpha (1) checks Bravo (Don, 2) and Delta (4): two blacks;
    Don Bravo checks Alpha: Sheriff found; Echo (5) shot in N1, best move 2 4 6 (two
    blacks); red wins. black_win.json: Don Alpha (1) checks Juliett (10): Sheriff
    found; Sheriff Juliett shot in N1 (Ci, N10), checks Echo (red), best move 1 2 4
    (two blacks); black (Alpha, Bravo, Charlie) wins."""
    p = make_players()
    import_example(host, "red_win")
    import_example(host, "black_win")
    alpha, bravo, echo, juliett = stats(p["Alpha"]), stats(p["Bravo"]), stats(p["Echo"]), stats(p["Juliett"])
    assert (alpha.games, alpha.wins, alpha.sheriff_games, alpha.sheriff_wins, alpha.don_games, alpha.don_wins) == (
        2,
        2,
        1,
        1,
        1,
        1,
    )
    assert (alpha.sheriff_checks, alpha.sheriff_blacks_found, alpha.don_checks, alpha.don_found_sheriff) == (2, 2, 1, 1)
    assert (bravo.games, bravo.wins, bravo.don_games, bravo.don_wins, bravo.mafia_games, bravo.mafia_wins) == (
        2,
        1,
        1,
        0,
        1,
        1,
    )
    assert (bravo.don_checks, bravo.don_found_sheriff, bravo.sheriff_checks) == (1, 1, 0)
    assert (
        echo.civilian_games,
        echo.civilian_wins,
        echo.shot_first_night,
        echo.ci_received,
        echo.best_moves,
        echo.best_move_blacks,
    ) == (2, 1, 1, 1, 1, 2)
    assert (juliett.sheriff_games, juliett.sheriff_wins, juliett.sheriff_checks, juliett.sheriff_blacks_found) == (
        1,
        0,
        1,
        0,
    )
    assert (juliett.shot_first_night, juliett.ci_received, juliett.best_moves, juliett.best_move_blacks) == (1, 1, 1, 2)
    assert PlayerGame.objects.count() == 20
    # the seats were linked by nickname when the games ended
    assert GameSeat.objects.filter(player__isnull=True).count() == 0


def test_fouls_and_removal_are_counted(host):
    p = make_players()
    scripted_game(
        host,
        NAMES,
        penalties=[{"do": "foul", "seat": 6, "reason": "x"}] * 4 + [{"do": "foul", "seat": 7, "reason": "x"}],
    )
    f, g = stats(p["Foxtrot"]), stats(p["Golf"])
    assert (f.fouls, f.removals) == (4, 1)
    assert (g.fouls, g.removals) == (1, 0)


def test_ratings_of_a_hand_computed_sequence_are_stored(host):
    """Game 1 red wins (ППК of black): reds +10, blacks −10 (p = 0.5). Game 2 same seats,
    black wins (ППК of red): p = 2/3, E_red = 0.6917421015316528, Δ_red = −13.834842030633057."""
    p = make_players()
    reds = ["Alpha", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
    blacks = ["Bravo", "Charlie", "Delta"]
    scripted_game(host, NAMES, end=RED_WINS)
    assert {n: rating(p[n]) for n in reds} == dict.fromkeys(reds, 1510.0)
    assert {n: rating(p[n]) for n in blacks} == dict.fromkeys(blacks, 1490.0)
    scripted_game(host, NAMES, end=BLACK_WINS)
    for n in reds:
        assert rating(p[n]) == A(1496.1651579693669, abs=1e-9)
    for n in blacks:
        assert rating(p[n]) == A(1503.8348420306331, abs=1e-9)
    g2 = RatedGame.objects.order_by("-finished_at").first()
    assert g2.expected_red == A(0.6917421015316528, abs=1e-12) and g2.games_after == 2 and g2.red_score_after == 1.0
    history = list(
        PlayerGame.objects.filter(player=p["Alpha"])
        .order_by("finished_at")
        .values_list("rating_before", "rating_after")
    )
    assert history == [(1500.0, 1510.0), (1510.0, A(1496.1651579693669, abs=1e-9))]


def test_unrated_and_annulled_games_do_not_move_the_rating(host):
    p = make_players()
    scripted_game(host, NAMES, rated=False)
    assert rating(p["Alpha"]) is None and stats(p["Alpha"]).games == 1 and RatedGame.objects.count() == 0
    game = game_services.game_create(host=host, players=NAMES)
    game_services.game_set_rated(game=game, rated=True)
    game_services.game_record_action(
        game=game, action={"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, expected_seq=game.seq, by=host
    )
    game_services.game_record_action(game=game, action={"do": "start"}, expected_seq=game.seq, by=host)
    game_services.game_record_action(
        game=game, action={"do": "annul", "reason": "test"}, expected_seq=game.seq, by=host
    )
    game.refresh_from_db()
    assert game.status == "annulled"
    assert rating(p["Alpha"]) is None and RatedGame.objects.count() == 0 and stats(p["Alpha"]).games == 1


def test_marking_a_finished_game_rated_applies_and_unmarking_reverts(host):
    p = make_players()
    game = scripted_game(host, NAMES, rated=False)
    trusted(host)  # only a trusted host's mark counts (players.trust)
    game_services.game_set_rated(game=game, rated=True)
    assert rating(p["Alpha"]) == 1510.0
    game_services.game_set_rated(game=game, rated=False)
    assert rating(p["Alpha"]) is None and stats(p["Alpha"]).games == 1


def test_undo_of_the_end_reverts_the_rating_change_and_redo_applies_it_again(host):
    p = make_players()
    scripted_game(host, NAMES, end=RED_WINS)
    game = scripted_game(host, NAMES, end=BLACK_WINS)
    before = snapshot()
    game_services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    assert game.status == "running"
    assert rating(p["Alpha"]) == 1510.0 and rating(p["Bravo"]) == 1490.0
    assert stats(p["Alpha"]).games == 1 and RatedGame.objects.count() == 1
    assert not PlayerGame.objects.filter(game=game).exists()
    game_services.game_record_action(game=game, action=BLACK_WINS, expected_seq=game.seq, by=host)
    after = snapshot()
    assert after[0] == before[0]  # the same totals and ratings once the end is recorded again


def test_recompute_equals_incremental_also_after_an_old_end_is_undone(host):
    pool = [f"P{i:02d}" for i in range(1, 15)]
    make_players(pool)
    rng = random.Random(18)
    games = []
    for n in range(8):
        seated = rng.sample(pool, 10)
        if n == 3:
            seated[0] = "Guest Nobody"  # an unlinked seat counts at the initial rating
        games.append(random_finished_game(host, seated, rng, rated=n % 3 != 2))
    assert RatedGame.objects.exists()
    incremental = snapshot()
    assert book.recompute() == len([g for g in games if g.status == "finished"])
    assert snapshot() == incremental
    # An old game's end undone: every later game is played again after it.
    first = next(g for g in games if g.status == "finished" and g.rated)
    game_services.game_undo_last_action(game=first, expected_seq=first.seq, by=host)
    first.refresh_from_db()
    assert not PlayerGame.objects.filter(game=first).exists()
    incremental = snapshot()
    book.recompute()
    assert snapshot() == incremental


def test_the_host_marks_a_game_rated_from_his_list_and_a_stranger_cannot(client, host, other_user):
    p = make_players()
    game = scripted_game(host, NAMES, rated=False)
    url = reverse("players:game_rated", args=[game.pk])
    client.force_login(other_user)
    assert client.post(url, {"rated": "1"}).status_code == 403
    assert rating(p["Alpha"]) is None
    client.force_login(host)
    assert client.post(url, {"rated": "1"}).status_code == 403  # not trusted yet (players.trust)
    trusted(host)
    assert "сделать рейтинговой" in client.get(reverse("games:list")).content.decode()
    r = client.post(url, {"rated": "1", "next": "/games/"})
    assert r.status_code == 302 and r["Location"] == "/games/"
    assert rating(p["Alpha"]) == 1510.0
    client.post(url, {"rated": "0", "next": "//evil.example/"})
    assert rating(p["Alpha"]) is None


def test_the_newest_game_end_is_synced_in_a_few_queries(host, django_assert_max_num_queries):
    """One probe, the result rows (with players and the tournament flag), the checks,
    whether the host may run rated games (players.trust, issue 22), the players'
    totals and their month rows, and the writes — no query per player. On
    PostgreSQL the reads are one query (one round trip) and so are the five
    writes (the game's statistics lines the table lacks, its rating row, its
    player rows, the players' totals and month rows, updated in place: one round
    trip where DELETEs and COPYs took ten), each of them the EXECUTE of a
    statement prepared once per connection (mafia_protocol/prepared.py)."""
    from games.signals import results_changed

    pool = [f"P{i:02d}" for i in range(1, 15)]
    make_players(pool)
    rng = random.Random(5)
    random_finished_game(host, rng.sample(pool, 10), rng)
    results_changed.disconnect(dispatch_uid="players.book.on_results_changed")
    try:
        game = random_finished_game(host, rng.sample(pool, 10), rng)
    finally:
        results_changed.connect(book.on_results_changed, dispatch_uid="players.book.on_results_changed")
    book._link_seats([game.pk], None)
    assert not PlayerGame.objects.filter(game=game).exists()
    from django.db import connection

    with django_assert_max_num_queries(2 if connection.vendor == "postgresql" else 11) as queries:
        book.sync_game(game)
    if connection.vendor == "postgresql":
        statements = [s for q in queries.captured_queries for s in q["sql"].split(";\n")]
        executed = [s.split("(")[0] for s in statements if s.startswith("EXECUTE ")]
        assert len(executed) == 7 + 5, statements  # lock, probe, results, checks, counted, totals, months; 5 writes
        assert all(s.startswith(("EXECUTE ", "PREPARE ", "SET LOCAL ", "RESET ")) for s in statements), statements
    assert PlayerGame.objects.filter(game=game).count() == 10
    incremental = snapshot()
    book.recompute()
    assert snapshot() == incremental


def test_season_rows_sum_the_range_and_take_the_last_counted_rating(host):
    """The season query (one aggregated query) against the stored rows: the whole
    range equals the stored totals; a range ending before the last games gives each
    player's rating after his last counted game in it, and Δ over the range."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game
    from players import leaderboard

    pool = [f"P{i:02d}" for i in range(1, 15)]
    make_players(pool)
    rng = random.Random(7)
    games = [random_finished_game(host, rng.sample(pool, 10), rng, rated=n != 2) for n in range(6)]
    # spread the ends over days (recompute keeps the stored rows in step)
    today = timezone.localdate()
    for n, g in enumerate(games):
        Game.objects.filter(pk=g.pk).update(finished_at=timezone.now() - timedelta(days=10 - n))
    book.recompute()
    everything = leaderboard._season_rows(leaderboard.Filters(start=today - timedelta(days=30), end=today))
    stored = {s.player_id: s for s in PlayerStats.objects.all()}
    assert {r.player_id for r in everything} == set(stored)
    for r in everything:
        s = stored[r.player_id]
        assert r.rating == s.rating and r.rated_games == s.rated_games
        assert r.counters == {n: getattr(s, n) for n in leaderboard.COUNTERS}
    cut = today - timedelta(days=8)  # games 0..2 (game 2 not rated)
    early = {r.player_id: r for r in leaderboard._season_rows(leaderboard.Filters(end=cut))}
    in_range = PlayerGame.objects.filter(finished_at__lt=timezone.now() - timedelta(days=7, hours=12))
    expected_players = set(in_range.values_list("player_id", flat=True))
    assert set(early) == expected_players
    for pid in expected_players:
        rows = list(in_range.filter(player_id=pid).order_by("finished_at", "game_id"))
        rated = [x for x in rows if x.rated]
        assert early[pid].rating == (rated[-1].rating_after if rated else None)
        assert early[pid].rated_games == len(rated) and early[pid].games == len(rows)
        assert early[pid].delta == (A(sum(x.rating_after - x.rating_before for x in rated)) if rated else None)


@pytest.mark.parametrize("literal_rows", [0, 3, 200])
def test_the_writes_give_the_rebuilds_rows_by_literal_inserts_or_by_copy(host, monkeypatch, literal_rows):
    """players.book._Writes on PostgreSQL: a table's rows up to LITERAL_ROWS go as
    one prepared statement (their columns as arrays) in the one query of the
    writes, more by COPY, sent after what is queued before them (the DELETE of
    the same totals rows first). Either way, or mixed (3: a game's rating row by
    the prepared statement, its ten player rows by COPY), the
    stored rows of a replay equal the rebuild's, ratings to the last bit (the
    rebuild writes them by binary COPY). On SQLite every write runs at once."""
    pool = [f"P{i:02d}" for i in range(1, 15)]
    make_players(pool)
    rng = random.Random(11)
    games = [random_finished_game(host, rng.sample(pool, 10), rng) for _ in range(4)]
    monkeypatch.setattr(book._Writes, "LITERAL_ROWS", literal_rows)
    first = min(games, key=lambda g: (g.finished_at, g.pk))
    finished = sum(g.status == "finished" for g in games)
    assert finished >= 2
    assert book.replay_from(first.finished_at, first.pk) == finished
    replayed = snapshot()
    assert PlayerGame.objects.count() == 10 * finished
    book.recompute()
    assert snapshot() == replayed


@pytest.mark.django_db(transaction=True)
def test_two_tables_ending_at_once_are_played_one_after_the_other(host):
    """Two games of a tournament round end together; the first one's transaction
    has synced its ratings and not yet committed when the second one syncs.
    The second must start from the side totals the first one leaves (the
    counted games form one chain): its sync waits for the first one's commit
    (on PostgreSQL an advisory lock for the transaction; SQLite's IMMEDIATE
    transactions already take turns), and the stored rows equal the rebuild's."""
    import threading
    from datetime import timedelta

    from django.db import connection, transaction

    from games.models import Game
    from games.signals import results_changed

    if connection.vendor != "postgresql":
        pytest.skip("SQLite's IMMEDIATE transactions already write one at a time")
    pool = [f"P{i:02d}" for i in range(1, 21)]
    make_players(pool)
    rng = random.Random(13)
    random_finished_game(host, pool[:10], rng)
    results_changed.disconnect(dispatch_uid="players.book.on_results_changed")
    try:
        first, second = (random_finished_game(host, players, rng) for players in (pool[:10], pool[10:]))
    finally:
        results_changed.connect(book.on_results_changed, dispatch_uid="players.book.on_results_changed")
    assert first.status == second.status == "finished"
    Game.objects.filter(pk=second.pk).update(finished_at=first.finished_at + timedelta(seconds=1))
    second.refresh_from_db()
    first_synced, release_first, errors = threading.Event(), threading.Event(), []

    def end(game, before_commit=None, after=None):
        try:
            if after is not None:
                after.wait(10)
            with transaction.atomic():
                book.sync_game(game)
                if before_commit is not None:
                    before_commit()
        except Exception as error:  # reported by the test below
            errors.append(error)
        finally:
            connection.close()

    def hold_first_open():
        first_synced.set()
        release_first.wait(10)

    threads = [
        threading.Thread(target=end, args=(first, hold_first_open)),
        threading.Thread(target=end, args=(second, None, first_synced)),
    ]
    for t in threads:
        t.start()
    first_synced.wait(10)
    threads[1].join(0.5)  # the second sync runs (or waits) while the first is open
    release_first.set()
    for t in threads:
        t.join(20)
    assert not errors
    incremental = snapshot()
    book.recompute()
    assert snapshot() == incremental
