"""The stored statistics lines (issue 30): a player-game row names its line by the
line's code instead of holding its 22 counters — the same code on every path,
and the migration that moved a site's stored rows to it, forward and back."""

import random

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from players.statistics import CODE_WIDTHS, COUNTERS, line_code


def test_a_line_code_holds_each_counter_in_its_own_field():
    rng = random.Random(3)
    seen: dict[int, tuple[int, ...]] = {}
    for _ in range(3000):
        counts = tuple(rng.randrange(1 << w) if rng.random() < 0.5 else rng.randrange(2) for w in CODE_WIDTHS)
        code = line_code(counts)
        assert 0 <= code < 2**63  # a BIGINT
        assert seen.setdefault(code, counts) == counts  # no two lines share one
        shift, back = 0, []
        for width in CODE_WIDTHS:
            back.append((code >> shift) & ((1 << width) - 1))
            shift += width
        assert tuple(back) == counts


def test_a_line_past_its_fields_gets_a_negative_code_of_its_own():
    usual = [0] * len(COUNTERS)
    usual[COUNTERS.index("games")] = 1
    many = list(usual)
    many[COUNTERS.index("fouls")] = 128  # seven bits hold 0…127
    other = list(many)
    other[COUNTERS.index("wins")] = 1
    assert line_code(usual) > 0
    assert -(2**63) <= line_code(many) < 0 and line_code(many) == line_code(tuple(many))
    assert line_code(other) < 0 and line_code(other) != line_code(many)


@pytest.mark.django_db(transaction=True)
def test_the_migration_names_each_stored_rows_line_and_gives_the_counters_back():
    """players 0008 on a site's stored rows: each player-game row's line code from
    its counters (by the database for rows that fit, one by one for one that
    does not), each distinct line stored once; and back: the counters again."""
    before, after = [("players", "0007_counted_games_function")], [("players", "0008_statistics_lines")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    Player, PlayerGame = old.get_model("players", "Player"), old.get_model("players", "PlayerGame")
    from django.contrib.auth.models import User
    from django.utils import timezone

    from games.models import Game  # the games app's tables are as they are now

    rng = random.Random(8)
    host = User.objects.create(username="old-host")
    game = Game.objects.create(title="old", host=host, status="finished", finished_at=timezone.now())
    rows = []
    for seat in range(1, 11):
        counts = {n: rng.randrange(2) for n in COUNTERS}
        counts["fouls"] = 200 if seat == 10 else rng.randrange(4)
        player = Player.objects.create(nickname=f"Old{seat}", key=f"old{seat}")
        PlayerGame.objects.create(
            player=player,
            game_id=game.pk,
            seat_no=seat,
            finished_at=game.finished_at,
            role="civilian",
            team="red",
            **counts,
        )
        rows.append((player.pk, tuple(counts[n] for n in COUNTERS)))
    rows.append(rows[0])  # one line twice: stored once
    PlayerGame.objects.create(
        player_id=rows[0][0], game_id=Game.objects.create(title="again", host=host, status="finished", finished_at=game.finished_at).pk,
        seat_no=1, finished_at=game.finished_at, role="civilian", team="red", **dict(zip(COUNTERS, rows[0][1], strict=True)),
    )  # fmt: skip

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = executor.loader.project_state(after).apps
    lines = {
        line.id: tuple(getattr(line, n) for n in COUNTERS)
        for line in new.get_model("players", "StatisticsLine").objects.all()
    }
    named = sorted(new.get_model("players", "PlayerGame").objects.values_list("player_id", "line_id"))
    assert named == sorted((pid, line_code(counts)) for pid, counts in rows)
    assert lines == {line_code(counts): counts for _pid, counts in rows}
    assert min(lines) < 0  # the line of 200 fouls

    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    back = sorted(old.get_model("players", "PlayerGame").objects.values_list("player_id", *COUNTERS))
    assert back == sorted((pid, *counts) for pid, counts in rows)
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
