"""Issue 26, items 4 and 9: clocks that start after the host has spoken, and the polish.

Driven in a real Chromium as a host would; the stored log («Лог .json») is the
truth of what was recorded.
"""

from __future__ import annotations

import pytest

from tests.browser import test_console_safety as safety
from tests.browser.test_console_keys26 import _import
from tests.browser.test_console_safety import day1

host = safety.host

pytestmark = [pytest.mark.browser, pytest.mark.live]


def clock(page) -> tuple[str, str]:
    return tuple(
        page.evaluate(
            "() => { const c = document.querySelector('#console .clock'); return [c.textContent.trim(), c.dataset.running]; }"
        )
    )


def key_to_screen(page, key: str, selector: str) -> float:
    """Press `key`; the milliseconds from its keydown to `selector` on screen (measured in the page)."""
    page.evaluate(
        """(sel) => { window.__k2s = new Promise(resolve => { let t0 = null;
             document.addEventListener('keydown', () => { t0 = performance.now(); }, {once: true, capture: true});
             const obs = new MutationObserver(() => { if (t0 !== null && document.querySelector(sel)) { obs.disconnect(); resolve(performance.now() - t0); } });
             obs.observe(document.body, {childList: true, subtree: true, attributes: true}); }); }""",
        selector,
    )
    page.keyboard.press(key)
    ms = float(page.evaluate("window.__k2s"))
    print(f"\nkey {key!r} → {selector}: {ms:.0f} ms")
    return ms


# --- item 4: «В городе ночь» / «Доброе утро» first, then the clock --------------------------------------


def test_after_the_night_falls_the_clock_waits_full_until_space(host, live_manage, live_user):
    g = day1()
    while g.state.speaker != 10:
        g.do("next")
    game = _import(live_manage, live_user, g.actions)
    page = host.open(game)
    host.start_clock()  # seat 10's speech (he is not the Day's first)
    start = host.log()
    host.ready()
    n = host.seq()
    key_to_screen(page, " ", "#console.step-mafia_shot[data-clock-waits]")  # «Стоп, спасибо»: the Night
    host.wait_seq(n + 1)
    assert "В городе ночь" in page.inner_text("#console [data-clock-waits-note]")
    page.wait_for_timeout(1600)  # the host says «В городе ночь»; the blacks' 15 s do not run
    assert clock(page) == ("0:15", "0")
    host.ready()
    key_to_screen(page, " ", "#console .clock.is-running")
    assert page.locator("#console[data-clock-waits]").count() == 0
    page.wait_for_timeout(1300)
    assert clock(page)[0] in ("0:14", "0:13"), clock(page)
    # The start is clock state: the log has the Night's `next` and nothing more.
    assert host.log() == [*start, {"do": "next"}]
    # A second Space is the step's as usual: on the shot, never a miss.
    host.ready()
    page.keyboard.press(" ")
    page.wait_for_selector("#key-hint.is-refusal:not([hidden])")
    assert "Shift" in page.inner_text("#key-hint")
    assert host.log() == [*start, {"do": "next"}]


def test_the_days_first_speech_waits_for_good_morning_and_so_does_the_board(
    host, live_manage, live_user, live_server_url
):
    g = day1().until("mafia_shot").do("next")  # Night 1: a miss
    assert g.state.step == "don_check"
    game = _import(live_manage, live_user, g.actions)
    page = host.open(game)
    board = page.context.new_page()
    board.goto(f"{live_server_url}/games/{game}/board/")
    start = host.log()

    # Item 9: the Don's check is a digit, then Enter; another digit corrects the first.
    host.ready()
    key_to_screen(page, "5", '#console .panel-check [data-pick-seat="5"].is-picked')
    page.keyboard.press("6")
    page.wait_for_selector('#console .panel-check [data-pick-seat="6"].is-picked')
    assert page.locator("#console .panel-check .is-picked").count() == 1
    page.wait_for_timeout(300)
    assert host.log() == start  # nothing recorded on a digit
    n = host.seq()
    key_to_screen(page, "Enter", f'#console[data-seq="{n + 1}"]')
    assert host.log()[-1] == {"do": "don_check", "target": 6}
    # The Sheriff's check alike: Enter before a digit records nothing and says why.
    host.ready()
    page.keyboard.press("Enter")
    page.wait_for_selector("#key-hint.is-refusal:not([hidden])")
    assert "N4" in page.inner_text("#key-hint")
    page.keyboard.press("3")
    page.wait_for_selector('#console .panel-check [data-pick-seat="3"].is-picked')
    page.keyboard.press("Enter")
    host.wait_seq(n + 2)
    assert host.log()[-1] == {"do": "sheriff_check", "target": 3}

    # The morning after a miss: Day 2's first speech, its minute full and paused.
    page.wait_for_selector("#console.step-speech[data-clock-waits]")
    assert "Доброе утро" in page.inner_text("#console [data-clock-waits-note]")
    page.wait_for_timeout(1600)
    assert clock(page) == ("1:00", "0")
    # The public board is still in the Night: its morning comes with the clock.
    board.reload()
    assert "Ночь 1" in board.inner_text("#board-head")
    assert board.locator("#board-clock.has-clock").count() == 0
    host.ready()
    key_to_screen(page, " ", "#console .clock.is-running")
    board.wait_for_selector('#board-clock.has-clock[data-running="1"]', timeout=15_000)
    assert "Ночь 1" not in board.inner_text("#board-head")
    page.wait_for_timeout(1300)
    assert clock(page)[0] in ("0:59", "0:58"), clock(page)
    # A second Space ends the speech as usual.
    host.ready()
    n = host.seq()
    key_to_screen(page, " ", f'#console[data-seq="{n + 1}"]')
    assert host.log() == [
        *start,
        {"do": "don_check", "target": 6},
        {"do": "sheriff_check", "target": 3},
        {"do": "next"},
    ]


# --- item 9: «Трансляция и протокол» does not push the console down --------------------------------------


def _box(page, sel: str) -> dict[str, float]:
    box = page.locator(sel).first.bounding_box()
    assert box, sel
    return box


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_the_share_menu_opens_without_pushing_or_covering_the_console(host, live_manage, live_user):
    game = _import(live_manage, live_user, day1().do("nominate", by=1, target=5).actions)
    page = host.open(game)
    key = ("#console", "#console .banner", "#console .clock", "#next-btn", "#undo-btn", "#tile-1", "#tile-10")
    before = {sel: _box(page, sel) for sel in key}
    page.click(".menu > summary")
    page.wait_for_selector(".menu[open] #share")
    after = {sel: _box(page, sel) for sel in key}
    for sel in key:
        assert abs(after[sel]["y"] - before[sel]["y"]) < 1 and abs(after[sel]["x"] - before[sel]["x"]) < 1, (
            sel,
            before[sel],
            after[sel],
        )
    body = _box(page, ".menu[open] .menu-body")
    assert body["y"] >= 0 and body["y"] + body["height"] <= 860 and body["x"] + body["width"] <= 1366, body
    for sel in ("#console .banner", "#console .clock", "#next-btn", "#undo-btn"):
        assert not _overlap(body, after[sel]), (sel, body, after[sel])
    # Its links are there to copy, and Esc closes it.
    assert page.locator(".menu[open] #share [data-copy]").count() >= 1
    page.keyboard.press("Escape")
    page.wait_for_selector(".menu[open]", state="detached")


# --- item 9: /favicon.ico -------------------------------------------------------------------------------


def test_favicon_ico_is_served(page, live_server_url):
    r = page.request.get(f"{live_server_url}/favicon.ico")
    assert r.ok, r.status
    assert "svg" in r.headers.get("content-type", ""), r.headers
    assert "<svg" in r.text()
