"""The rebuild at bulk speed (issue 30): the packed month sums, the statistics
lines numbered by the database, the player-game rows written in the background
while the next batch is played — each equal to what the incremental path keeps."""

import random

import pytest
from django.db import IntegrityError, connection

from games.models import SeatResult
from players import book
from players.book import LINE_COLUMNS, LineCode, PackedCounters
from players.models import PlayerGame, PlayerMonth, RatedGame
from players.statistics import COUNTERS
from tests.players.helpers import make_players, random_finished_game, snapshot

POOL = [f"P{i:02d}" for i in range(1, 15)]


def _games(host, n: int = 8, seed: int = 30) -> list:
    make_players(POOL)
    rng = random.Random(seed)
    return [random_finished_game(host, rng.sample(POOL, 10), rng, rated=k % 4 != 3) for k in range(n)]


# --- pure parts ---------------------------------------------------------------------


def test_packed_sums_unpack_to_the_sums_of_each_counter():
    rng = random.Random(1)
    lines = {n: tuple(rng.randrange(0, 6) for _ in COUNTERS) for n in range(40)}
    seats = [rng.randrange(40) for _ in range(5000)]
    packed = PackedCounters(lines, seats=len(seats))
    total = 0
    for line in seats:
        total += packed.lines[line] + packed.counted
    *counts, counted = packed.unpack(total)
    assert counted == len(seats)
    assert counts == [sum(lines[line][i] for line in seats) for i in range(len(COUNTERS))]


def test_a_field_is_wide_enough_for_every_seat_at_the_largest_counter():
    """No field carries into the next even if every seat had the largest counter of any line."""
    lines = {0: tuple([7] * len(COUNTERS))}
    packed = PackedCounters(lines, seats=1000)
    total = sum(packed.lines[0] + packed.counted for _ in range(1000))
    assert packed.unpack(total) == [7000] * len(COUNTERS) + [1000]


def test_a_negative_counter_is_refused_not_packed():
    with pytest.raises(ValueError, match="negative"):
        PackedCounters({0: (1, -1, *([0] * (len(COUNTERS) - 2)))}, seats=10)


def test_line_numbers_differ_for_different_keys():
    keys = [
        (role, team, won, winner, fouls, False, False, False, False, False, 0, checks, hits)
        for role, team in (("civilian", "red"), ("sheriff", "red"), ("mafia", "black"), ("don", "black"))
        for won in (False, True)
        for winner in ("red", "black", "draw")
        for fouls in range(5)
        for checks, hits in ((0, 0), (2, 1), (3, 3))
    ]
    assert len(keys[0]) == len(LINE_COLUMNS) + 2
    code = LineCode.of(keys)
    numbers = [code.number(k) for k in keys]
    assert len(set(numbers)) == len(keys)
    assert all(0 <= n < 2**62 for n in numbers)


# --- against the database -------------------------------------------------------------


@pytest.mark.django_db
def test_the_database_numbers_each_seat_as_python_numbers_its_line(host):
    """``LineCode.sql`` over the result rows gives, for every seat, ``LineCode.number``
    of its key: the seat rows find their lines without a join."""
    _games(host)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS players_rebuild_check")
        cursor.execute(
            "CREATE TEMPORARY TABLE players_rebuild_check (game_id BIGINT, actor_seat INTEGER, sheriff_checks INTEGER, "
            "sheriff_hits INTEGER, don_checks INTEGER, don_hits INTEGER)"
        )
        book._fill_rebuild_checks()
        keys = book._line_keys()
        cursor.execute(f"SELECT {', '.join(keys)} FROM games_seatresult r {book._checks_join()}")
        seat_keys = cursor.fetchall()
        code = LineCode.of(sorted(set(seat_keys)))
        cursor.execute(f"SELECT {code.sql} FROM games_seatresult r {book._checks_join()}", code.params)
        numbers = [n for (n,) in cursor.fetchall()]
        cursor.execute("DROP TABLE players_rebuild_check")
    assert len(numbers) == SeatResult.objects.count() == 80
    assert numbers == [code.number(k) for k in seat_keys]


@pytest.mark.django_db
def test_a_result_row_no_line_has_fails_the_rebuild_instead_of_losing_its_seat(host, monkeypatch):
    """A result row rewritten between the reading of the lines and the seat rows
    (another transaction's penalty after the end) has a key no line has: its
    number is NULL, the seat table refuses it, and the rebuild rolls back."""
    _games(host)
    rows = snapshot()
    read_lines = book._fill_rebuild_lines

    def lines_then_a_change(postgres):
        found = read_lines(postgres)
        rebuilt = SeatResult.objects.filter(game__status="finished", game__finished_at__isnull=False)
        assert rebuilt.filter(pk=rebuilt.order_by("pk")[0].pk).update(fouls=9) == 1
        return found

    monkeypatch.setattr(book, "_fill_rebuild_lines", lines_then_a_change)
    with pytest.raises(IntegrityError):
        book.recompute()
    assert snapshot() == rows


@pytest.mark.django_db
def test_an_error_in_the_background_statement_is_raised_and_the_connection_is_its_own_again(host, monkeypatch):
    _games(host)
    rows = snapshot()

    def broken(*_args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(book, "_insert_player_games", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        book.recompute()
    assert not connection.allow_thread_sharing
    assert snapshot() == rows


@pytest.mark.django_db
def test_small_batches_give_the_rows_of_one_batch(host, monkeypatch):
    """The rebuild in batches of 3 games (the background writing one batch while the
    next is played, months closed across batches) equals the incremental path."""
    _games(host, n=11, seed=31)
    incremental = snapshot()
    monkeypatch.setattr(book, "PLAY_BATCH", 3)
    assert book.recompute() == 11
    assert snapshot() == incremental


@pytest.mark.django_db
def test_the_rebuild_gives_the_ids_and_the_next_row_takes_the_one_after_the_last(host):
    _games(host)
    book.recompute()
    last = PlayerGame.objects.order_by("-pk").values_list("pk", flat=True).first()
    assert last is not None
    rng = random.Random(99)
    game = random_finished_game(host, rng.sample(POOL, 10), rng)
    new_ids = list(PlayerGame.objects.filter(game=game).values_list("pk", flat=True))
    assert len(new_ids) == 10 and min(new_ids) > last


@pytest.mark.django_db
def test_the_rebuild_leaves_every_key_index_and_constraint_as_the_migrations_made_them(host):
    """On PostgreSQL the rebuild drops the stored tables' primary keys, unique
    constraints, foreign keys and secondary indexes around its bulk writes; on
    SQLite their secondary indexes but the one it writes in its own order. All
    are back after it, primary keys included."""

    def schema():
        with connection.cursor() as cursor:
            return {
                model._meta.db_table: sorted(
                    (name, tuple(c["columns"]), bool(c["unique"]), bool(c["primary_key"]), c["foreign_key"])
                    for name, c in connection.introspection.get_constraints(cursor, model._meta.db_table).items()
                )
                for model in book.STORED_MODELS
            }

    before = schema()
    assert {"players_pg_history", "players_pg_finished"} <= {name for name, *_ in before[PlayerGame._meta.db_table]}
    assert any(primary for *_rest, primary, _fk in before[PlayerGame._meta.db_table])
    _games(host)
    book.recompute()
    assert PlayerGame.objects.exists() and PlayerMonth.objects.exists() and RatedGame.objects.exists()
    assert schema() == before


@pytest.mark.django_db(transaction=True)
def test_after_a_rebuild_the_month_rows_are_all_visible_for_index_only_sums(host):
    """PostgreSQL: a rebuild outside a transaction leaves the month table
    vacuumed (its pages all-visible), so that a season's sums read the (month,
    player, counted games) index alone; a rebuild had left every page to be
    read until autovacuum came (the season page's scan: 34 ms instead of 15)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite reads a covering index without a visibility map")
    _games(host)
    book.recompute()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relpages, relallvisible FROM pg_class WHERE oid = %s::regclass", [PlayerMonth._meta.db_table]
        )
        pages, visible = cursor.fetchone()
    assert pages >= 1 and visible == pages


@pytest.mark.django_db(transaction=True)
def test_while_a_rebuild_runs_the_games_and_players_are_read_and_written(host, monkeypatch):
    """PostgreSQL: the rebuild holds its own stored tables for its transaction
    (their indexes dropped and built again), never the games' and the players'
    tables. While it runs the board and the host's console read games and
    players and a host starts a game, none waiting for its commit. (Dropping the
    stored tables' foreign keys to games and players had locked those tables,
    ACCESS EXCLUSIVE, for the whole rebuild: a read of the games table waited
    7.7 s of a 10 s rebuild at 100,000 games.) A ratings page waits two seconds
    for the rebuild's tables, then says "busy" (503, Retry-After) instead of
    holding a pooled connection to the end of the rebuild."""
    import threading
    import time

    from django.db import transaction
    from django.test import Client
    from django.urls import reverse

    from games import services as game_services
    from games.models import Game, GameSeat
    from players.models import Player

    if connection.vendor != "postgresql":
        pytest.skip("SQLite has one writer at a time and readers beside it (WAL): no table locks")
    finished = sum(g.status == "finished" for g in _games(host, n=3))
    inside, release, errors = threading.Event(), threading.Event(), []
    play = book._play_in_end_order

    def paused(*args, **kwargs):
        inside.set()
        release.wait(30)
        return play(*args, **kwargs)

    monkeypatch.setattr(book, "_play_in_end_order", paused)

    def rebuild():
        try:
            book.recompute()
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=rebuild)
    thread.start()
    try:
        assert inside.wait(30), "the rebuild did not reach its play loop"
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            assert Game.objects.filter(status="finished").count() == finished
            assert Player.objects.filter(nickname=POOL[0]).exists()
            assert GameSeat.objects.filter(player__isnull=False).exists()
            started = game_services.game_create(host=host, title="during the rebuild", players=POOL[:10])
        reader = Client(raise_request_exception=False)
        assert reader.get(reverse("board:board", args=[started.pk])).status_code == 200
        t0 = time.monotonic()
        busy = reader.get(reverse("players:ratings"))
        assert busy.status_code == 503 and busy["Retry-After"] == "10" and time.monotonic() - t0 < 8
        assert 'data-reason="busy"' in busy.content.decode()
    finally:
        release.set()
        thread.join(60)
    assert not errors
    assert Game.objects.filter(pk=started.pk).exists()
    assert PlayerGame.objects.count() == 10 * finished
