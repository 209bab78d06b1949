"""Phase sounds (issue 31, part 3): cues planned from the clock and scheduled on the Web Audio clock.

The planning is pure (`MafiaCues.plan` / `planCount` in static/js/cues.js) and tested in
the browser's own JS engine; then a real console, a speech running, the host's switches
on: the cues are created on the AudioContext timeline at the clock's zero (so they sound
in a background tab, where timers are throttled), and cancelled when the step changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.test_console_browser import example_actions, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.live]

CUES_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "cues.js"
ALL_ON = {"speech_end": True, "vote_count": True, "night_steps": True, "night_music": True}


@pytest.fixture
def js(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(path=str(CUES_JS))
    yield page
    context.close()


def test_a_speech_ends_with_two_tones_at_its_zero(js):
    cues = js.evaluate("p => MafiaCues.plan({step: 'speech', remainingMs: 42000, running: true}, p)", ALL_ON)
    assert [(c["at"], c["kind"]) for c in cues] == [(42000, "speech_end"), (42350, "speech_end")]
    assert js.evaluate("MafiaCues.plan({step: 'speech', remainingMs: 42000, running: true}, {})") == []  # switched off
    assert (
        js.evaluate("p => MafiaCues.plan({step: 'speech', remainingMs: 42000, running: false}, p)", ALL_ON) == []
    )  # paused


def test_a_night_step_ticks_its_last_three_seconds(js):
    cues = js.evaluate("p => MafiaCues.plan({step: 'don_check', remainingMs: 15000, running: true}, p)", ALL_ON)
    assert [(c["at"], c["kind"]) for c in cues] == [
        (12000, "night_tick"),
        (13000, "night_tick"),
        (14000, "night_tick"),
        (15000, "night_end"),
    ]
    late = js.evaluate("p => MafiaCues.plan({step: 'sheriff_check', remainingMs: 1500, running: true}, p)", ALL_ON)
    assert [c["at"] for c in late] == [500, 1500]  # ticks already past are not played


def test_the_vote_count_is_four_ticks_and_a_tone(js):
    cues = js.evaluate("p => MafiaCues.planCount(4, p)", ALL_ON)
    assert [c["at"] for c in cues] == [0, 1000, 2000, 3000, 4000] and cues[-1]["kind"] == "count_end"
    assert js.evaluate("p => MafiaCues.wantsMusic('mafia_shot', p) && !MafiaCues.wantsMusic('speech', p)", ALL_ON)


RECORD_AUDIO = """
window.__cues = [];
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  createOscillator() {
    const o = super.createOscillator(), ctx = this;
    const start = o.start.bind(o), stop = o.stop.bind(o);
    const entry = {freq: null, at: null, stopped: null};
    o.start = (t) => { entry.freq = o.frequency.value; entry.at = (t === undefined ? ctx.currentTime : t) - ctx.currentTime; window.__cues.push(entry); start(t); };
    o.stop = (t) => { entry.stopped = t === undefined ? 'now' : t; stop(t); };
    return o;
  }
};
localStorage.setItem("console.cues", JSON.stringify({speech_end: true, vote_count: true, night_steps: true}));
"""


def test_the_console_schedules_the_speech_end_on_the_audio_clock(browser, live_server_url, live_user, live_manage):
    actions = example_actions()[:5]  # Day 1, the speech of seat 1 running
    log = json.dumps({"format": "mafia-protocol-log/1", "actions": actions})
    out = live_manage(
        "shell",
        "-c",
        "import json; from django.contrib.auth import get_user_model; from games import services; "
        f"u = get_user_model().objects.get(username={live_user[0]!r}); "
        f"g = services.game_import_log(host=u, data=json.loads({log!r}), title='cues'); print(g.pk)",
    )
    game_id = int(out.strip().splitlines()[-1])
    context = browser.new_context(viewport={"width": 1366, "height": 860}, locale="ru-RU")
    context.add_init_script(RECORD_AUDIO)
    page = context.new_page()
    sign_in(page, live_server_url, live_user)
    page.goto(f"{live_server_url}/games/{game_id}/")
    page.keyboard.press(" ")  # «Доброе утро» said: the first speech's clock starts (issue 26-4)
    page.wait_for_selector('#clock .clock[data-running="1"]')
    page.click(".cues-menu > summary")  # the host's gesture lets the AudioContext start
    assert page.is_checked('[data-cue-pref="speech_end"]') and not page.is_checked('[data-cue-pref="night_music"]')
    page.wait_for_function("() => window.__cues.length >= 2", timeout=5000)
    remaining = int(page.get_attribute("#clock .clock", "data-remaining-ms")) / 1000
    first, second = page.evaluate("window.__cues.slice(0, 2)")
    assert abs(first["at"] - remaining) < 1.5 and abs(second["at"] - first["at"] - 0.35) < 0.05
    assert first["freq"] == 660
    # Paused: what was scheduled is cancelled, nothing new is planned.
    page.click("#clock-toggle")
    page.wait_for_selector('#clock .clock[data-running="0"]')
    page.wait_for_function("() => window.__cues.slice(0, 2).every(c => c.stopped !== null)", timeout=5000)
    context.close()
