"""An organizer in a real Chromium against a real server (daphne): a tournament
created through the pages, participants pasted in, seated, the game started;
the standings page open in a second tab updates over its websocket, without a
reload, when the host finishes the game.

It lives here, not under tests/tournaments/, to share this directory's
session fixtures: two Playwright sync sessions cannot run at once."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.live]


def _act(page, url: str, game_id: int, action: dict) -> None:
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    console = page.context.request.get(f"{url}/games/{game_id}/console/")
    seq = int(re.search(r'data-seq="(\d+)"', console.text()).group(1))
    r = page.context.request.post(
        f"{url}/games/{game_id}/act/",
        form={"action": json.dumps(action), "expected_seq": str(seq)},
        headers={"X-CSRFToken": csrf, "HX-Request": "true", "Referer": url + "/"},
    )
    assert r.status == 200, r.text()[:500]


def test_organizer_flow_and_live_standings(page, live_server_url, live_user):
    url = live_server_url
    page.goto(url + "/accounts/login/")
    page.fill("#login-form input[name=username]", live_user[0])
    page.fill("#login-form input[name=password]", live_user[1])
    page.click("#login-submit")
    page.wait_for_url(re.compile(r".*/games/$"))

    page.goto(url + "/tournaments/new/")
    page.fill("input[name=name]", "Браузерный кубок")
    page.click("button[type=submit].btn-primary")
    page.wait_for_url(re.compile(r".*/tournaments/\d+/$"))
    tid = int(re.search(r"/tournaments/(\d+)/$", page.url).group(1))

    page.fill("#participants textarea[name=text]", "\n".join(f"{i}. Игрок{i:02d}" for i in range(1, 11)))
    page.click("#participants button[type=submit]")
    page.wait_for_selector("#participants >> text=Игрок10")
    assert page.locator("#participants ul.participants li").count() == 10

    page.fill("input[name=name]", "Отбор")
    page.click("form.row-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/stages/\d+/$"))
    page.fill("input[name=rounds]", "1")
    page.fill("input[name=seed]", "browser")
    page.click("text=Построить рассадку")
    page.wait_for_selector("#seating-quality")
    page.fill("input[name=host]", live_user[0])
    page.click("text=Назначить")
    page.wait_for_selector("text=назначен в 1 турах")

    page.click("h3 >> text=Тур 1")
    page.click("text=Начать игры тура")
    page.wait_for_selector("text=Начато игр: 1.")
    href = page.get_attribute("#round-tables .table-card h2 a", "href")
    game_id = int(re.search(r"/games/(\d+)/", href).group(1))

    standings = page.context.new_page()
    standings.goto(f"{url}/tournaments/{tid}/standings/")
    standings.wait_for_selector("#live-status:not([hidden])")
    assert standings.get_attribute("#standings", "data-games") == "0"

    for action in (
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "ppk", "team": "black"},
    ):
        _act(page, url, game_id, action)

    # No reload: the websocket brought the new standings.
    standings.wait_for_selector('#standings[data-games="1"]')
    winners = [w.replace(",", ".") for w in standings.locator("#standings tbody tr td.total").all_inner_texts()]
    assert (
        winners.count("1.00") == 7 and winners.count("0.00") == 3
    )  # six civilians and the Sheriff won (two decimals, as in the workbook)
