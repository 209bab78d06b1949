"""The host console under live pressure (issues 12 and 13), in a real Chromium.

Each test drives the page by keyboard and mouse as a host would; the game's
stored log (the «Лог .json» export) is the truth of what was recorded. The
games are built by the rules engine and imported in one go (one process for
the whole module), so the tests share one server and one browser.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from games.rules import apply_in_place, new_state

pytestmark = [pytest.mark.browser, pytest.mark.live]

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
# Sheriff 1, Don 2, Mafia 3 and 4.
SETUP = [{"do": "seat", "players": PLAYERS}, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}]


class Log:
    """A log built through the engine, so that every scenario is a legal game."""

    def __init__(self) -> None:
        self.state = new_state()
        self.actions: list[dict[str, Any]] = []

    def do(self, do: str, **kw: Any) -> Log:
        action = {"do": do, **kw}
        apply_in_place(self.state, action)
        self.actions.append(action)
        return self

    def setup(self) -> Log:
        for a in SETUP:
            self.do(**a)
        return self

    def until(self, step: str) -> Log:
        while self.state.step != step:
            self.do("next")
        return self


def day1() -> Log:
    return Log().setup().until("speech")


def scenarios() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    # The last speech of Day 1, nobody nominated: the next step is the Night's shot.
    g = day1()
    while g.state.speaker != 10:
        g.do("next")
    out["last_speech"] = g.actions
    out["day1"] = day1().actions
    # Night 1: the three blacks name seat 7; no checks; the best move of seat 7.
    g = day1().until("mafia_shot").do("shots", by={"2": 7, "3": 7, "4": 7}).do("next").do("next")
    assert g.state.step == "best_move"
    out["best_move"] = g.actions
    # Day 2: seat 7 was shot in Night 1 (he is not at the table).
    g = (
        day1()
        .until("mafia_shot")
        .do("shots", by={"2": 7, "3": 7, "4": 7})
        .do("next")
        .do("next")
        .do("best_move", seats=[2, 3, 4])
    )
    g.until("speech")
    out["day2"] = g.actions
    # Day 1, seat 5 has three fouls: a 4th one removes him and cancels the vote (F7).
    g = day1().do("nominate", by=1, target=6).do("foul", seat=5).do("foul", seat=5).do("foul", seat=5)
    out["three_fouls"] = g.actions
    # The Don (2) is disqualified on Day 1; in Night 1 the blacks shoot 7.
    g = day1().do("disqualify", seat=2).until("mafia_shot").do("shots", by={"3": 7, "4": 7})
    assert g.state.step == "sheriff_check", g.state.step
    out["don_left"] = g.actions
    # Day 1 vote: 1 nominated 3, 2 nominated 5.
    g = day1().do("nominate", by=1, target=3).do("next").do("nominate", by=2, target=5).until("voting")
    out["voting"] = g.actions
    # Setup: seated, no roles yet.
    out["seated"] = [SETUP[0]]
    # The morning after Night 1: seat 7's last word.
    g = (
        day1()
        .until("mafia_shot")
        .do("shots", by={"2": 7, "3": 7, "4": 7})
        .do("next")
        .do("next")
        .do("best_move", seats=[2, 3, 4])
    )
    assert g.state.step == "last_word" and g.state.phase == "night"
    out["morning"] = g.actions
    out["finished"] = whole_game()
    return out


@pytest.fixture(scope="module")
def games(live_manage, live_user) -> dict[str, int]:
    logs = json.dumps({name: {"format": "mafia-protocol-log/1", "actions": a} for name, a in scenarios().items()})
    out = live_manage(
        "shell",
        "-c",
        "import json, sys; from django.contrib.auth import get_user_model; from games import services; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); logs = json.loads(sys.stdin.read()); "
        "print(json.dumps({k: services.game_import_log(host=u, data=v, title=k).pk for k, v in logs.items()}))",
        input=logs,
    )
    return json.loads(out.strip().splitlines()[-1])


def fresh(live_manage, live_user, name: str) -> int:
    """A new copy of a scenario (for a test that changes it)."""
    log = json.dumps({"format": "mafia-protocol-log/1", "actions": scenarios()[name]})
    out = live_manage(
        "shell",
        "-c",
        "import json, sys; from django.contrib.auth import get_user_model; from games import services; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); "
        "print(services.game_import_log(host=u, data=json.loads(sys.stdin.read()), title='copy').pk)",
        input=log,
    )
    return int(out.strip().splitlines()[-1])


# --- page helpers ------------------------------------------------------------------------


def sign_in(page, url: str, user: tuple[str, str]) -> None:
    page.goto(url + "/accounts/login/")
    page.fill("#login-form input[name=username]", user[0])
    page.fill("#login-form input[name=password]", user[1])
    page.click("#login-submit")
    page.wait_for_url(re.compile(r".*/games/$"))


@pytest.fixture
def host(page, live_server_url, live_user):
    """The signed-in page; `host.open(game_id)` opens a console."""
    sign_in(page, live_server_url, live_user)

    class Host:
        def __init__(self) -> None:
            self.page = page
            self.game = 0

        def open(self, game_id: int) -> Any:
            self.game = game_id
            page.goto(f"{live_server_url}/games/{game_id}/")
            page.wait_for_selector("#console")
            return page

        def log(self) -> list[dict[str, Any]]:
            r = page.request.get(f"{live_server_url}/games/{self.game}/log.json")
            assert r.ok, r.status
            return r.json()["actions"]

        def seq(self) -> int:
            return int(page.get_attribute("#console", "data-seq"))

        def wait_seq(self, n: int) -> None:
            page.wait_for_selector(f'#console[data-seq="{n}"]')

        def ready(self) -> None:
            """The page is free and the new step's key guard is over."""
            page.wait_for_function("() => !window.consoleBusy && !document.body.classList.contains('keys-settling')")

        def start_clock(self) -> None:
            """The host's Space after «В городе ночь» / «Доброе утро»: the waiting clock starts (issue 26-4)."""
            if not page.locator("#console[data-clock-waits]").count():
                return
            self.ready()
            page.keyboard.press(" ")
            page.wait_for_selector("#console[data-clock-waits]", state="detached")
            page.wait_for_selector("#console .clock.is-running")
            self.ready()

    return Host()


def fourth_foul(page, seat: int) -> None:
    """F + seat on a 3-foul player removes him (F7): the dialog asks twice (issue 26-5)."""
    page.keyboard.press("f")
    page.keyboard.press(key_for(seat))
    page.wait_for_selector("#penalty-dialog[open]")
    for _ in range(2):
        page.wait_for_timeout(450)  # the dialog's 400 ms guard
        page.keyboard.press("Enter")


def key_for(seat: int) -> str:
    return "0" if seat == 10 else str(seat)


# --- issue 12, item 1: the primary key never records a choice not given -------------------


def test_double_space_at_the_end_of_the_last_word_records_no_miss(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "last_speech")
    page = host.open(game)
    before = host.log()
    assert "Речь №10" in page.inner_text("#console .banner")
    page.keyboard.press(" ")
    page.wait_for_timeout(120)
    page.keyboard.press(" ")
    page.wait_for_selector("#console.step-mafia_shot")
    page.wait_for_timeout(700)
    log = host.log()
    assert log[len(before) :] == [{"do": "next"}], log[len(before) :]
    # «В городе ночь»: the first Space starts the shot's clock (issue 26-4), recording nothing …
    host.start_clock()
    assert len(host.log()) == len(before) + 1
    # … and Space on the Night's shot step never records a miss: it says what to do.
    page.keyboard.press(" ")
    page.wait_for_selector("#key-hint:not([hidden])")
    assert "Shift" in page.inner_text("#key-hint") and "N2" in page.inner_text("#key-hint")
    # «Записать выстрел» waits for the blacks' choices: Enter is refused too.
    assert page.is_disabled("#console .shots-form [data-submit]")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert len(host.log()) == len(before) + 1
    # The deliberate control: Shift+Space, and a confirmation (declined, then accepted).
    page.once("dialog", lambda d: d.dismiss())
    page.keyboard.press("Shift+Space")
    page.wait_for_timeout(400)
    assert len(host.log()) == len(before) + 1
    messages: list[str] = []
    page.once("dialog", lambda d: (messages.append(d.message), d.accept()))
    n = host.seq()
    page.keyboard.press("Shift+Space")
    host.wait_seq(n + 1)
    assert "промах" in messages[0]
    assert host.log()[-1] == {"do": "next"} and len(host.log()) == len(before) + 2
    assert "промах" in page.inner_text("#console .protocol")


def test_auto_repeat_and_a_key_right_after_a_step_change_do_nothing(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "day1")
    page = host.open(game)
    host.start_clock()
    start = len(host.log())
    # A held Space: one `next`, not a run of them (auto-repeat never acts).
    page.keyboard.down(" ")
    page.wait_for_timeout(50)
    page.evaluate("document.dispatchEvent(new KeyboardEvent('keydown', {key: ' ', repeat: true, bubbles: true}))")
    page.keyboard.up(" ")
    page.wait_for_selector("#console .banner:has-text('Речь №2')")
    page.wait_for_timeout(500)
    assert len(host.log()) == start + 1
    # Space within 400 ms after the step changed is dropped, with a word: the key
    # is sent by the page the moment the new step is in place (no test timing).
    page.evaluate(
        """() => { window._settled = new Promise(resolve => {
            const obs = new MutationObserver(() => {
                const b = document.querySelector('#console .banner');
                if (!b || !b.textContent.includes('Речь №3')) return;
                obs.disconnect();
                const guarded = document.body.classList.contains('keys-settling');
                document.dispatchEvent(new KeyboardEvent('keydown', {key: ' ', bubbles: true, cancelable: true}));
                resolve(guarded);
            });
            obs.observe(document.body, {childList: true, subtree: true});
        }); }"""
    )
    page.keyboard.press(" ")
    assert page.evaluate("window._settled") is True
    page.wait_for_timeout(600)
    assert len(host.log()) == start + 2
    assert "Речь №3" in page.inner_text("#console .banner")


# --- item 2: the penalty dialog keeps the kind chosen ------------------------------------------


def test_a_warning_stays_a_warning_whatever_reason_is_picked(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "day1")
    page = host.open(game)
    page.click("#tile-4 [data-penalty-seat]")
    page.check("#penalty-form input[value=warning]")
    visible = page.eval_on_selector_all(
        "#penalty-form select[name=reason] option",
        "os => os.filter(o => o.value && !o.disabled).map(o => o.dataset.penalty)",
    )
    assert visible and set(visible) == {"warning"}, visible
    reason = page.eval_on_selector(
        "#penalty-form select[name=reason]", "s => [...s.options].find(o => o.value && !o.disabled).value"
    )
    page.select_option("#penalty-form select[name=reason]", reason)
    assert page.is_checked("#penalty-form input[value=warning]")
    n = host.seq()
    page.click("#penalty-form button[type=submit]")
    host.wait_seq(n + 1)
    last = host.log()[-1]
    assert last["do"] == "warning" and last["seat"] == 4, last
    # The focus is back on this seat's ⋯ … only for a keyboard user; here, the step's primary.
    assert page.evaluate("document.activeElement.id") == "next-btn"


# --- item 3 / 13-1: a focused control gets Space and Enter as the browser gives them ---------


def test_space_on_a_focused_control_activates_it_not_the_step(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "day1")
    page = host.open(game)
    start = len(host.log())
    # «+ фол» reached with Tab: Space gives the foul, never the end of the speech.
    page.focus("#tile-6 .btn-foul")
    n = host.seq()
    page.keyboard.press(" ")
    host.wait_seq(n + 1)
    assert host.log()[start:] == [{"do": "foul", "seat": 6}]
    # 13-2: the focus came back to the control used.
    assert page.evaluate("document.activeElement.matches('#tile-6 .btn-foul')")
    # «⌨ ?» focused: Space opens the help, records nothing.
    page.focus("[data-open-help]")
    page.keyboard.press(" ")
    page.wait_for_selector("#help-dialog[open]")
    assert page.get_attribute("#help-dialog", "aria-labelledby") == "help-dialog-title"
    page.keyboard.press("Escape")
    # The dialog's close event is a task of its own: its handler hands the focus to the
    # step's primary control (26-1). A host's next Tab comes long after; the test waits for it.
    # (An arrow function, not a bare expression: Playwright polls a bare expression
    # through eval, which the page's CSP forbids; the first check alone never evals.)
    page.wait_for_function("() => !document.querySelector('dialog[open]') && document.activeElement.id === 'next-btn'")
    # The menu's summary: Space opens it, records nothing.
    page.focus(".menu > summary")
    page.keyboard.press(" ")
    page.wait_for_selector(".menu[open]")
    page.keyboard.press(" ")
    page.wait_for_timeout(400)
    assert host.log()[start:] == [{"do": "foul", "seat": 6}]
    assert "Речь №1" in page.inner_text("#console .banner")


def test_enter_after_a_mouse_click_on_a_vote_label_submits_the_vote(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "voting")
    page = host.open(game)
    row = '#console .vote-row[data-candidate="3"]'
    page.click(f"{row} [data-activate]")
    for v in (1, 2, 4):
        page.click(f'{row} label[data-pick-seat="{v}"]')
    n = host.seq()
    page.keyboard.press("Enter")
    host.wait_seq(n + 1)
    last = host.log()[-1]
    assert last["do"] == "votes" and last["for"]["3"] == [1, 2, 4], last


def test_enter_after_a_mouse_click_on_a_role_button_saves_the_roles(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "seated")
    page = host.open(game)
    for k in ("1", "2", "3", "4"):
        page.keyboard.press(k)
    page.click("#console .slot[data-slot='don']")  # a mouse click on a role button …
    page.keyboard.press("2")
    n = host.seq()
    page.keyboard.press("Enter")  # … then Enter: the step's «Записать роли», as labelled
    host.wait_seq(n + 1)
    assert host.log()[-1] == {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}


# --- item 4: best move, at most three, human words --------------------------------------------


def test_best_move_digits_stop_at_three_and_say_why(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "best_move")
    page = host.open(game)
    assert page.is_disabled("#console .best-form [data-submit]")  # «Принято» needs the seats
    for k in ("2", "3", "4", "5"):
        page.keyboard.press(k)
    assert page.locator("#console .best-form input:checked").count() == 3
    assert not page.is_checked('#console .best-form input[value="5"]')
    hint = page.inner_text("#key-hint")
    assert "N6" in hint and "seats" not in hint
    n = host.seq()
    page.keyboard.press("Enter")
    host.wait_seq(n + 1)
    last = host.log()[-1]
    assert last["do"] == "best_move" and last["seats"] == [2, 3, 4], last


def test_a_malformed_best_move_is_refused_in_human_words(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "best_move")
    page = host.open(game)
    # Four seats forced past the page (a stale or tampered form): the server refuses.
    page.evaluate(
        "document.querySelectorAll('#console .best-form input[type=checkbox]').forEach((c, i) => { if (i < 4) { c.disabled = false; c.checked = true; } })"
    )
    page.evaluate("document.querySelector('#console .best-form [data-submit]').disabled = false")
    page.click("#console .best-form [data-submit]")
    page.wait_for_selector("#console .flash-error")
    text = page.inner_text("#console .flash-error")
    assert "Лучший ход" in text and "seats" not in text and "Поле" not in text, text


# --- item 8 / 13-4: refused keys say why; a repeated digit is a repeat -------------------------


def test_refused_keys_name_their_rule_and_a_repeated_digit_is_ignored(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "day1")
    page = host.open(game)
    start = len(host.log())
    n = host.seq()
    page.keyboard.press("3")  # seat 1 nominates 3: «Принято»
    host.wait_seq(n + 1)
    page.keyboard.press("3")  # the same digit again: ignored, with a word
    page.wait_for_selector("#key-hint.is-refusal:not([hidden])")
    assert "D4" in page.inner_text("#key-hint")
    page.keyboard.press("4")  # a second new candidate: the engine refuses (D4)
    page.wait_for_selector("#console .flash-error")
    assert "D4" in page.inner_text("#console .flash-error")
    assert host.log()[start:] == [{"do": "nominate", "by": 1, "target": 3}]


def test_a_foul_key_on_a_seat_not_at_the_table_says_why(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "day2")
    page = host.open(game)
    start = len(host.log())
    page.keyboard.press("f")
    page.keyboard.press("7")  # seat 7 was shot in Night 1
    page.wait_for_selector("#console .flash-error")
    assert re.search(r"F\d+", page.inner_text("#console .flash-error"))
    assert len(host.log()) == start


# --- 13-2, 13-3, 13-5: focus, names, announcements ------------------------------------------------


def test_focus_stays_put_skip_link_names_and_live_region(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "voting")
    page = host.open(game)
    # The skip link is the first Tab stop and lands on the step's primary control.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.skip-link')")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.matches('#console .vote-form [data-submit]')")
    # Every vote seat is named by its candidate and voter.
    assert page.get_by_role("radio", name="за №5: №2").count() == 1
    # Keyboard focus on a seat radio is visible on its label.
    page.focus('#console .vote-row[data-candidate="3"] label[data-pick-seat="2"] input')
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    outline = page.eval_on_selector(
        '#console .vote-row[data-candidate="3"] label[data-pick-seat="2"]', "l => getComputedStyle(l).outlineStyle"
    )
    assert outline == "solid"
    # A foul by keys while the focus is on that radio: the focus returns to it.
    n = host.seq()
    page.keyboard.press("f")
    page.keyboard.press("8")
    host.wait_seq(n + 1)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "за №3: №2"
    # The confirmation is announced from the live region outside #console.
    page.wait_for_function("() => document.getElementById('console-live').textContent.includes('№8')")
    assert page.evaluate("!document.getElementById('console').contains(document.getElementById('console-live'))")
    assert page.get_attribute("#penalty-dialog", "aria-labelledby") == "penalty-dialog-title"


# --- item 5: a removal that cancels the vote is shown at once ------------------------------------


def test_a_fourth_foul_shows_the_cancelled_vote_at_once(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "three_fouls")
    page = host.open(game)
    assert page.locator("#console .banner-cancel").count() == 0
    n = host.seq()
    fourth_foul(page, 5)
    host.wait_seq(n + 1)
    banner = page.inner_text("#console .banner-cancel")
    assert "дня 1" in banner and "F7" in banner
    assert page.locator("#console .chip-nominee.is-cancelled").count() == 1
    assert "Речь №1" in page.inner_text("#console .banner")  # the speech goes on


# --- item 6: a captain who left still wakes up in the script ----------------------------------------


def test_the_don_who_left_still_wakes_up_for_15_seconds(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "don_left")
    page = host.open(game)
    start = host.log()
    page.wait_for_selector("#console [data-ghost-step='don']")
    assert "Просыпается Дон" in page.inner_text("#console .ghost-step")
    assert page.inner_text("#console .ghost-clock") in ("0:15", "0:14")
    # Digits wait until the script step is passed; Space passes it and records nothing.
    page.keyboard.press("5")
    page.wait_for_timeout(300)
    assert host.log() == start
    host.ready()
    page.keyboard.press(" ")
    page.wait_for_selector("#console [data-ghost-step]", state="detached")
    assert "Шериф" in page.inner_text("#console .panel-check")
    page.reload()  # passed once, not shown again
    page.wait_for_selector("#console")
    assert page.locator("#console [data-ghost-step]").count() == 0
    host.ready()
    n = host.seq()
    page.keyboard.press("5")
    page.keyboard.press("Enter")  # a check is its digit, then Enter (issue 26-9)
    host.wait_seq(n + 1)
    assert host.log() == [*start, {"do": "sheriff_check", "target": 5}]


# --- issue 11: the console never lies about the outcome -----------------------------------------------


def test_a_lost_answer_is_checked_against_the_revision(host, games, live_manage, live_user):
    game = fresh(live_manage, live_user, "day1")
    page = host.open(game)
    host.start_clock()
    n = host.seq()

    # The server records the action, the answer is lost on the way back.
    def recorded_but_lost(route):
        route.fetch()
        route.abort("connectionreset")

    page.route("**/act/", recorded_but_lost)
    page.keyboard.press(" ")
    page.wait_for_selector("#console .flash[data-outcome]")
    page.unroute("**/act/")
    assert page.get_attribute("#console .flash[data-outcome]", "data-outcome") == "recorded"
    assert f"#{n + 1}" in page.inner_text("#console .flash[data-outcome]")
    assert host.seq() == n + 1 and "Речь №2" in page.inner_text("#console .banner")

    # The request never reached the server.
    page.route("**/act/", lambda route: route.abort("connectionreset"))
    host.ready()
    page.keyboard.press(" ")
    page.wait_for_selector("#console .flash[data-outcome='not-recorded']")
    page.unroute("**/act/")
    assert "не записано" in page.inner_text("#console .flash[data-outcome]")
    assert host.seq() == n + 1

    # A 500 after the action was stored: recorded.
    def stored_then_500(route):
        route.fetch()
        route.fulfill(status=500, body="boom")

    page.route("**/act/", stored_then_500)
    host.ready()
    page.keyboard.press(" ")
    page.wait_for_selector(f"#console[data-seq='{n + 2}'] .flash[data-outcome='recorded']")
    page.unroute("**/act/")
    assert [a["do"] for a in host.log()[-2:]] == ["next", "next"]


# --- a whole game by keyboard alone, keys 0–150 ms apart -------------------------------------------------


def whole_game() -> list[dict[str, Any]]:
    """A full game a host plays by keys: nominations, a foul, votes, kills, checks, a best move."""
    g = Log()
    g.do("seat", players=PLAYERS)
    g.do("roles", sheriff=1, don=2, mafia=[3, 4])
    g.do("start").until("speech")
    g.do("nominate", by=1, target=3).do("next").do("nominate", by=2, target=5).do("nominate", by=2, target=3)
    g.do("foul", seat=6)
    g.until("voting").do("votes", **{"for": {"3": [1, 2, 6, 7, 8, 9], "5": [3, 4, 5, 10]}})
    victims = iter([8, 9, 10, 7, 6, 5])
    while g.state.status == "running":
        s = g.state
        blacks = [b for b in (2, 3, 4) if b in s.at_table]
        if s.step == "speech" and s.speaker == 1 and s.day and s.day > 1 and 2 in s.at_table and 2 not in s.nominees:
            g.do("nominate", by=1, target=2)
        elif s.step == "voting":
            g.do("votes", **{"for": {str(s.nominees[0]): [v for v in s.at_table if v not in blacks]}})
        elif s.step == "mafia_shot":
            target = next(v for v in victims if v in s.at_table)
            g.do("shots", by={str(b): target for b in blacks})
        elif s.step == "don_check":
            g.do("don_check", target=1)
        elif s.step == "sheriff_check":
            g.do("sheriff_check", target=next(t for t in (2, 3, 4, 5) if t in s.at_table))
        elif s.step == "best_move":
            g.do("best_move", seats=[2, 4])
        else:
            g.do("next")
    assert g.state.winner, g.state.status
    return g.actions


def test_a_whole_game_by_keyboard_alone(host, games, live_manage, live_user):
    intended = whole_game()
    rng = random.Random(12)
    game = fresh(live_manage, live_user, "seated")
    page = host.open(game)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def press(k: str) -> None:
        page.wait_for_timeout(rng.randint(0, 150))
        page.keyboard.press(k)

    ghosts = 0
    waits = 0
    for action in intended[1:]:
        n = host.seq()
        host.ready()
        if page.locator("#console [data-ghost-step]").count():
            # A captain who left: his 15 s in the script, passed with Space, not logged.
            ghosts += 1
            press(" ")
            page.wait_for_selector("#console [data-ghost-step]", state="detached")
            host.ready()
        if page.locator("#console[data-clock-waits]").count():
            # «В городе ночь» / «Доброе утро» said: Space starts the step's clock (issue 26-4), not logged.
            waits += 1
            press(" ")
            page.wait_for_selector("#console[data-clock-waits]", state="detached")
            host.ready()
            assert host.seq() == n
        do = action["do"]
        if do == "roles":
            for s in (action["sheriff"], action["don"], *action["mafia"]):
                press(key_for(s))
            press("Enter")
        elif do in ("start", "next"):
            press(" ")
        elif do == "nominate":
            press(key_for(action["target"]))
        elif do == "foul":
            press("f")
            press(key_for(action["seat"]))
        elif do == "votes":
            for i, voters in enumerate(action["for"].values()):
                if i:
                    press("ArrowDown")
                for v in voters:
                    press(key_for(v))
            press("Enter")
        elif do == "shots":
            for target in action["by"].values():
                press(key_for(target))  # the next black's row becomes active
            press("Enter")
        elif do in ("don_check", "sheriff_check"):
            press(key_for(action["target"]))
            press("Enter")  # a check is its digit, then Enter (issue 26-9)
        elif do == "best_move":
            for s in action["seats"]:
                press(key_for(s))
            press("Enter")
        else:  # pragma: no cover
            raise AssertionError(do)
        host.wait_seq(n + 1)
        # Focus never falls back to the top of the page (13, "done when").
        assert page.evaluate("document.activeElement !== document.body"), action
    page.wait_for_timeout(300)
    assert host.log() == intended
    assert ghosts >= 1  # the Don left on Day 2: later Nights wake him up in the script
    # Every Night's first step and every morning waited for the host's Space (N0 and Day 1 included).
    nights = sum(1 for a in intended if a["do"] == "shots") + 1
    assert waits >= 2 * nights, (waits, nights)
    assert errors == []


# --- item 7: the board's header; item 10: a phone ---------------------------------------------------


def test_the_board_header_names_the_winner_above_the_fold(host, games, browser, live_server_url):
    for width, height in ((1440, 900), (390, 844)):
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU")
        try:
            board = ctx.new_page()
            board.goto(f"{live_server_url}/games/{games['finished']}/board/")
            head = board.inner_text("#board-head")
            assert re.search(r"Победа (красных|чёрных)|Ничья", head), head
            assert head.count("Игра окончена") <= 1, head
            # The board swaps its header in when its first live frame arrives: a
            # box measured while the old header is being replaced is None (seen
            # once under CI's load), so measure the header that is there once visible.
            status = board.locator("#board-head .board-status")
            box = None
            for _attempt in range(3):
                status.wait_for(state="visible")
                box = status.bounding_box()
                if box is not None:
                    break
            assert box and box["y"] + box["height"] <= height, (width, box)
            assert board.evaluate("document.documentElement.scrollWidth") <= width + 1 or width > 400
        finally:
            ctx.close()
    # The morning has one name: «Утро», as on the console.
    page = host.open(games["morning"])
    assert page.text_content("#console .banner-phase").strip() == "Утро"
    # The board's morning comes with its clock, on the host's Space after «Доброе утро» (issue 26-4).
    host.start_clock()
    page.goto(f"{live_server_url}/games/{games['morning']}/board/")
    head = page.text_content("#board-head")
    assert "Утро" in head and "Ночь 1" not in head, head


def test_the_board_shows_a_cancelled_vote_at_once(host, games, live_manage, live_user, live_server_url):
    game = fresh(live_manage, live_user, "three_fouls")
    page = host.open(game)
    board = page.context.new_page()
    board.goto(f"{live_server_url}/games/{game}/board/")
    assert board.locator("#board-head [data-vote-cancelled]").count() == 0
    n = host.seq()
    fourth_foul(page, 5)
    host.wait_seq(n + 1)
    # Pushed over the websocket (or polled): the same words on the board.
    board.wait_for_selector("#board-head [data-vote-cancelled]", timeout=15_000)
    assert "дня 1" in board.inner_text("#board-head [data-vote-cancelled]")


def test_a_phone_reaches_the_seats_the_primary_control_and_undo(host, games, browser, live_server_url, live_user):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")
    try:
        phone = ctx.new_page()
        sign_in(phone, live_server_url, live_user)
        phone.goto(f"{live_server_url}/games/{games['voting']}/")
        phone.wait_for_selector("#console")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        logout = phone.locator(".topbar .link-btn").bounding_box()
        assert logout and logout["x"] + logout["width"] <= 390
        # The vote's «итог» and undo are on the first screen; the seats within two screens.
        for sel in ("#console .vote-form [data-submit]", "#undo-btn"):
            box = phone.locator(sel).bounding_box()
            assert box and box["y"] + box["height"] <= 844, (sel, box)
        assert phone.locator("#console .seats").bounding_box()["y"] < 2 * 844
        phone.goto(f"{live_server_url}/games/{games['day1']}/")
        box = phone.locator("#next-btn").bounding_box()
        assert box and box["y"] + box["height"] <= 844
        assert phone.locator("#console .seats").bounding_box()["y"] < 844
    finally:
        ctx.close()
