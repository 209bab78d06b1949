"""The live board and the overlay in a real browser (Chromium via Playwright).

A board page is opened next to the host's actions (posted through the
console on a real daphne): it follows them live, comes back by itself after
the server is restarted mid-game, and counts the clock down; the overlay
holds updates back by the host's delay. The server is started here (not the
shared session server) because this test restarts it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from pathlib import Path

import pytest

from tests.live.test_two_daphne_redis import SETUP, Host, Server, free_port

pytestmark = [pytest.mark.browser, pytest.mark.live]

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")

OVERLAY_ON = """
import sys, django
django.setup()
from games import services
from games.models import Game
game = Game.objects.get(pk=int(sys.argv[1]))
services.game_set_overlay(game=game, by=game.host, enabled=True, delay_seconds=int(sys.argv[2]), confirm_no_delay=True)
print(game.overlay_token)
"""


@pytest.fixture
def server(tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (make browsers)")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "PYTEST_CURRENT_TEST")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "SQLITE_PATH": str(tmp_path / "browser.sqlite3"),
            "PYTHONPATH": str(ROOT),
        }
    )
    out = subprocess.run(
        [str(PYTHON), "-c", SETUP, str(random.randint(1000, 10**6))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    info = json.loads(out.stdout.strip().splitlines()[-1])
    srv = Server(env, free_port(), tmp_path / "daphne.log")
    srv.start()
    try:
        yield srv, info, env
    finally:
        srv.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 860}, locale="ru-RU")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors  # type: ignore[attr-defined]
    yield pg
    context.close()


def seq_on(pg) -> int:
    return int(pg.get_attribute("#board-meta", "data-seq"))


def test_board_follows_the_host_and_comes_back_after_a_server_restart(server, page):
    srv, info, _env = server
    game, seq, rev = info["game"], info["seq"], info["rev"]  # the log's and the board's revisions
    page.goto(srv.url(f"/games/{game}/board/"))
    page.wait_for_selector('#board-conn[data-state="live"]', timeout=10000)
    assert "Договорка" in page.inner_text("#board-head")
    # The clock counts down in the browser from the host's deadline.
    first = page.inner_text("[data-clock-text]")
    page.wait_for_function(
        "t => document.querySelector('[data-clock-text]').textContent !== t", arg=first, timeout=5000
    )

    host = Host(srv)
    host.login("livehost", "live-pass-123")
    assert host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}) == 200
    page.wait_for_function(f"() => document.getElementById('board-meta').dataset.seq === '{rev + 1}'", timeout=5000)
    assert "Свободная посадка" in page.inner_text("#board-head")

    # Restart the server mid-game: the page notices, reconnects by itself.
    srv.stop()
    page.wait_for_selector('#board-conn[data-state="offline"]', timeout=10000)
    srv.start()
    page.wait_for_selector('#board-conn[data-state="live"]', timeout=30000)
    host = Host(srv)
    host.login("livehost", "live-pass-123")
    assert host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq + 1)}) == 200
    page.wait_for_function(f"() => document.getElementById('board-meta').dataset.seq === '{rev + 2}'", timeout=10000)
    assert "День 1" in page.inner_text("#board-head") and "Речь" in page.inner_text("#board-head")
    assert "P1" in page.inner_text("#board-clock")  # the speaker
    assert page.errors == []  # type: ignore[attr-defined]


def test_overlay_applies_updates_after_the_hosts_delay(server, page):
    srv, info, env = server
    game, seq = info["game"], info["seq"]
    out = subprocess.run(
        [str(PYTHON), "-c", OVERLAY_ON, str(game), "2"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr[-2000:]
    token = out.stdout.strip().splitlines()[-1]
    # The overlay opens on the game as it was `delay` (2 s) ago: let the
    # seating and roles made by the fixture be older than that.
    time.sleep(2.5)
    page.goto(srv.url(f"/games/{game}/overlay/?token={token}"))
    page.wait_for_selector('#board-conn[data-state="live"]', timeout=10000)
    assert "шериф" in page.inner_text("#ov-seats").lower()  # roles shown on stream
    time.sleep(2.5)  # past the delay: the overlay shows the game as of now
    shown = seq_on(page)
    assert shown == seq

    host = Host(srv)
    host.login("livehost", "live-pass-123")
    assert host.post(f"/games/{game}/act/", {"action": json.dumps({"do": "next"}), "expected_seq": str(seq)}) == 200
    sent = time.monotonic()
    time.sleep(1.0)
    assert seq_on(page) == seq  # held back
    page.wait_for_function(f"() => document.getElementById('board-meta').dataset.seq === '{seq + 1}'", timeout=10000)
    assert time.monotonic() - sent >= 1.8
    body_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert body_bg in ("rgba(0, 0, 0, 0)", "transparent")
    assert page.errors == []  # type: ignore[attr-defined]
