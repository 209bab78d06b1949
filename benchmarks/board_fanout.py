"""Benchmark: live-board fan-out, click to receive, the plain design beside the hub.

N websocket spectators (the `websockets` library, one client process) watch
one game on real daphne processes; the host, signed in, posts actions through
the console (POST /games/<id>/act/ then /undo/, alternately, so the game never
ends) at a steady rate. For every (update, spectator) pair we time the moment
the POST was sent to the moment the frame of that revision (data-seq) arrived.

Printed per configuration: click-to-receive p50 / p99 / max over every
(update, spectator) pair; "first p50": click to the first spectator of each
update (the host request, the render and the hop, without the fan-out);
frames lost; server CPU per update and per delivered frame (the host's
request, its console response and the broadcast included); and the
server's memory per idle spectator (the RSS slope between N/2 and N
connected, before any update).

The spectators run in client processes on the same machine (2 CPUs here):
their own receive work (~40 µs a message with `websockets`) and any other
load on the machine land in the figures, which is why the plain and hub
designs are measured side by side in one run and compared as ratios.
BOARD_TRACE=<path> writes per-update first/median/last receive times.

Configurations, all in one run so the ratios compare like with like:
- one daphne, in-memory channel layer, N = 100, 500, 1000:
  "plain" (a consumer per spectator in the Channels group, DESIGN.md's
  baseline) and "hub" (games.board.fanout: one layer subscription per process);
- two daphne on Redis, N = 2000 split between them, host on process A:
  plain and hub on RedisPubSubChannelLayer, and hub on RedisChannelLayer
  (the core layer), to pick the layer by measurement.

Daphne runs with --websocket_timeout -1 (its default closes sockets with
1000 after a day). Aim (issue 4): hub p99 ≤ 100 ms at 500 and ≤ 150 ms at
1000 on one process, ≤ 32 KiB per idle spectator.

    .venv/bin/python benchmarks/board_fanout.py [--counts 100,500,1000] [--redis-count 2000]
        [--rate 5] [--updates 40] [--modes plain,hub] [--no-redis]
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
DAPHNE = ROOT / ".venv" / "bin" / "daphne"
SEQ = re.compile(r'data-seq="(\d+)"')
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")

SETUP = """
import json, sqlite3, sys
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
db = sqlite3.connect(str(settings.DATABASES["default"]["NAME"]))
db.execute("INSERT OR REPLACE INTO sqlite_sequence(name, seq) VALUES ('games_game', ?)", (int(sys.argv[1]),))
db.commit(); db.close()
from django.contrib.auth import get_user_model
from games import services
host = get_user_model().objects.create_user(username="benchhost", password="bench-pass-123")
game = services.game_create(host=host, title="Bench", players=[f"Player{i}" for i in range(1, 11)])
for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}):
    services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
print(json.dumps({"game": game.pk, "seq": game.seq}))
"""

CORE_LAYER_SETTINGS = """
from mafia_protocol.settings import *  # noqa: F403
CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}}  # noqa: F405
"""


# --- processes ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / TICKS  # utime + stime


class Daphne:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log, self.port = env, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                str(DAPHNE),
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "--websocket_timeout",
                "-1",
                "mafia_protocol.asgi:application",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daphne exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("daphne did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid


class Host:
    """The host's browser: a session on process A, CSRF header, HX-Request."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def login(self) -> None:
        self.opener.open(self.base + "/accounts/login/", timeout=30).read()
        data = urllib.parse.urlencode(
            {"username": "benchhost", "password": "bench-pass-123", "csrfmiddlewaretoken": self.csrf()}
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


# --- one configuration -------------------------------------------------------------------


@dataclass
class Result:
    label: str
    n: int
    latencies_ms: list[float] = field(default_factory=list)
    lost: int = 0
    expected: int = 0
    kib_per_spectator: float = 0.0
    cpu_us_per_frame: float = 0.0
    cpu_ms_per_update: float = 0.0
    first_ms: list[float] = field(default_factory=list)
    connect_s: float = 0.0
    post_ms: list[float] = field(default_factory=list)
    error: str = ""

    def pct(self, p: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        xs = sorted(self.latencies_ms)
        return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


# --- spectators: worker processes, so that the client side is not the bottleneck --------


def spectator_worker(conn: Any, ports: list[int], game: int, offset: int) -> None:
    """A process holding some spectators; driven over a pipe by the main process.

    Commands: ("connect", k) -> number connected so far; ("collect",) ->
    {seq: [receive times]} and exit. Receive times are time.perf_counter()
    (CLOCK_MONOTONIC, comparable across processes on Linux). The hot path only
    stamps and stores the frame; parsing happens at collect time.
    """
    asyncio.run(_worker_main(conn, ports, game, offset))


async def _worker_main(conn: Any, ports: list[int], game: int, offset: int) -> None:
    from websockets.asyncio.client import connect

    loop = asyncio.get_running_loop()
    sockets: list[Any] = []
    stamps: list[tuple[float, str]] = []
    first: list[str] = []
    sem = asyncio.Semaphore(48)  # daphne listens with a small backlog

    async def spectator(port: int, ready: asyncio.Future[None]) -> None:
        uri = f"ws://127.0.0.1:{port}/ws/games/{game}/board/"
        ws = None
        for attempt in range(6):
            try:
                async with sem:
                    ws = await connect(
                        uri,
                        origin=f"http://127.0.0.1:{port}",
                        compression=None,
                        open_timeout=60,
                        ping_interval=None,
                        max_queue=None,
                    )
                break
            except Exception:
                await asyncio.sleep(0.5 * (attempt + 1))
        if ws is None:
            ready.set_result(None)
            return
        sockets.append(ws)
        try:
            first.append((await ws.recv())[:400])
            ready.set_result(None)
            async for msg in ws:
                stamps.append((time.perf_counter(), msg[:400]))  # type: ignore[index]
        except Exception:
            if not ready.done():
                ready.set_result(None)

    while True:
        cmd = await loop.run_in_executor(None, conn.recv)
        if cmd[0] == "connect":
            futures = []
            for i in range(cmd[1]):
                fut: asyncio.Future[None] = loop.create_future()
                futures.append(fut)
                asyncio.ensure_future(spectator(ports[(offset + len(sockets) + i) % len(ports)], fut))
            await asyncio.gather(*futures)
            seqs = [int(m.group(1)) for f in first if (m := SEQ.search(f))]
            conn.send((len(sockets), max(seqs, default=0)))
        elif cmd[0] == "collect":
            out: dict[int, list[float]] = {}
            for t, head in stamps:
                m = SEQ.search(head)
                if m:
                    out.setdefault(int(m.group(1)), []).append(t)
            conn.send(out)
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
            return


class Spectators:
    def __init__(self, ports: list[int], game: int, workers: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pipes = []
        self.procs = []
        for w in range(workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=spectator_worker, args=(child, ports, game, w), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)
        self.connected = 0
        self.seq = 0

    def connect(self, k: int) -> int:
        share = [k // len(self.pipes) + (1 if i < k % len(self.pipes) else 0) for i in range(len(self.pipes))]
        for pipe, n in zip(self.pipes, share, strict=True):
            pipe.send(("connect", n))
        replies = [pipe.recv() for pipe in self.pipes]
        self.connected = sum(r[0] for r in replies)
        self.seq = max(r[1] for r in replies)
        return self.connected

    def collect(self) -> dict[int, list[float]]:
        for pipe in self.pipes:
            pipe.send(("collect",))
        merged: dict[int, list[float]] = {}
        for pipe in self.pipes:
            for seq, times in pipe.recv().items():
                merged.setdefault(seq, []).extend(times)
        for proc in self.procs:
            proc.join(15)
            if proc.is_alive():
                proc.kill()
        return merged

    def pending(self) -> None:
        pass


def run_config(label: str, servers: list[Daphne], game: int, n: int, rate: float, updates: int, workers: int) -> Result:
    result = Result(label, n)
    crowd = Spectators([s.port for s in servers], game, workers)
    try:
        # Warm up (imports, first render, the hub), then memory at N/2 and N.
        crowd.connect(len(servers) * workers)
        time.sleep(1.0)
        t0 = time.perf_counter()
        crowd.connect(max(0, n // 2 - crowd.connected))
        time.sleep(2.0)
        rss_half, with_half = sum(rss_bytes(s.pid) for s in servers), crowd.connected
        crowd.connect(max(0, n - crowd.connected))
        result.connect_s = time.perf_counter() - t0
        time.sleep(2.0)
        rss_full, connected = sum(rss_bytes(s.pid) for s in servers), crowd.connected
        if connected > with_half:
            result.kib_per_spectator = (rss_full - rss_half) / (connected - with_half) / 1024
        if connected < n:
            result.error = f"only {connected}/{n} connected"
        seq = crowd.seq

        host = Host(servers[0].port)
        host.login()
        posted: dict[int, float] = {}
        cpu0 = sum(cpu_seconds(s.pid) for s in servers)
        start = time.perf_counter()
        for k in range(updates):
            due = start + k / rate
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
            if k % 2 == 0:  # act, then undo: the game never ends
                path, fields = f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}
            else:
                path, fields = f"/games/{game}/undo/", {"expected_seq": str(seq)}
            t = time.perf_counter()
            status = host.post(path, fields)
            result.post_ms.append((time.perf_counter() - t) * 1000)
            if status != 200:
                result.error = f"POST {path} -> {status}"
                break
            seq += 1
            posted[seq] = t
        # Stragglers: a saturated server delivers late; give it time, then count losses.
        time.sleep(min(30.0, 2.0 + updates / rate))
        cpu = sum(cpu_seconds(s.pid) for s in servers) - cpu0
    finally:
        received = crowd.collect()

    if os.environ.get("BOARD_TRACE"):
        with open(os.environ["BOARD_TRACE"] + ".client", "a") as f:
            for s, t in posted.items():
                times = sorted(received.get(s, []))
                if times:
                    f.write(
                        f"{t:.6f} post seq={s} first={times[0]:.6f} median={times[len(times) // 2]:.6f} last={times[-1]:.6f}\n"
                    )
    for s, t in posted.items():
        times = received.get(s, [])
        result.latencies_ms.extend((x - t) * 1000 for x in times)
        if times:
            result.first_ms.append((min(times) - t) * 1000)
        result.lost += max(0, connected - len(times))
    result.expected = len(posted) * connected
    delivered = len(result.latencies_ms)
    result.cpu_us_per_frame = cpu / delivered * 1e6 if delivered else float("nan")
    result.cpu_ms_per_update = cpu / max(1, len(posted)) * 1000
    return result


def run(
    label: str, envs: list[dict[str, str]], tmp: Path, game: int, n: int, args: argparse.Namespace, fanout: str
) -> Result:
    servers = [Daphne(env, tmp / f"{label.replace(' ', '_')}_{i}.log") for i, env in enumerate(envs)]
    try:
        for s in servers:
            s.start()
        return run_config(label, servers, game, n, args.rate, args.updates, args.workers)
    except Exception as exc:  # a configuration that falls over is a figure too
        r = Result(label, n)
        r.error = f"{type(exc).__name__}: {exc}"
        return r
    finally:
        for s in servers:
            s.stop()


def show(r: Result) -> None:
    lost = f"{r.lost}/{r.expected}" if r.expected else "-"
    print(
        f"{r.label:<34} N={r.n:<5} p50 {r.pct(50):8.1f} ms  p99 {r.pct(99):8.1f} ms  max {max(r.latencies_ms, default=float('nan')):8.1f} ms"
        f"  first p50 {statistics.median(r.first_ms) if r.first_ms else float('nan'):6.1f} ms"
        f"  lost {lost:<11} server CPU {r.cpu_ms_per_update:5.1f} ms/update {r.cpu_us_per_frame:4.0f} µs/frame  mem {r.kib_per_spectator:5.1f} KiB/spectator"
        + (f"  host POST p50 {statistics.median(r.post_ms):.0f} ms" if r.post_ms else "")
        + (f"  [{r.error}]" if r.error else ""),
        flush=True,
    )


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # unwind: every `finally` stops its daphne and workers


def main() -> int:
    signal.signal(signal.SIGTERM, _terminate)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--counts", default="100,500,1000")
    parser.add_argument("--redis-count", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=5.0, help="host actions per second")
    parser.add_argument("--updates", type=int, default=40, help="host actions per configuration")
    parser.add_argument("--modes", default="plain,hub")
    parser.add_argument("--no-redis", action="store_true")
    parser.add_argument("--workers", type=int, default=2, help="spectator client processes")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="board-fanout-"))
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "BOARD_FANOUT")}
    base.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "SQLITE_PATH": str(tmp / "bench.sqlite3"),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "bench-only-secret-key-not-for-use-anywhere-else-0123456789",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONPATH": os.pathsep.join(p for p in (str(tmp), str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
            "LOG_LEVEL": "ERROR",
        }
    )
    (tmp / "bench_core_layer_settings.py").write_text(CORE_LAYER_SETTINGS)
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
    game = json.loads(out.stdout.strip().splitlines()[-1])["game"]
    modes = [m for m in args.modes.split(",") if m]
    counts = [int(c) for c in args.counts.split(",") if c]
    print(
        f"board fan-out: {os.cpu_count()} CPUs, {args.rate:g} host actions/s, {args.updates} per configuration, game {game}",
        flush=True,
    )

    results: dict[tuple[str, int], Result] = {}
    print("\n== one daphne, in-memory channel layer", flush=True)
    for n in counts:
        for mode in modes:
            r = run(f"1 proc, in-memory, {mode}", [{**base, "BOARD_FANOUT": mode}], tmp, game, n, args, mode)
            results[(f"mem-{mode}", n)] = r
            show(r)

    if not args.no_redis:
        print("\n== two daphne on Redis (host on A, spectators split)", flush=True)
        if not redis_up():
            print("Redis is not reachable on 127.0.0.1:6379: skipped")
        else:
            n = args.redis_count
            configs = [(f"pubsub-{m}", f"2 procs, RedisPubSub, {m}", {"BOARD_FANOUT": m}) for m in modes]
            if "hub" in modes:
                configs.append(
                    (
                        "core-hub",
                        "2 procs, RedisChannelLayer, hub",
                        {"BOARD_FANOUT": "hub", "DJANGO_SETTINGS_MODULE": "bench_core_layer_settings"},
                    )
                )
            for key, label, extra in configs:
                env = {**base, "REDIS_URL": "redis://127.0.0.1:6379/0", **extra}
                r = run(label, [env, env], tmp, game, n, args, extra["BOARD_FANOUT"])
                results[(key, n)] = r
                show(r)

    print("\n== hub vs plain, measured side by side in this run")
    for (key, n), r in sorted(results.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if not key.endswith("-hub"):
            continue
        plain = results.get((key.replace("-hub", "-plain").replace("core-", "pubsub-"), n))  # core-hub vs pubsub-plain
        if plain and plain.latencies_ms and r.latencies_ms:
            print(
                f"{key:<12} N={n:<5} p99 plain/hub = {plain.pct(99) / r.pct(99):6.1f}×   p50 plain/hub = {plain.pct(50) / r.pct(50):6.1f}×"
                f"   server CPU per frame plain/hub = {plain.cpu_us_per_frame / r.cpu_us_per_frame:5.1f}×"
            )
    if args.keep:
        print(f"\nlogs and database kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
