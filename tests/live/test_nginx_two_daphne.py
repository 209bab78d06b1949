"""nginx in front of two daphne workers on PostgreSQL + Redis (issue 15).

The deployment a club would run, on this machine: Debian's nginx with the
shipped site config (deploy/nginx-mafia-protocol.conf; only its ports, its TLS
lines and one debugging header are changed here), two daphne workers with
DEBUG off and WhiteNoise, PostgreSQL (a fresh database, dropped afterwards)
and Redis. Everything is reached through nginx:

- /healthz is 200; static files (hashed names) come from the app;
- the host signs in and plays actions; a spectator websocket on each worker
  receives every action's frame (the frames delivered are counted);
- one worker is killed with SIGKILL: its spectators reconnect through nginx to
  the other worker and catch up to the current revision (the reconnect time
  is measured). The figures are printed (`-s`).

Skips with the reason when nginx, PostgreSQL or Redis is missing; `.ci/run`
installs nginx and starts the other two, so there it runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.live.test_two_daphne_redis import (
    DAPHNE,
    PYTHON,
    ROOT,
    Host,
    free_port,
    redis_up,
    seq_of,
)

pytestmark = pytest.mark.live

NGINX = "/usr/sbin/nginx"
SITE = ROOT / "deploy" / "nginx-mafia-protocol.conf"
PG_URL = (
    os.environ.get("DATABASE_URL", "").strip()
    if os.environ.get("DATABASE_URL", "").startswith("postgres")
    else "postgres://postgres@127.0.0.1:5432/postgres"
)
ACTIONS = 6  # next, undo, next, undo, ...: always legal, each one a new revision
SPECTATORS_PER_WORKER = 5


def pg_admin():
    import psycopg

    return psycopg.connect(PG_URL, autocommit=True, connect_timeout=3)


def pg_up() -> bool:
    try:
        with pg_admin():
            return True
    except Exception:
        return False


def wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process on {port} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def site_config_for_test(upstream_ports: list[int], https_port: int, http_port: int) -> str:
    """The shipped site config on local ports, without TLS, and naming the worker it chose."""
    site = SITE.read_text()
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;\n" for p in upstream_ports)
    site, n = re.subn(
        r"(?m)^    server 127\.0\.0\.1:800\d[^\n]*\n(?:    server 127\.0\.0\.1:800\d[^\n]*\n)*", servers, site
    )
    assert n == 1, "the upstream block of the shipped config changed shape"
    for line in ("listen [::]:80;", "listen [::]:443 ssl http2;"):
        assert line in site
        site = site.replace(line, "")
    site = re.sub(r"(?m)^\s*ssl_certificate(_key)?\s[^\n]*\n", "", site)
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port};")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    site = site.replace("server_name mafia.example.org;", "server_name 127.0.0.1;")
    # The test must know which worker answered (a websocket's 101 included).
    site = site.replace("location /ws/ {", "location /ws/ {\n        add_header X-Upstream $upstream_addr always;")
    site = site.replace(
        "location / {\n        proxy_pass",
        "location / {\n        add_header X-Upstream $upstream_addr always;\n        proxy_pass",
    )
    site = site.replace(
        "location /static/ {", "location /static/ {\n        add_header X-Upstream $upstream_addr always;"
    )
    return site


def nginx_main_config(tmp: Path, site: Path) -> str:
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"""{user}daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {tmp}/nginx-access.log;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {site};
}}
"""


SETUP = """
import json, sys
import django
django.setup()
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0, interactive=False)
call_command("collectstatic", verbosity=0, interactive=False)
# A random first game id: the Redis channel names (game-<pk>-board) of two runs never meet.
with connection.cursor() as c:
    c.execute("SELECT setval(pg_get_serial_sequence('games_game', 'id'), %s)", [int(sys.argv[1])])
from django.contrib.auth import get_user_model
from games import services
host = get_user_model().objects.create_user(username="livehost", password="live-pass-123")
game = services.game_create(host=host, title="Live", players=[f"P{i}" for i in range(1, 11)])
for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}):
    services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
print(json.dumps({"game": game.pk, "seq": game.seq, "rev": game.public_rev}))
"""


class Worker:
    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = env, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # The command of deploy/mafia-protocol@.service, on a free port.
        self.proc = subprocess.Popen(
            [str(DAPHNE), "--bind", "127.0.0.1", "--port", str(self.port), "--proxy-headers", "--access-log", str(self.log.with_suffix(".access")),
             "--websocket_timeout", "-1", "--application-close-timeout", "10", "mafia_protocol.asgi:application"],
            cwd=ROOT, env=self.env, stdout=self.log.open("ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_port(self.port, self.proc, self.log)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Front:
    """nginx's address, as Host (the host's browser) expects a server."""

    def __init__(self, port: int) -> None:
        self.port = port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def deployment(tmp_path):
    if not Path(NGINX).exists():
        pytest.skip(f"{NGINX} is missing (.ci/run installs Debian's nginx)")
    if not redis_up():
        pytest.skip("Redis is not reachable on 127.0.0.1:6379 (.ci/run starts it)")
    if not pg_up():
        pytest.skip(f"PostgreSQL is not reachable at {PG_URL} (.ci/run starts it)")

    db_name = f"{os.environ.get('TEST_DATABASE_NAME', 'test_mafia_protocol')}_nginx_{secrets.token_hex(3)}"
    with pg_admin() as admin:
        admin.execute(f'CREATE DATABASE "{db_name}"')
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_") and k not in ("PYTEST_CURRENT_TEST",)}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
            "DATABASE_URL": PG_URL.rsplit("/", 1)[0] + "/" + db_name,
            "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            "PYTHONPATH": str(ROOT),
            "LOG_LEVEL": "WARNING",
        }
    )
    workers: list[Worker] = []
    nginx: subprocess.Popen[bytes] | None = None
    try:
        out = subprocess.run(
            [str(PYTHON), "-c", SETUP, str(random.randint(10**6, 10**9))],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        info = json.loads(out.stdout.strip().splitlines()[-1])
        workers = [Worker(env, free_port(), tmp_path / f"daphne-{i}.log") for i in (1, 2)]
        for w in workers:
            w.start()
        front_port, plain_port = free_port(), free_port()
        site = tmp_path / "site.conf"
        site.write_text(site_config_for_test([w.port for w in workers], front_port, plain_port))
        conf = tmp_path / "nginx.conf"
        conf.write_text(nginx_main_config(tmp_path, site))
        test = subprocess.run(
            [NGINX, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "nginx-error.log")],
            capture_output=True,
            text=True,
        )
        assert test.returncode == 0, test.stderr
        nginx_log = tmp_path / "nginx-error.log"
        nginx = subprocess.Popen(
            [NGINX, "-p", str(tmp_path), "-c", str(conf), "-e", str(nginx_log)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_port(front_port, nginx, nginx_log)
        yield {"front": Front(front_port), "plain": Front(plain_port), "workers": workers, **info}
    finally:
        if nginx and nginx.poll() is None:
            nginx.send_signal(signal.SIGQUIT)  # graceful shutdown of a non-daemon nginx
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                nginx.kill()
        for w in workers:
            w.stop()
        with pg_admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
        if os.environ.get("KEEP_LIVE_LOGS"):
            shutil.copytree(tmp_path, Path(os.environ["KEEP_LIVE_LOGS"]), dirs_exist_ok=True)


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def spectator(front: Front, game: int, sockets: contextlib.ExitStack):
    """A board websocket through nginx -> (socket, port of the worker nginx chose)."""
    from websockets.sync.client import connect

    ws = sockets.enter_context(
        connect(f"ws://127.0.0.1:{front.port}/ws/games/{game}/board/", origin=front.url(""), open_timeout=10)
    )
    return ws, int(ws.response.headers["X-Upstream"].rsplit(":", 1)[1])


def test_nginx_two_workers_postgres_redis_and_a_killed_worker(deployment):
    with contextlib.ExitStack() as sockets:
        check_deployment(deployment, sockets)


def check_deployment(deployment, sockets: contextlib.ExitStack) -> None:
    front, plain, workers, game, seq = (
        deployment["front"],
        deployment["plain"],
        deployment["workers"],
        deployment["game"],
        deployment["seq"],
    )
    # The host posts the log's revision (seq); the board's frames carry the public one (rev, issue 24).
    # Every action here (a Day step, or its undo) changes what the board shows: both move together.
    rev = deployment["rev"]
    ports = [w.port for w in workers]

    # Health, through nginx on both listeners.
    for server in (front, plain):
        status, _headers, body = get(server.url("/healthz"))
        assert status == 200 and json.loads(body)["status"] == "ok", body

    # Static files: hashed names in the page, served by the app (nginx only passes them on).
    status, headers, page = get(front.url("/accounts/login/"))
    assert status == 200 and "script-src 'self'" in headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(/static/[^"]+\.[0-9a-f]{12}\.(?:js|css))"', page.decode())
    assert len(assets) >= 3, page[:500]
    for asset in assets:
        status, headers, body = get(front.url(asset))
        assert status == 200 and body and "immutable" in headers["cache-control"], asset
        assert int(headers["x-upstream"].rsplit(":", 1)[1]) in ports
    assert get(f"http://127.0.0.1:{ports[0]}{assets[0]}")[0] == 200  # daphne alone serves them too

    # Spectators through nginx until each worker has SPECTATORS_PER_WORKER of them.
    spectators: list[tuple[object, int]] = []
    for _ in range(8 * SPECTATORS_PER_WORKER):
        spectators.append(spectator(front, game, sockets))
        if all(sum(1 for _ws, p in spectators if p == port) >= SPECTATORS_PER_WORKER for port in ports):
            break
    on = {port: [ws for ws, p in spectators if p == port] for port in ports}
    assert all(len(v) >= SPECTATORS_PER_WORKER for v in on.values()), {p: len(v) for p, v in on.items()}
    for ws, _port in spectators:
        first = ws.recv(timeout=10)
        assert 'data-full="1"' in first and seq_of(first) == rev

    # The host signs in through nginx and plays; every spectator gets every frame.
    host = Host(front)
    host.login("livehost", "live-pass-123")
    delivered, latencies = 0, []
    for i in range(ACTIONS):
        sent = time.monotonic()
        if i % 2 == 0:
            status = host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)})
        else:
            status = host.post(f"/games/{game}/undo/", {"expected_seq": str(seq)})
        assert status == 200, f"action {i} refused ({status})"
        seq += 1
        rev += 1
        for ws, _port in spectators:
            frame = ws.recv(timeout=10)
            while seq_of(frame) < rev:  # a clock frame may come in between; never a gap
                frame = ws.recv(timeout=10)
            assert seq_of(frame) == rev
            delivered += 1
            latencies.append(time.monotonic() - sent)
    expected = ACTIONS * len(spectators)
    assert delivered == expected

    # SIGKILL one worker: its spectators reconnect through nginx and catch up.
    victim, survivor = workers[1], workers[0]
    orphans = on[victim.port]
    victim.proc.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    for ws in orphans:
        with pytest.raises(Exception):  # noqa: B017 - the socket closes, as a browser sees it
            while True:
                ws.recv(timeout=10)
    # The host goes on while they are away (nginx retries the dead worker's refused connection).
    assert host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}) == 200
    seq += 1
    rev += 1
    reconnect_times = []
    for _ in orphans:
        started = time.monotonic()
        deadline = started + 30
        while True:  # what board.js does: reconnect until a snapshot arrives
            try:
                ws, port = spectator(front, game, sockets)
                frame = ws.recv(timeout=10)
                break
            except Exception:
                assert time.monotonic() < deadline, "no reconnect within 30 s"
                time.sleep(0.2)
        reconnect_times.append(time.monotonic() - started)
        assert port == survivor.port
        assert 'data-full="1"' in frame and seq_of(frame) == rev  # caught up, including the action made while away
    all_caught_up = time.monotonic() - killed_at
    # The survivor's spectators got that action live.
    live_after_kill = 0
    for ws in on[survivor.port]:
        frame = ws.recv(timeout=10)
        while seq_of(frame) < rev:
            frame = ws.recv(timeout=10)
        assert seq_of(frame) == rev
        live_after_kill += 1
    assert get(front.url("/healthz"))[0] == 200

    latencies.sort()
    print(
        f"\n[nginx + 2 daphne + PostgreSQL + Redis] spectators: {len(spectators)} "
        f"({', '.join(f'{len(v)} on worker :{p}' for p, v in on.items())}); "
        f"frames delivered through nginx: {delivered}/{expected}; "
        f"action -> frame: median {latencies[len(latencies) // 2] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms; "
        f"after SIGKILL of :{victim.port}: {len(orphans)} spectators reconnected to :{survivor.port}, "
        f"reconnect + snapshot per spectator max {max(reconnect_times) * 1000:.0f} ms, "
        f"kill -> all caught up {all_caught_up * 1000:.0f} ms (includes one host action); "
        f"the action made while they were away: {live_after_kill} live frames on :{survivor.port} + {len(orphans)} snapshots on reconnect"
    )


def test_the_shipped_site_config_passes_nginx_t_with_tls(tmp_path):
    """The file as shipped (only the certificate paths point at a throwaway pair) is valid for nginx."""
    if not Path(NGINX).exists() or not shutil.which("openssl"):
        pytest.skip("needs /usr/sbin/nginx and openssl")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=mafia.example.org", "-keyout", str(key), "-out", str(cert)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    site = SITE.read_text()
    site = re.sub(r"(?m)^(\s*ssl_certificate)\s[^\n]*;", rf"\1 {cert};", site)
    site = re.sub(r"(?m)^(\s*ssl_certificate_key)\s[^\n]*;", rf"\1 {key};", site)
    (tmp_path / "site.conf").write_text(site)
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_main_config(tmp_path, tmp_path / "site.conf"))
    out = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "syntax is ok" in out.stderr
