"""The penalty dialog offers what the engine accepts (issue 21), in a real
Chromium: for a player with 3 fouls the three F18 reasons come with the grey
card, never with a foul (games.rules.penalty_offer); a departed seat's menu
offers a warning and a grey card only (F19), and the warning is recorded."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.live]

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
DAY1 = [
    {"do": "seat", "players": PLAYERS},
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
    {"do": "next"},
    {"do": "next"},
]
F18_FOUL_CODES = {"vote_retraction", "gestures_during_vote", "delaying_speech_three_fouls"}


def _import(live_manage, live_user, actions) -> int:
    out = live_manage(
        "shell",
        "-c",
        "import json, sys; from django.contrib.auth import get_user_model; from games import services; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); "
        "print(services.game_import_log(host=u, data=json.loads(sys.stdin.read()), title='issue21').pk)",
        input=json.dumps({"format": "mafia-protocol-log/1", "actions": actions}),
    )
    return int(out.strip().splitlines()[-1])


def _open(page, url, user, game_id):
    page.goto(url + "/accounts/login/")
    page.fill("#login-form input[name=username]", user[0])
    page.fill("#login-form input[name=password]", user[1])
    page.click("#login-submit")
    page.wait_for_url(re.compile(r".*/games/$"))
    page.goto(f"{url}/games/{game_id}/")
    page.wait_for_selector("#console")


def _offered(page) -> set[str]:
    return set(
        page.eval_on_selector_all(
            "#penalty-form select[name=reason] option", "os => os.filter(o => o.value && !o.disabled).map(o => o.value)"
        )
    )


def test_f18_f19_penalty_dialog_offers(page, live_server_url, live_user, live_manage):
    game = _import(live_manage, live_user, [*DAY1, *[{"do": "foul", "seat": 5}] * 3, {"do": "disqualify", "seat": 6}])
    _open(page, live_server_url, live_user, game)
    # F18: seat 5 has 3 fouls — a foul is offered, but not for the three offences.
    page.click("#tile-5 [data-penalty-seat]")
    page.wait_for_selector("#penalty-dialog[open]")
    page.check("#penalty-form input[value=foul]")
    fouls = _offered(page)
    assert fouls and not fouls & F18_FOUL_CODES, fouls
    page.check("#penalty-form input[value=grey_card]")
    assert {
        "double_or_removed_vote_three_fouls",
        "gestures_vote_three_fouls",
        "delaying_speech_three_fouls",
    } <= _offered(page)
    page.click("#penalty-dialog [data-close-dialog]")
    # A seat with fewer fouls still gets vote retraction as a foul.
    page.click("#tile-7 [data-penalty-seat]")
    page.check("#penalty-form input[value=foul]")
    assert "vote_retraction" in _offered(page)
    page.click("#penalty-dialog [data-close-dialog]")
    # F19: seat 6 has left — warning and grey card only; the warning is recorded.
    page.click("#tile-6 [data-penalty-seat]")
    enabled = page.eval_on_selector_all(
        "#penalty-form input[name=do]", "rs => rs.filter(r => !r.disabled).map(r => r.value)"
    )
    assert enabled == ["warning", "grey_card"], enabled
    assert page.is_checked("#penalty-form input[value=warning]")
    seq = int(page.get_attribute("#console", "data-seq"))
    page.click("#penalty-form button[type=submit]")
    page.wait_for_selector(f'#console[data-seq="{seq + 1}"]')
    assert "после ухода из игры (F19)" in page.inner_text("#console")
