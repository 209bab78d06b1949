"""Fixtures for browser tests: a real server on a free localhost port and Chromium.

- `live_server_url`: daphne serving the project (the same ASGI app as `make
  run`) on 127.0.0.1:<free port>, with its own SQLite database in a temporary
  directory (migrated first). Session-scoped; the server is stopped at the end.
- `live_manage(*args)`: run a manage.py command against that database (to
  create users, import logs, read games back).
- `live_user`: a host account on the live server -> (username, password).
- `browser`: Debian's Chromium through Playwright (never `playwright install`).
- `page`: a fresh context and page per test (1366×860, Russian locale).

Other engineers may reuse these: the names are generic on purpose.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the live server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.15)
    raise RuntimeError(f"the live server did not answer at {url}")


@pytest.fixture(scope="session")
def live_server_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("live")
    env = dict(os.environ)
    # The live server gets its own SQLite file and the in-memory channel
    # layer, whatever the test run uses (PostgreSQL/Redis runs skip browsers).
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    env["SQLITE_PATH"] = str(tmp / "live.sqlite3")
    env["DJANGO_DEBUG"] = "1"
    env["DJANGO_SETTINGS_MODULE"] = "mafia_protocol.settings"
    env["PYTHONPATH"] = str(PROJECT_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture(scope="session")
def live_manage(live_server_env: dict[str, str]) -> Callable[..., str]:
    def run(*args: str, input: str | None = None) -> str:
        out = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=PROJECT_ROOT,
            env=live_server_env,
            input=input,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if out.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
        return out.stdout

    return run


@pytest.fixture(scope="session")
def live_server_url(live_server_env: dict[str, str], live_manage: Callable[..., str]) -> Iterator[str]:
    live_manage("migrate", "--noinput", "--verbosity", "0")
    port = _free_port()
    daphne = shutil.which("daphne", path=str(Path(sys.executable).parent)) or "daphne"
    log = open(Path(live_server_env["SQLITE_PATH"]).with_suffix(".log"), "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [daphne, "--bind", "127.0.0.1", "--port", str(port), "mafia_protocol.asgi:application"],
        cwd=PROJECT_ROOT,
        env=live_server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_http(url + "/accounts/login/", proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def live_user(live_manage: Callable[..., str]) -> tuple[str, str]:
    username, password = "live-host", "live-pass-123"
    live_manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model as g; U = g(); "
        f"u = U.objects.filter(username={username!r}).first() or U(username={username!r}); "
        f"u.set_password({password!r}); u.save()",
    )
    return username, password


# The session-wide `browser` fixture lives in tests/conftest.py: Playwright's
# sync API allows one instance per thread, so every browser test shares it.


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1366, "height": 860}, locale="ru-RU")  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(20_000)  # a loaded CI machine is slow; the waits are for real events
    try:
        yield pg
    finally:
        context.close()
