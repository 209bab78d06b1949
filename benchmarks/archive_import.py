"""Benchmark: restoring an archive (issue 27-3: 200 games / 9,400 actions took 161 s, 17 ms an action).

On a throwaway SQLite database: a few random finished games are played
through the write path, their players linked, and exported (format /2); the
archive is then multiplied to --games games (ids shifted, every row kept)
and, side by side in one run:

- "bulk": tournaments.archive.import_archive, the rows written as recorded
  with bulk inserts, today's reading of every log checked, ratings rebuilt;
- "replay": the earlier design, every action replayed through the write path
  (services.game_record_action / game_undo_last_action: lock, engine,
  projection rows, result rows per action), on --replay-games of them.

Printed: ms an action for each and the ratio. Aim: ≥ 10× (≤ 1.7 ms an action).

    .venv/bin/python benchmarks/archive_import.py [--games 200] [--replay-games 20]
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_tmp = tempfile.mkdtemp(prefix="archive-bench-")
os.environ["SQLITE_PATH"] = str(Path(_tmp) / "bench.sqlite3")
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
# As a server runs (DEBUG would keep every query's text).
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-use-anywhere-else-0123456789")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "localhost")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from games import services  # noqa: E402
from games.board import publish  # noqa: E402
from games.rules.simulate import random_game  # noqa: E402
from players.services import link_existing  # noqa: E402
from tournaments import archive  # noqa: E402

SOURCE_GAMES = 5


def wipe() -> None:
    for spec in reversed(archive.SPECS):
        spec.model._default_manager.all().delete()
    for model in archive.EXCLUDED_MODELS:
        model._default_manager.all().delete()


def source_archive() -> dict:
    host = get_user_model().objects.create_user(username="bench-host")
    players = [f"Игрок {i}" for i in range(1, 11)]
    with publish.broadcasts_suppressed():
        for seed in range(SOURCE_GAMES):
            game = services.game_create(host=host, title=f"bench {seed}", players=players)
            for action in random_game(seed)[1:]:  # its own seat action replaced by ours
                services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    link_existing(create_missing=True)
    return archive.export_archive()


def multiplied(data: dict, games: int) -> dict:
    """`games` games: the source's rows again and again, every id shifted by a copy's offset."""
    tables = data["tables"]
    out = copy.deepcopy(data)
    per_game = (
        "games.gameseat",
        "games.gameaction",
        "games.nomination",
        "games.vote",
        "games.penalty",
        "games.nightaction",
        "games.seatresult",
    )
    for label in ("games.game", *per_game):
        out["tables"][label] = []
    copies = -(-games // len(tables["games.game"]))
    span = {label: max((r["id"] for r in tables[label]), default=0) for label in ("games.game", *per_game)}
    for c in range(copies):
        for label in ("games.game", *per_game):
            for row in tables[label]:
                new = dict(row, id=row["id"] + c * span[label])
                if label != "games.game":
                    new["game"] = row["game"] + c * span["games.game"]
                if "action" in row:
                    new["action"] = row["action"] + c * span["games.gameaction"]
                out["tables"][label].append(new)
    keep = {g["id"] for g in out["tables"]["games.game"][:games]}
    for label in ("games.game", *per_game):
        out["tables"][label] = [
            r for r in out["tables"][label] if (r["id"] if label == "games.game" else r["game"]) in keep
        ]
    return out


def replay_import(data: dict, games: int) -> int:
    """The earlier import: every game rebuilt action by action through the write path."""
    User = get_user_model()
    host = User.objects.get_or_create(username="bench-host")[0]
    actions_by_game: dict[int, list[dict]] = {}
    for a in data["tables"]["games.gameaction"]:
        actions_by_game.setdefault(a["game"], []).append(a)
    count = 0
    with publish.broadcasts_suppressed():
        for g in data["tables"]["games.game"][:games]:
            game = services.game_create(host=host, title=g["title"])
            for a in sorted(actions_by_game.get(g["id"], []), key=lambda a: a["seq"]):
                services.game_record_action(game=game, action=a["payload"], expected_seq=game.seq, by=host)
                count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--replay-games", type=int, default=20)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    data = multiplied(source_archive(), args.games)
    actions = len(data["tables"]["games.gameaction"])
    wipe()
    started = time.perf_counter()
    report = archive.import_archive(data)
    bulk = time.perf_counter() - started
    assert report.counts["games.game"] == args.games and not report.flagged
    wipe()
    started = time.perf_counter()
    replayed = replay_import(data, args.replay_games)
    naive = time.perf_counter() - started
    bulk_ms, naive_ms = bulk * 1000 / actions, naive * 1000 / replayed
    print(
        f"bulk:   {args.games} games, {actions} actions in {bulk:.2f} s = {bulk_ms:.3f} ms an action (ratings rebuilt, logs read by today's rules)"
    )
    print(
        f"replay: {args.replay_games} games, {replayed} actions in {naive:.2f} s = {naive_ms:.3f} ms an action (the earlier design)"
    )
    print(f"ratio:  {naive_ms / bulk_ms:.1f}x faster (aim >= 10x)")


if __name__ == "__main__":
    main()
