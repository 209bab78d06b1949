"""Issue 26: where a host under time pressure was betrayed by focus, a second clock or the mouse.

Each test drives a real Chromium as a host would and reads the stored log
(«Лог .json») as the truth of what was recorded. The scenarios are built by
the rules engine (tests/browser/test_console_safety.py's helpers).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser import test_console_safety as safety
from tests.browser.test_console_safety import day1, key_for, sign_in

host = safety.host  # the signed-in page fixture, shared with the console's safety tests

pytestmark = [pytest.mark.browser, pytest.mark.live]


def _import(live_manage, live_user, actions: list[dict[str, Any]]) -> int:
    log = json.dumps({"format": "mafia-protocol-log/1", "actions": actions})
    out = live_manage(
        "shell",
        "-c",
        "import json, sys; from django.contrib.auth import get_user_model; from games import services; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); "
        "print(services.game_import_log(host=u, data=json.loads(sys.stdin.read()), title='issue26').pk)",
        input=log,
    )
    return int(out.strip().splitlines()[-1])


# --- item 1: a cancelled penalty dialog never takes over Space and Enter --------------------------


@pytest.mark.parametrize("close", ["Escape", "cancel"])
def test_a_cancelled_penalty_dialog_leaves_space_and_enter_to_the_step(host, live_manage, live_user, close):
    game = _import(live_manage, live_user, day1().actions)
    page = host.open(game)
    host.start_clock()
    start = host.log()
    page.click("#tile-10 [data-penalty-seat]")
    page.wait_for_selector("#penalty-dialog[open]")
    if close == "Escape":
        page.keyboard.press("Escape")
    else:
        page.click("#penalty-dialog [data-close-dialog]")
    page.wait_for_selector("#penalty-dialog:not([open])", state="attached")
    # Focus is back on the step's primary control, not on the «⋯» that opened the dialog.
    # The dialog's close event is a task of its own, after the attribute is gone: its
    # handler moves the focus (26-1). A host's next key comes after it; the test waits.
    page.wait_for_function("() => document.activeElement.id === 'next-btn'", timeout=5000)
    host.ready()
    n = host.seq()
    page.keyboard.press(" ")  # «Пас»: the next speech
    host.wait_seq(n + 1)
    assert page.locator("#penalty-dialog[open]").count() == 0
    host.ready()
    # After the step change no stale focus target survives: Space, then Enter (a confirm reflex).
    assert not page.evaluate("document.activeElement.matches('[data-penalty-seat]')")
    page.keyboard.press(" ")
    host.wait_seq(n + 2)
    host.ready()
    assert page.locator("#penalty-dialog[open]").count() == 0
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    assert page.locator("#penalty-dialog[open]").count() == 0
    assert host.log() == [*start, {"do": "next"}, {"do": "next"}]


# --- item 7: the Discord link form keeps what the host typed across the panel's refreshes -------------


def test_the_discord_link_form_keeps_its_text_across_refreshes(host, live_manage, live_user):
    game = _import(live_manage, live_user, day1().actions)
    page = host.open(game)
    host.start_clock()
    page.wait_for_selector("#discord-panel .discord-settings")
    page.click("#discord-panel .discord-settings > summary")
    page.fill("#discord-panel input[name=guild_id]", "123456789012345678")
    page.fill("#discord-panel input[name=seat_3]", "@charlie")
    page.click("#console .banner")  # the host clicks elsewhere: the field loses focus
    host.ready()
    n = host.seq()
    page.keyboard.press(" ")  # the game moves on: the panel is re-fetched for the new revision
    host.wait_seq(n + 1)
    page.wait_for_selector(f"#discord-panel[data-seq='{n + 1}']")
    page.wait_for_timeout(5500)  # and its 5 s poll has run as well
    assert page.locator("#discord-panel .discord-settings").get_attribute("open") is not None
    assert page.input_value("#discord-panel input[name=guild_id]") == "123456789012345678"
    assert page.input_value("#discord-panel input[name=seat_3]") == "@charlie"


# --- item 2: one step and one clock at a time when the Don has left ---------------------------------


def don_voted_out_night2() -> list[dict[str, Any]]:
    """Night 2; the Don (seat 2) was voted out on Day 2; the blacks have just shot seat 8."""
    g = (
        day1()
        .until("mafia_shot")
        .do("shots", by={"2": 7, "3": 7, "4": 7})
        .do("next")
        .do("next")
        .do("best_move", seats=[2, 3])
    )
    g.until("speech")
    while g.state.phase == "night" or g.state.step != "speech" or g.state.day != 2:
        g.do("next")
    g.do("nominate", by=g.state.speaker, target=2).until("voting")
    g.do("votes", **{"for": {"2": list(g.state.at_table)}})
    g.until("mafia_shot").do("shots", by={"3": 8, "4": 8})
    assert g.state.step == "sheriff_check" and 2 not in g.state.at_table, (g.state.step, g.state.at_table)
    return g.actions


def visible_clocks(page) -> list[str]:
    return page.evaluate(
        """() => [...document.querySelectorAll('#console .clock, #console .ghost-clock')]
             .filter(el => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
             .map(el => el.textContent)"""
    )


def test_the_don_out_night_runs_one_clock_and_the_sheriff_gets_his_15_seconds(host, live_manage, live_user):
    game = _import(live_manage, live_user, don_voted_out_night2())
    page = host.open(game)
    page.wait_for_selector("#console [data-ghost-step='don']")
    # One step on screen: the Don's wake-up, with its own clock; the Sheriff's step is not shown yet.
    assert visible_clocks(page) in (["0:15"], ["0:14"]), visible_clocks(page)
    assert not page.locator("#console .panel-check").is_visible()
    page.wait_for_timeout(3000)  # the host lets the Don's 15 s run a while
    host.ready()
    page.keyboard.press(" ")
    page.wait_for_selector("#console [data-ghost-step]", state="detached")
    page.wait_for_selector("#console .clock.is-running")
    # The Sheriff's clock starts when his step starts: his full 15 s.
    assert visible_clocks(page) in (["0:15"], ["0:14"]), visible_clocks(page)
    assert page.locator("#console .panel-check").is_visible()
    assert "Шериф" in page.inner_text("#console .panel-check")


def sheriff_out_missed_night1() -> list[dict[str, Any]]:
    """The Sheriff (seat 1) disqualified on Day 1; Night 1's shots miss; the Don checks:
    the log is at Day 2's first speech, with no step for the Sheriff."""
    g = (
        day1()
        .do("disqualify", seat=1)
        .until("mafia_shot")
        .do("shots", by={"2": 7, "3": 7, "4": 8})
        .do("don_check", target=5)
    )
    assert (g.state.phase, g.state.day, g.state.step) == ("day", 2, "speech"), (g.state.phase, g.state.step)
    return g.actions


def test_after_a_missed_night_the_departed_sheriff_wakes_before_the_first_speech(host, live_manage, live_user):
    """N5/V12 after a miss (no last word, no best move): the Sheriff's 15 s
    wake-up is one step of its own before Day 2; the speech's minute is untouched."""
    game = _import(live_manage, live_user, sheriff_out_missed_night1())
    page = host.open(game)
    page.wait_for_selector("#console [data-ghost-step='sheriff']")
    assert visible_clocks(page) in (["0:15"], ["0:14"]), visible_clocks(page)
    host.ready()
    page.keyboard.press(" ")
    page.wait_for_selector("#console [data-ghost-step]", state="detached")
    page.wait_for_selector("#console .clock")
    assert visible_clocks(page) in (["1:00"], ["0:59"]), visible_clocks(page)


# --- item 3: a Space the console cannot take says why ------------------------------------------------


def test_a_space_while_the_last_action_is_being_recorded_says_why(host, live_manage, live_user):
    game = _import(live_manage, live_user, day1().actions)
    page = host.open(game)
    host.start_clock()
    start = host.log()

    # A slow network: each POST leaves the page 1.2 s after it was sent.
    page.evaluate(
        """() => { const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
                   XMLHttpRequest.prototype.open = function (m, u) { this._slow = m === 'POST'; return open.apply(this, arguments); };
                   XMLHttpRequest.prototype.send = function (b) { if (!this._slow) return send.call(this, b);
                     setTimeout(() => send.call(this, b), 1200); }; }"""
    )
    host.ready()
    n = host.seq()
    page.keyboard.press(" ")
    page.wait_for_timeout(300)
    page.keyboard.press(" ")  # the answer is not there yet: ignored, and the host is told
    page.wait_for_selector("#key-hint.is-refusal:not([hidden])")
    assert "ещё записывается" in page.inner_text("#key-hint")
    host.wait_seq(n + 1)
    page.wait_for_timeout(300)
    assert host.log() == [*start, {"do": "next"}]


# --- item 5: every penalty kind by keyboard, each with its reason ---------------------------------------


def test_every_penalty_kind_by_keyboard_with_a_reason(host, live_manage, live_user):
    game = _import(live_manage, live_user, day1().actions)
    page = host.open(game)
    start = len(host.log())

    def penalty(letter: str, seat: int, typed: str, confirm: bool = False) -> None:
        host.ready()
        n = host.seq()
        page.keyboard.press(letter)
        page.keyboard.press(key_for(seat))
        page.wait_for_selector("#penalty-dialog[open]")
        assert page.evaluate("document.activeElement.matches('[data-reason-filter]')")
        page.keyboard.type(typed)
        page.wait_for_timeout(450)  # the dialog's 400 ms guard
        page.keyboard.press("Enter")
        if confirm:
            # A removal asks once more, saying so; nothing is recorded yet.
            page.wait_for_function(
                "() => document.querySelector('[data-reason-note]').textContent.includes('Enter ещё раз')"
            )
            assert host.seq() == n
            page.wait_for_timeout(450)  # a reflex double Enter is not a confirmation
            page.keyboard.press("Enter")
        host.wait_seq(n + 1)
        page.wait_for_selector("#penalty-dialog:not([open])", state="attached")

    penalty("w", 5, "пение")
    penalty("g", 6, "религ")
    # Fouls 1 and 2 are recorded at once; the 3rd asks for its reason (F14).
    for _ in range(2):
        host.ready()
        n = host.seq()
        page.keyboard.press("f")
        page.keyboard.press("7")
        host.wait_seq(n + 1)
    penalty("f", 7, "споры")
    penalty("d", 8, "оскорбл", confirm=True)
    penalty("x", 9, "не может", confirm=True)
    got = [(a["do"], a["seat"], a.get("reason_code")) for a in host.log()[start:]]
    assert got == [
        ("warning", 5, "singing_poems_greetings"),
        ("grey_card", 6, "religious_set_phrase"),
        ("foul", 7, None),
        ("foul", 7, None),
        ("foul", 7, "arguing_with_host"),
        ("disqualify", 8, "insult"),
        ("remove", 9, "cannot_continue"),
    ], got
    # A removal cancelled at its confirmation records nothing.
    host.ready()
    n = host.seq()
    page.keyboard.press("x")
    page.keyboard.press("0")
    page.wait_for_selector("#penalty-dialog[open]")
    page.wait_for_timeout(450)
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    page.wait_for_timeout(400)
    assert host.seq() == n
    # ППК by keys: the game ends with the team's loss (W5).
    penalty("k", 3, "доказ", confirm=True)
    last = host.log()[-1]
    assert (
        last["do"] == "ppk"
        and last["seat"] == 3
        and last["team"] == "black"
        and last.get("reason_code") == "role_proof_out_of_game"
    ), last


# --- item 6: a tournament table's game: no second seating, no «сделать рейтинговой» ----------------------


def test_a_tournament_game_offers_no_draw_and_no_rated_switch(host, live_manage, live_user, live_server_url):
    out = live_manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; from games import services; "
        "from tournaments import services as ts; from tournaments.models import Stage, Table; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); "
        "t = ts.tournament_create(name='Кубок 26', organizer=u); st = ts.stage_create(tournament=t, name='Отбор'); "
        "r = ts.round_create(stage=st, tables=1); tb = r.tables.get(); "
        "g = services.game_create(host=u, title='Стол 1', players=[f'T{i}' for i in range(1, 11)]); "
        "tb.game = g; tb.host = u; tb.save(); print(g.pk)",
    )
    game = int(out.strip().splitlines()[-1])
    page = host.open(game)
    start = host.log()
    assert page.locator("#console button[name=seating]").count() == 0
    assert "задаёт турнир" in page.inner_text("#console [data-tournament-seating]")
    # Even a crafted request cannot record a second seating.
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    r = page.request.post(
        f"{live_server_url}/games/{game}/act/",
        form={
            "do": "seat",
            "players": "\n".join(f"X{i}" for i in range(1, 11)),
            "seating": "random",
            "expected_seq": str(host.seq()),
        },
        headers={"X-CSRFToken": csrf, "HX-Request": "true", "Referer": live_server_url + "/"},
    )
    assert r.status == 422 and "S1" in r.text()
    assert host.log() == start
    page.goto(f"{live_server_url}/games/")
    row = page.locator("tr", has=page.locator(f"a[href='/games/{game}/']"))
    assert row.locator("[data-tournament-game]").count() == 1
    assert "сделать рейтинговой" not in row.inner_text()


# --- item 8: a phone (390×844) shows the clock, the speaker and the seats together ---------------------


def _box(page, sel: str) -> dict[str, float]:
    box = page.locator(sel).first.bounding_box()
    assert box, sel
    return box


def _inside(box: dict[str, float], height: int = 844, width: int = 390) -> bool:
    return (
        box["y"] >= 0 and box["y"] + box["height"] <= height and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    )


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_a_phone_shows_the_clock_the_speaker_and_the_seats_on_one_screen(
    browser, live_server_url, live_manage, live_user
):
    speech = _import(live_manage, live_user, day1().do("nominate", by=1, target=5).do("next").actions)
    g = day1().do("nominate", by=1, target=3).do("next").do("nominate", by=2, target=5).until("voting")
    voting = _import(live_manage, live_user, g.actions)
    last = day1()
    while last.state.speaker != 10:
        last.do("next")
    before_night = _import(live_manage, live_user, last.actions)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")
    try:
        phone = ctx.new_page()
        sign_in(phone, live_server_url, live_user)
        phone.goto(f"{live_server_url}/games/{speech}/")
        phone.wait_for_selector("#console")
        assert _box(phone, ".topbar")["height"] <= 60, _box(phone, ".topbar")
        # A speech: the clock, the speaker's tile and every seat tile on the first screen.
        for sel in ("#console .clock", "#console .tile.is-speaker", "#tile-1", "#tile-10", "#next-btn", "#undo-btn"):
            assert _inside(_box(phone, sel)), (sel, _box(phone, sel))
        assert not _overlap(_box(phone, "#next-btn"), _box(phone, "#undo-btn"))
        # A nomination's «Принято» is in view.
        phone.click("#tile-7 .btn-nominate")
        phone.wait_for_selector("#console .flash-ok")
        assert _inside(_box(phone, "#console .flash-ok")), _box(phone, "#console .flash-ok")
        # A vote: the clock area, the vote's «итог», and the seats of the first row.
        phone.goto(f"{live_server_url}/games/{voting}/")
        phone.wait_for_selector("#console .vote-form")
        for sel in ("#console .vote-form [data-submit]", "#console .vote-row.is-active", "#undo-btn"):
            assert _inside(_box(phone, sel)), (sel, _box(phone, sel))
        assert not _overlap(_box(phone, "#console .vote-form [data-submit]"), _box(phone, "#undo-btn"))
        # After a phase change the page is scrolled to the banner and the clock.
        phone.goto(f"{live_server_url}/games/{before_night}/")
        phone.wait_for_selector("#next-btn")
        phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        phone.click("#next-btn")
        phone.wait_for_selector("#console.tone-night")
        phone.wait_for_timeout(600)
        for sel in ("#console .banner", "#console .clock"):
            assert _inside(_box(phone, sel)), (sel, _box(phone, sel))
    finally:
        ctx.close()
