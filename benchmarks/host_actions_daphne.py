"""Benchmark: the host's click through a real daphne, frames rendered in or after the request.

`benchmarks/host_actions.py` times the view in-process (no server loop, so the
live-board frames are always rendered inside the request there). Under daphne
the board frames are rendered and sent after the response, from the server's
loop (settings.LIVE_RENDER_OFF_REQUEST, games/board/frames.py). This script measures
that choice side by side: two daphne processes on the same SQLite file, one
with LIVE_RENDER_OFF_REQUEST=0 (the host's request renders the frames before
it answers) and one with the default; the same host posts the same actions
(`next`, then undo, alternately, so the game never ends) to each in turn,
one at a time, and the script prints the client-side POST latency p50 / p99.
A spectator websocket is connected to each server so the frames are sent.

    .venv/bin/python benchmarks/host_actions_daphne.py [--actions 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from board_fanout import PYTHON, ROOT, SETUP, Daphne, Host  # noqa: E402


def spectator(port: int, game: int, stop: threading.Event) -> None:
    """One websocket spectator that reads frames until told to stop."""
    import websockets
    import websockets.exceptions

    async def run() -> None:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/games/{game}/board/", origin=f"http://127.0.0.1:{port}"
        ) as ws:
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ws.recv(), 0.5)

    # The servers stop at the end of the run: a closed socket is the normal end.
    with contextlib.suppress(websockets.exceptions.ConnectionClosed, OSError):
        asyncio.run(run())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=200, help="POSTs per server")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="host-daphne-"))
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    base.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "SQLITE_PATH": str(tmp / "bench.sqlite3"),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "bench-only-secret-key-not-for-use-anywhere-else-0123456789",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "ERROR",
        }
    )
    out = subprocess.run(
        [str(PYTHON), "-c", SETUP, str(random.randint(10**6, 10**9))],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if out.returncode:
        print(out.stderr[-3000:], file=sys.stderr)
        return 1
    setup = json.loads(out.stdout.strip().splitlines()[-1])
    game, seq = setup["game"], setup["seq"]

    servers = {
        "frames rendered in the request": Daphne({**base, "LIVE_RENDER_OFF_REQUEST": "0"}, tmp / "in.log"),
        "frames rendered after the response": Daphne({**base, "LIVE_RENDER_OFF_REQUEST": "1"}, tmp / "after.log"),
    }
    stop = threading.Event()
    threads = []
    try:
        hosts = {}
        for label, server in servers.items():
            server.start()
            host = Host(server.port)
            host.login()
            hosts[label] = host
            t = threading.Thread(target=spectator, args=(server.port, game, stop), daemon=True)
            t.start()
            threads.append(t)
        time.sleep(1.0)
        times: dict[str, list[float]] = {label: [] for label in servers}
        for k in range(args.actions * len(servers)):
            label = list(servers)[k % len(servers)]
            # Alternate servers action by action so both see the same machine load.
            if (k // len(servers)) % 2 == 0:
                path, fields = f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}
            else:
                path, fields = f"/games/{game}/undo/", {"expected_seq": str(seq)}
            t0 = time.perf_counter()
            status = hosts[label].post(path, fields)
            times[label].append((time.perf_counter() - t0) * 1000)
            if status != 200:
                print(f"unexpected status {status} for {path}", file=sys.stderr)
                return 1
            seq += 1
            time.sleep(0.02)
        print(
            f"host POST /act/ and /undo/ through daphne (SQLite WAL, one spectator per server), {args.actions} each, load {os.getloadavg()[0]:.1f}:"
        )
        for label, values in times.items():
            print(f"  {label:<36} p50 {percentile(values, 0.5):6.2f} ms   p99 {percentile(values, 0.99):6.2f} ms")
        a, b = (percentile(v, 0.5) for v in times.values())
        print(f"  p50 ratio in-request / after-response: {a / b:.2f}x")
    finally:
        stop.set()
        for server in servers.values():
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
