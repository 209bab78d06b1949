"""Benchmark: the Excel protocol export (issue 5), on a throwaway SQLite database.

Figures, each the best and the median of several runs, wall time:

- one game: read it (2 queries), replay it, write «Протокол», «Ночи»,
  «Дисциплина», «Журнал», save the .xlsx to memory — what the download does;
- a workbook of 100 game protocols (one «Протокол» sheet per game, as
  `export_xlsx ID… -o FILE`), and the same with the detail sheets;
- side by side, the same 100 protocol sheets written the plain openpyxl way
  (write-only cells with their fonts, borders and fills set per cell, merges
  added one by one) — the shape of the baseline the issue quotes;
- peak memory of the 100-game export: the Python heap (tracemalloc) and the
  growth of the process's maximum RSS.

With lxml installed openpyxl serialises through it; `--no-lxml-compare` skips
the second run of the same figures in a child process with OPENPYXL_LXML=False.
Aim: ≤ 25 ms a game, ≤ 1 s and ≤ 50 MB for 100 games.

    .venv/bin/python benchmarks/export.py [--games 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("SHARED_DIR", ROOT.parent / "shared"))
EXAMPLES = SHARED / "protocol-log" / "examples"

_tmp = tempfile.mkdtemp(prefix="export-bench-")
os.environ["SQLITE_PATH"] = str(Path(_tmp) / "bench.sqlite3")
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-use-anywhere-else-0123456789")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost")

import django  # noqa: E402

django.setup()

import openpyxl  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from openpyxl.cell import WriteOnlyCell  # noqa: E402

from games import exports, services  # noqa: E402
from games.models import Game, GameAction  # noqa: E402


def make_games(n: int) -> list[int]:
    """Three example games and the random ones imported through the services,
    then copied row for row (game + actions) up to n games."""
    host = get_user_model().objects.create_user("bench-host", password="bench-pass-123")
    sources = []
    # The finished hand-written games and four long random ones (5–6 Days, fouls, removals).
    randoms = sorted((EXAMPLES / "random").glob("*.json"))[:4]
    for path in [EXAMPLES / f"{name}.json" for name in ("red_win", "black_win", "tie_and_lift")] + randoms:
        data = json.loads(path.read_text())
        sources.append(services.game_import_log(host=host, data=data))
    finished = [g for g in sources if g.is_over] or sources
    templates = [(g, list(g.actions.order_by("seq").values_list("seq", "payload"))) for g in finished]
    ids = []
    for i in range(n):
        src, actions = templates[i % len(templates)]
        game = Game.objects.create(
            host=host,
            title=f"bench {i + 1}",
            status=src.status,
            winner=src.winner,
            ppk=src.ppk,
            seq=src.seq,
            public_state=src.public_state,
        )
        GameAction.objects.bulk_create(
            [GameAction(game=game, seq=seq, payload=payload, created_by=host) for seq, payload in actions]
        )
        ids.append(game.pk)
    return ids


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, float]:
    """Best and median wall time, and the best CPU time of this process (less
    disturbed when other processes share the machine)."""
    times, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return min(times), statistics.median(times), min(cpu)


def fmt(t: tuple[float, float, float]) -> str:
    return f"best {t[0] * 1000:7.1f} ms  median {t[1] * 1000:7.1f} ms  cpu {t[2] * 1000:7.1f} ms"


def export(ids: list[int], details: bool) -> int:
    buf = io.BytesIO()
    exports.save_workbook(exports.build_games_workbook(ids, "ru", details=details), buf)
    return buf.tell()


def plain_openpyxl(protocols: list[exports.GameProtocol]) -> int:
    """The same protocol sheets, cell styles set per cell the usual way."""
    wb = openpyxl.Workbook(write_only=True)
    for proto in protocols:
        grid = exports._draw_protocol(proto, "ru")
        ws = wb.create_sheet(f"P{proto.header.game_id}")
        for ref in grid.merges:
            ws.merged_cells.add(ref)
        for r in range(1, grid.max_row + 1):
            row = grid.cells.get(r, {})
            out: list[object] = [None] * (max(row) if row else 0)
            for c, (value, style) in row.items():
                cell = WriteOnlyCell(ws, value=value)
                for attr, spec in exports.STYLE_SPECS.get(style or "plain", {}).items():
                    setattr(cell, attr, spec)
                out[c - 1] = cell
            ws.append(out)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.tell()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-lxml-compare", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    t = time.perf_counter()
    ids = make_games(args.games)
    label = f"lxml {'on' if openpyxl.LXML else 'off'}"
    if not args.child:
        print(f"setup: {len(ids)} games ({time.perf_counter() - t:.1f} s), openpyxl {openpyxl.__version__}")

    with CaptureQueriesContext(connection) as one_q:
        export(ids[:1], True)
    with CaptureQueriesContext(connection) as many_q:
        export(ids, False)

    one = timed(lambda: export(ids[:1], True), args.repeat * 6)
    print(f"[{label}] one game, 4 sheets:           {fmt(one)}  ({len(one_q)} queries)")
    size = export(ids, False)
    many = timed(lambda: export(ids, False), args.repeat)
    print(f"[{label}] {len(ids)} protocols, one workbook:  {fmt(many)}  ({len(many_q)} queries, {size / 1024:.0f} KiB)")
    full = timed(lambda: export(ids, True), max(2, args.repeat // 2))
    print(f"[{label}] {len(ids)} protocols + detail sheets: {fmt(full)}")

    protocols = exports.collect_protocols(ids, journal=False)
    ours = timed(
        lambda: exports.workbook_bytes(exports.build_games_workbook(protocols, "ru", details=False)), args.repeat
    )
    plain = timed(lambda: plain_openpyxl(protocols), max(2, args.repeat // 2))
    print(
        f"[{label}] the {len(ids)} sheets alone (data prepared), cpu: shared styles {ours[2] * 1000:7.1f} ms  vs plain openpyxl {plain[2] * 1000:7.1f} ms  (x{plain[2] / ours[2]:.2f})"
    )

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    export(ids, False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    print(
        f"[{label}] {len(ids)} protocols, peak memory:  Python heap {peak / 2**20:.1f} MiB, max RSS growth {rss_growth / 1024:.1f} MiB"
    )

    if not args.child and not args.no_lxml_compare and openpyxl.LXML:
        env = dict(os.environ, OPENPYXL_LXML="False")
        subprocess.run(
            [sys.executable, __file__, "--child", "--games", str(args.games), "--repeat", str(args.repeat)],
            env=env,
            check=True,
        )


if __name__ == "__main__":
    main()
