"""Two real daphne processes sharing Redis and a database (issue 4).

A host action made through process A (the host console's HTTP endpoint,
signed in as the host) must reach a spectator connected to process B, the
undo too; and after process B restarts mid-game a reconnecting spectator is
in sync at once (the first frame after connect is the full state).

Skips (with the reason) only when Redis is not reachable on 127.0.0.1:6379.
The database is a temporary SQLite file shared by every process (WAL mode),
whatever DATABASE_URL says, so the test never writes into a real database.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
DAPHNE = ROOT / ".venv" / "bin" / "daphne"
REDIS = ("127.0.0.1", 6379)
META = re.compile(r'id="board-meta"[^>]*data-seq="(\d+)"')


def redis_up() -> bool:
    try:
        with socket.create_connection(REDIS, timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seq_of(frame: str) -> int:
    m = META.search(frame)
    assert m, frame[:200]
    return int(m.group(1))


class Server:
    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = env, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        out = self.log.open("ab")
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
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daphne on {self.port} exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"daphne on {self.port} did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


class Host:
    """The host's browser on process A: session cookie and CSRF token."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def login(self, username: str, password: str) -> None:
        self.opener.open(self.server.url("/accounts/login/"), timeout=10).read()
        data = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": self.csrf()}
        ).encode()
        req = urllib.request.Request(
            self.server.url("/accounts/login/"), data=data, headers={"Referer": self.server.url("/accounts/login/")}
        )
        self.opener.open(req, timeout=10).read()
        assert any(c.name == "sessionid" for c in self.jar), "login failed"

    def post(self, path: str, fields: dict[str, str]) -> int:
        req = urllib.request.Request(
            self.server.url(path),
            data=urllib.parse.urlencode(fields).encode(),
            headers={"X-CSRFToken": self.csrf(), "HX-Request": "true", "Referer": self.server.url(path)},
        )
        try:
            with self.opener.open(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code


SETUP = """
import json, sqlite3, sys
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
# A random first game id: the Redis channel names (game-<pk>-board) of two runs never meet.
db = sqlite3.connect(str(settings.DATABASES["default"]["NAME"]))
db.execute("INSERT OR REPLACE INTO sqlite_sequence(name, seq) VALUES ('games_game', ?)", (int(sys.argv[1]),))
db.commit(); db.close()
from django.contrib.auth import get_user_model
from games import services
host = get_user_model().objects.create_user(username="livehost", password="live-pass-123")
game = services.game_create(host=host, title="Live", players=[f"P{i}" for i in range(1, 11)])
for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}):
    services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
game.refresh_from_db()
# «В городе ночь» said: the договорка's clock starts on the host's Space (issue 26-4).
game = services.game_clock_control(game=game, command="start", by=host)
game.refresh_from_db()
print(json.dumps({"game": game.pk, "seq": game.seq, "rev": game.public_rev}))
"""


@pytest.fixture
def cluster(tmp_path):
    if not redis_up():
        pytest.skip("Redis is not reachable on 127.0.0.1:6379 (.ci/run starts it)")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PYTEST_CURRENT_TEST")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "SQLITE_PATH": str(tmp_path / "live.sqlite3"),
            "REDIS_URL": "redis://127.0.0.1:6379/0",
            "PYTHONPATH": str(ROOT),
            "LOG_LEVEL": "WARNING",
        }
    )
    out = subprocess.run(
        [str(PYTHON), "-c", SETUP, str(random.randint(10**6, 10**9))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    info = json.loads(out.stdout.strip().splitlines()[-1])
    a = Server(env, free_port(), tmp_path / "a.log")
    b = Server(env, free_port(), tmp_path / "b.log")
    try:
        a.start()
        b.start()
        yield a, b, info
    finally:
        a.stop()
        b.stop()


def ws_connect(server: Server, game: int):
    from websockets.sync.client import connect

    return connect(
        f"ws://127.0.0.1:{server.port}/ws/games/{game}/board/",
        origin=f"http://127.0.0.1:{server.port}",
        open_timeout=10,
    )


def test_action_through_a_reaches_a_spectator_on_b_and_so_does_the_undo(cluster):
    a, b, info = cluster
    game, seq = info["game"], info["seq"]
    with ws_connect(b, game) as spectator_b, ws_connect(a, game) as spectator_a:
        check_action_and_undo(a, game, seq, spectator_a, spectator_b, rev=info.get("rev", seq))


def check_action_and_undo(a, game, seq, spectator_a, spectator_b, rev=None):
    # The host posts the log's revision (seq); frames carry the public one (rev, issue 24).
    rev = seq if rev is None else rev
    first = spectator_b.recv(timeout=10)
    assert 'data-full="1"' in first and seq_of(first) == rev
    assert seq_of(spectator_a.recv(timeout=10)) == rev

    host = Host(a)
    host.login("livehost", "live-pass-123")
    status = host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)})
    assert status == 200, f"the console on A refused the action ({status})"

    frame = spectator_b.recv(timeout=10)
    assert seq_of(frame) == rev + 1 and "Свободная посадка" in frame
    assert seq_of(spectator_a.recv(timeout=10)) == rev + 1

    status = host.post(f"/games/{game}/undo/", {"expected_seq": str(seq + 1)})
    assert status == 200, f"the console on A refused the undo ({status})"
    frame = spectator_b.recv(timeout=10)
    assert seq_of(frame) == rev + 2 and "Договорка" in frame and "Свободная посадка" not in frame


def test_restarted_process_gives_the_current_state_on_reconnect(cluster):
    a, b, info = cluster
    game, seq, rev = info["game"], info["seq"], info["rev"]
    with ws_connect(b, game) as spectator:
        assert seq_of(spectator.recv(timeout=10)) == rev
        b.stop()  # the spectator's process goes away mid-game
        with pytest.raises(Exception):  # noqa: B017 - any close/error is what a browser sees too
            spectator.recv(timeout=10)

    host = Host(a)
    host.login("livehost", "live-pass-123")
    assert host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}) == 200

    b.start()
    with ws_connect(b, game) as spectator:
        frame = spectator.recv(timeout=10)
    assert 'data-full="1"' in frame and seq_of(frame) == rev + 1  # missed while down, in sync on reconnect


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
