"""Benchmark: readers and a host on daphne workers over PostgreSQL, pool against per-thread connections.

Issue 22: under daphne every request runs its sync view in a thread of its own,
so the old setting (`conn_max_age=60`) left a persistent connection per thread;
20 readers took one worker to 95 of 100 server connections and the host's
clicks answered 500 («too many clients»). This script runs the same load on
each database setting side by side, in one run, on a fresh PostgreSQL database:

- readers: threads that fetch the public board, the ratings page and a player
  page in turn, spread over the workers, each request on a new connection;
- a host: posts `next` and `undo` alternately to the first worker;
- a sampler: counts the database's server connections (pg_stat_activity)
  every 0.2 s and keeps the maximum.

Settings compared: `pool` (the default: Django's psycopg pool, settings.py),
`per-request` (DATABASE_POOL=0, CONN_MAX_AGE=0) and `persistent-60` (the old
conn_max_age=60). It prints requests/s, p50/p99 latency, non-200 answers and
the connection maximum for each, and the ratios against the old setting.

    .venv/bin/python benchmarks/db_load.py [--readers 20] [--seconds 15] [--workers 1 2]

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust); skips with a line
when it is not there. tests/live/test_db_pool_load.py drives `run_load` too.
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from board_fanout import PYTHON, ROOT, Daphne  # noqa: E402

STATIC_ROOT = ROOT / "var" / "bench-static"
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}

SETUP = """
import json, sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
from django.contrib.auth import get_user_model
from games import services
host = get_user_model().objects.create_user(username="loadhost", password="load-pass-123")
game = services.game_create(host=host, title="Load", players=[f"Reader{i}" for i in range(1, 11)])
for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}):
    services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
call_command("link_players", "--create", verbosity=0)
from players.models import Player
print(json.dumps({"game": game.pk, "seq": game.seq, "player": Player.objects.order_by("pk").values_list("pk", flat=True).first()}))
"""

SETTINGS = {
    "pool": {"DATABASE_POOL": "1"},
    "per-request": {"DATABASE_POOL": "0", "DATABASE_CONN_MAX_AGE": "0"},
    "persistent-60": {"DATABASE_POOL": "0", "DATABASE_CONN_MAX_AGE": "60"},
}


def postgres_up() -> bool:
    try:
        import psycopg

        with psycopg.connect(**PG, dbname="postgres", connect_timeout=2):
            return True
    except Exception:
        return False


def fresh_database(name: str) -> None:
    import psycopg

    with psycopg.connect(**PG, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(**PG, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def base_env(dbname: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{dbname}",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "load-only-secret-key-not-for-use-anywhere-else-0123456789",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "ERROR",
            # DEBUG off serves the hashed files of a manifest: collected once
            # here (prepare) and kept between runs.
            "DJANGO_STATIC_ROOT": str(STATIC_ROOT),
        }
    )
    # Two workers share the game's board updates through Redis when it is there;
    # the load itself is the database's.
    if os.environ.get("LOAD_REDIS_URL"):
        env["REDIS_URL"] = os.environ["LOAD_REDIS_URL"]
    return env


def prepare(dbname: str) -> dict[str, int]:
    """A fresh database with a running game, its host and linked players."""
    fresh_database(dbname)
    if not (STATIC_ROOT / "staticfiles.json").exists():
        subprocess.run(
            [str(PYTHON), "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            env=base_env(dbname),
            check=True,
            timeout=600,
        )
    out = subprocess.run(
        [str(PYTHON), "-c", SETUP], cwd=ROOT, env=base_env(dbname), capture_output=True, text=True, timeout=300
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


@dataclass
class Load:
    label: str
    seconds: float
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    host_statuses: dict[int, int] = field(default_factory=dict)
    max_connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, status: int, ms: float) -> None:
        with self.lock:
            self.latencies.append(ms)
            self.statuses[status] = self.statuses.get(status, 0) + 1

    @property
    def errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if s != 200) + sum(
            n for s, n in self.host_statuses.items() if s != 200
        )

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.seconds


def get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return 0  # refused or reset: counted as an error like a 500
    finally:
        conn.close()


class HostSession:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def login(self) -> None:
        self.opener.open(self.base + "/accounts/login/", timeout=30).read()
        data = urllib.parse.urlencode(
            {"username": "loadhost", "password": "load-pass-123", "csrfmiddlewaretoken": self.csrf()}
        ).encode()
        self.opener.open(
            urllib.request.Request(
                self.base + "/accounts/login/", data=data, headers={"Referer": self.base + "/accounts/login/"}
            ),
            timeout=30,
        ).read()

    def post(self, path: str, fields: dict[str, str]) -> int:
        req = urllib.request.Request(
            self.base + path,
            data=urllib.parse.urlencode(fields).encode(),
            headers={"X-CSRFToken": self.csrf(), "HX-Request": "true", "Referer": self.base + path},
        )
        try:
            with self.opener.open(req, timeout=60) as r:
                r.read()
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)
        except OSError:
            return 0


def run_load(
    *,
    label: str,
    env: dict[str, str],
    dbname: str,
    setup: dict[str, int],
    workers: int,
    readers: int,
    seconds: float,
    log_dir: Path,
) -> Load:
    """Start `workers` daphne processes with `env`, load them for `seconds`, stop them."""
    servers = [Daphne(env, log_dir / f"{label}-{workers}-{i}.log") for i in range(workers)]
    game, player = setup["game"], setup["player"]
    paths = [f"/games/{game}/board/", "/ratings/", f"/players/{player}/"]
    result = Load(label=label, seconds=seconds)
    stop = threading.Event()
    try:
        for server in servers:
            server.start()
        host = HostSession(servers[0].port)
        host.login()
        seq = setup["seq"]

        def reader(k: int) -> None:
            rng = random.Random(k)
            i = k
            while not stop.is_set():
                port = servers[i % len(servers)].port
                path = paths[rng.randrange(len(paths))]
                t0 = time.perf_counter()
                status = get(port, path)
                result.add(status, (time.perf_counter() - t0) * 1000)
                i += 1

        def clicker() -> None:
            nonlocal seq
            n = 0
            while not stop.is_set():
                if n % 2 == 0:
                    status = host.post(
                        f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}
                    )
                else:
                    status = host.post(f"/games/{game}/undo/", {"expected_seq": str(seq)})
                with result.lock:
                    result.host_statuses[status] = result.host_statuses.get(status, 0) + 1
                if status == 200:
                    seq += 1
                    n += 1
                time.sleep(0.2)  # a host clicks a few times a second at most

        def sampler() -> None:
            import psycopg

            # One connection held for the whole run (to another database, so
            # it is not counted): the server may have none left to give later.
            with psycopg.connect(**PG, dbname="postgres", autocommit=True) as conn:
                while not stop.is_set():
                    row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (dbname,)).fetchone()
                    result.max_connections = max(result.max_connections, int(row[0]) if row else 0)
                    time.sleep(0.2)

        threads = [threading.Thread(target=reader, args=(k,), daemon=True) for k in range(readers)]
        threads += [threading.Thread(target=clicker, daemon=True), threading.Thread(target=sampler, daemon=True)]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join(70)
        result.seconds = seconds
    finally:
        stop.set()
        for server in servers:
            server.stop()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    args = parser.parse_args()
    if not postgres_up():
        print("skipped: PostgreSQL is not reachable on 127.0.0.1:5432")
        return 0
    dbname = f"bench_db_load_{os.getpid()}"
    log_dir = ROOT / "var" / "bench-db-load"
    log_dir.mkdir(parents=True, exist_ok=True)
    try:
        setup = prepare(dbname)
        print(
            f"{args.readers} readers (board, ratings, player page) + a host clicking, {args.seconds:.0f} s each, PostgreSQL max_connections 100, load {os.getloadavg()[0]:.1f}:"
        )
        print(
            f"  {'setting':<14} {'workers':>7} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'non-200':>8} {'host non-200':>13} {'max conns':>10}"
        )
        rows: dict[tuple[str, int], Load] = {}
        for workers in args.workers:
            for label in args.settings:
                env = {**base_env(dbname), **SETTINGS[label]}
                r = run_load(
                    label=label,
                    env=env,
                    dbname=dbname,
                    setup=setup,
                    workers=workers,
                    readers=args.readers,
                    seconds=args.seconds,
                    log_dir=log_dir,
                )
                rows[(label, workers)] = r
                # The host's seq moved: read it back for the next run.
                setup = {**setup, "seq": current_seq(dbname, setup["game"])}
                host_bad = sum(n for s, n in r.host_statuses.items() if s != 200)
                reader_bad = sum(n for s, n in r.statuses.items() if s != 200)
                print(
                    f"  {label:<14} {workers:>7} {r.rps:>7.1f} {r.percentile(0.5):>8.1f} {r.percentile(0.99):>8.1f} {reader_bad:>8} {host_bad:>13} {r.max_connections:>10}"
                )
        for workers in args.workers:
            old = rows.get(("persistent-60", workers))
            new = rows.get(("pool", workers))
            if old and new and old.rps:
                print(
                    f"  {workers} worker(s): pool / persistent-60 throughput {new.rps / old.rps:.2f}x, p99 {new.percentile(0.99) / max(old.percentile(0.99), 0.001):.2f}x"
                )
    finally:
        drop_database(dbname)
    return 0


def current_seq(dbname: str, game: int) -> int:
    import psycopg

    with psycopg.connect(**PG, dbname=dbname) as conn:
        row = conn.execute("SELECT seq FROM games_game WHERE id = %s", (game,)).fetchone()
        return int(row[0]) if row else 0


if __name__ == "__main__":
    raise SystemExit(main())
