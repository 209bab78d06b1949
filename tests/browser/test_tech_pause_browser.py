"""D7 technical pause in a real Chromium (issue 12-9): the countdown on the
console and on the public board, and its early end by the host."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.live]

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
# Seated, roles, started; договорка and free seating passed: Day 1, seat 1 speaks.
DAY1 = [
    {"do": "seat", "players": PLAYERS},
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
    {"do": "next"},
    {"do": "next"},
]


def test_a_pause_counts_down_on_console_and_board_and_the_host_ends_it_early(
    page, live_server_url, live_manage, live_user
):
    out = live_manage(
        "shell",
        "-c",
        "import json, sys; from django.contrib.auth import get_user_model; from games import services; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); "
        "print(services.game_import_log(host=u, data=json.loads(sys.stdin.read()), title='tech pause').pk)",
        input=json.dumps({"format": "mafia-protocol-log/1", "actions": DAY1}),
    )
    game = int(out.strip().splitlines()[-1])

    page.goto(live_server_url + "/accounts/login/")
    page.fill("#login-form input[name=username]", live_user[0])
    page.fill("#login-form input[name=password]", live_user[1])
    page.click("#login-submit")
    page.wait_for_url(re.compile(r".*/games/$"))
    page.goto(f"{live_server_url}/games/{game}/")
    page.wait_for_selector("#console")

    board = page.context.new_page()
    board.goto(f"{live_server_url}/games/{game}/board/")
    board.wait_for_selector('#board-conn[data-state="live"]')
    assert board.is_hidden("#board-pause")

    # The host records the pause of seat 6 from the console's side block.
    page.click("details[data-keep=pauses] > summary")
    page.select_option("details[data-keep=pauses] select[name=seat]", "6")
    page.click("details[data-keep=pauses] button")
    page.wait_for_selector("#tech-pause-run")
    assert "№6" in page.inner_text("#tech-pause-run")

    # The board shows it at once (frame), and both count down live.
    board.wait_for_selector("#board-pause:not([hidden])")
    assert "Технический перерыв: №6" in board.inner_text("#board-pause")
    first_board = board.inner_text("#board-pause [data-pause-text]")
    first_console = page.inner_text("#tech-pause-run .mini-clock")
    assert re.fullmatch(r"[12]:\d\d", first_board) and re.fullmatch(r"[12]:\d\d", first_console)
    board.wait_for_function(
        "(t) => document.querySelector('#board-pause [data-pause-text]').textContent !== t", arg=first_board
    )
    page.wait_for_function(
        "(t) => document.querySelector('#tech-pause-run .mini-clock').textContent !== t", arg=first_console
    )

    # Ended early: gone from the console and, through a frame, from the board.
    page.click("#tech-pause-end")
    page.wait_for_selector("#tech-pause-run", state="detached")
    assert "Технический перерыв окончен досрочно." in page.inner_text("#console .flash-zone")
    board.wait_for_selector("#board-pause", state="hidden")

    # The log has the pause and nothing else: its early end is clock state.
    r = page.request.get(f"{live_server_url}/games/{game}/log.json")
    assert r.ok
    assert r.json()["actions"] == [*DAY1, {"do": "tech_pause", "seat": 6}]
