"""The archive round trip from SQLite to PostgreSQL is exact (issue 15).

The demo database (`manage.py demo_data`: a finished game, a seated game, a
tournament whose first round was played) is built on SQLite and exported;
the archive is imported into a fresh PostgreSQL database. Both sides then
describe themselves (FINGERPRINT below): every game's protocol (actions with
their revisions, authors, times, undos), seats, result rows, projection rows,
the Excel protocol's cells, and every tournament's standings and workbook
cells. The two descriptions must be equal, and exporting the imported
database again gives the same archive.

Runs wherever PostgreSQL answers (DATABASE_URL when it is PostgreSQL, else
postgres://postgres@127.0.0.1:5432/postgres); skips with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.live  # a real PostgreSQL server and a minute or two of subprocesses

ROOT = Path(__file__).resolve().parents[2]
PG_URL = (
    os.environ["DATABASE_URL"]
    if os.environ.get("DATABASE_URL", "").startswith("postgres")
    else "postgres://postgres@127.0.0.1:5432/postgres"
)

FINGERPRINT = r"""
import dataclasses, io, json, sys
import django
django.setup()
import openpyxl
from django.forms.models import model_to_dict
from games import exports
from games.models import Game
from tournaments import standings
from tournaments.exports import tournament_workbook_bytes
from tournaments.models import Tournament

def cells(data):
    wb = openpyxl.load_workbook(io.BytesIO(data))
    return {ws.title: [[None if v is None else str(v) for v in row] for row in ws.iter_rows(values_only=True)] for ws in wb.worksheets}

def rows(qs, drop=("id", "game", "action")):
    return [{k: (str(v) if not isinstance(v, (int, float, bool, type(None), list, dict)) else v) for k, v in model_to_dict(o).items() if k not in drop} for o in qs]

def iso(v):
    return v.isoformat() if v else None

out = {"games": [], "tournaments": []}
for g in Game.objects.order_by("created_at", "pk"):
    out["games"].append({
        "id": g.pk, "rated": g.rated, "title": g.title, "host": g.host.username, "created_at": iso(g.created_at), "finished_at": iso(g.finished_at),
        "status": g.status, "winner": g.winner, "ppk": g.ppk, "seq": g.seq, "public_state": g.public_state,
        "regulations": g.regulations, "seating_seed": g.seating_seed,
        "overlay": [g.overlay_token, g.overlay_delay_seconds],
        "clock": [g.clock_key, g.clock_duration_ms, iso(g.clock_started_at), g.clock_elapsed_ms, iso(g.timeout_since)],
        "actions": [[a.seq, a.payload, iso(a.created_at), a.created_by.username if a.created_by else None, iso(a.undone_at), a.undone_by.username if a.undone_by else None] for a in g.actions.order_by("seq")],
        "log": g.action_payloads(),
        "seats": rows(g.seats.order_by("seat_no")),
        "results": rows(g.results.order_by("seat_no")),
        "nominations": rows(g.nominations.order_by("action__seq", "pk")),
        "votes": rows(g.votes.order_by("action__seq", "voter_seat", "kind")),
        "penalties": rows(g.penalties.order_by("action__seq", "pk")),
        "night_actions": rows(g.night_actions.order_by("action__seq", "kind", "actor_seat")),
        "workbook": cells(exports.workbook_bytes(exports.build_games_workbook([g.pk]))),
    })
for t in Tournament.objects.order_by("created_at", "pk"):
    data = standings.compute(t)
    skip = {"key", "participant_id", "history"}
    out["tournaments"].append({
        "name": t.name, "organizers": sorted(u.username for u in t.organizers.all()), "scoring": t.scoring,
        "revisions": [[r.number, r.policy, r.note] for r in t.scoring_revisions.order_by("number")],
        "standings": [{f.name: str(getattr(s, f.name)) for f in dataclasses.fields(s) if f.name not in skip} for s in data.rows],
        "workbook": cells(tournament_workbook_bytes(t)),
    })
json.dump(out, sys.stdout, ensure_ascii=False, sort_keys=True)
"""


def pg_reachable() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3):
            return None
    except Exception as exc:
        return f"PostgreSQL is not reachable at {PG_URL}: {type(exc).__name__}"


def run(env: dict[str, str], *args: str) -> str:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{args}: {out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    return out.stdout


def without_time(archive: dict) -> dict:
    """The archive but for when and by which commit it was written (ids are kept: the same on both sides)."""
    archive.pop("exported_at")
    archive.pop("app_version")
    return archive


def test_demo_database_from_sqlite_to_postgresql_is_exact(tmp_path):
    if reason := pg_reachable():
        pytest.skip(reason)
    import psycopg

    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in ("DATABASE_URL", "REDIS_URL", "PYTEST_CURRENT_TEST")
    }
    base.update({"DJANGO_SETTINGS_MODULE": "mafia_protocol.settings", "PYTHONPATH": str(ROOT)})
    sqlite = {**base, "SQLITE_PATH": str(tmp_path / "source.sqlite3")}
    db_name = f"{os.environ.get('TEST_DATABASE_NAME', 'test_mafia_protocol')}_archive_{secrets.token_hex(3)}"
    postgres = {**base, "DATABASE_URL": PG_URL.rsplit("/", 1)[0] + "/" + db_name}
    archive_file = tmp_path / "archive.json"

    run(sqlite, "manage.py", "migrate", "--noinput", "--verbosity", "0")
    run(sqlite, "manage.py", "demo_data")
    # An undo in the middle of the finished demo game's log, and overlay settings: both must survive.
    run(sqlite, "manage.py", "shell", "-c", UNDO_AND_OVERLAY)
    run(sqlite, "manage.py", "export_archive", str(archive_file), "--with-secrets")
    source = json.loads(run(sqlite, "-c", FINGERPRINT))
    assert len(source["games"]) >= 4 and source["tournaments"] and source["tournaments"][0]["standings"]
    assert any(a[4] for g in source["games"] for a in g["actions"]), "the source has no undone action"

    with psycopg.connect(PG_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{db_name}"')
    try:
        run(postgres, "manage.py", "migrate", "--noinput", "--verbosity", "0")
        imported = run(postgres, "manage.py", "import_archive", str(archive_file))
        assert "imported" in imported
        target = json.loads(run(postgres, "-c", FINGERPRINT))
        again = tmp_path / "again.json"
        run(postgres, "manage.py", "export_archive", str(again), "--with-secrets")
        # A second import into a database that now holds games is refused and changes nothing.
        refused = subprocess.run(
            [sys.executable, "manage.py", "import_archive", str(archive_file)],
            cwd=ROOT,
            env=postgres,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert refused.returncode != 0 and "empty database" in refused.stderr
        assert json.loads(run(postgres, "-c", FINGERPRINT)) == target
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')

    for before, after in zip(source["games"], target["games"], strict=True):
        for key in before:
            assert before[key] == after[key], (
                f"game «{before['title']}»: {key} differs: {first_difference(before[key], after[key])}"
            )
    assert source == target
    assert without_time(json.loads(again.read_text())) == without_time(json.loads(archive_file.read_text()))


def first_difference(a, b, path="") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{path}/{k}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        return f"{path}: length {len(a)} != {len(b)}"
    return f"{path}: {a!r} != {b!r}"


UNDO_AND_OVERLAY = """
from games import services
from games.models import Game
g = Game.objects.get(title="Демо: новая игра")
host = g.host
services.game_record_action(game=g, action={"do": "start"}, expected_seq=g.seq, by=host)
services.game_undo_last_action(game=g, expected_seq=g.seq, by=host)
services.game_record_action(game=g, action={"do": "start"}, expected_seq=g.seq, by=host)
services.game_record_action(game=g, action={"do": "next"}, expected_seq=g.seq, by=host)
services.game_undo_last_action(game=g, expected_seq=g.seq, by=host)
services.game_set_overlay(game=g, by=host, enabled=True, delay_seconds=45)
"""
