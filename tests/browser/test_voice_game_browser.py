"""Issue 29, «Done when»: a whole game played in a browser against the harness.

The host drives the console in Chromium by keys only (digits, Space, Enter, ArrowDown), from the
roles to the blacks' win; the bot runs as in production, in a process of its own on the same
database and Redis channel layer (tests/browser/voice_game_bot.py: the real ProtocolBot, its
loops and voice handlers, against dpytest's fake Discord with the VoiceServer double of
tests/bridge/voice_harness.py). For every step change that should mute or unmute (each Night's
start, each morning, the player shot's last word, a departed player's re-mute, the game's end)
the time from the host's key to the fake Discord's `Member.edit(mute=…)` is measured, and each
must be within 1 s. Along the way: the seat draw posted with its seed and each seat's number by
DM, one short-lived invite per black DMed and revoked after the game, a deafen, a leave, a return
and a chat message shown in the console's Discord strip, nobody muted at the end, and the host's
own account and a spectator in the voice channel never touched.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from discord_bridge import voice
from discord_bridge.voice_bot import INVITE_TEXT

from .conftest import PROJECT_ROOT
from .test_console_browser import sign_in
from .test_console_safety import Log, key_for
from .test_discord_browser import redis_live  # noqa: F401  (the module's daphne + Redis fixture)
from .voice_game_bot import HOST, NICKS

pytestmark = [pytest.mark.browser, pytest.mark.live]

ROLES = {"sheriff": 9, "don": 1, "mafia": [4, 7]}
BLACKS = (1, 4, 7)
ALL = frozenset(range(1, 11))
# The step changes of intended_game() that mute or unmute, in order (what is measured).
CHANGES = [
    "Night 0 begins (start): all muted",
    "Day 1, «Доброе утро»: all unmuted",
    "Night 1 begins (№5's last word over): all muted",
    "Night 1's morning (the checks done): the table and №6, shot, for his last word unmuted",
    "Day 2 (№6's last word over): №6 muted again",
    "Night 2 begins (№8's last word over): all muted",
    "Night 2's morning (the shot of №2): the table and №2 unmuted",
    "the game's end (№2's last word over): the departed unmuted",
]
LATENCY_LIMIT = 1.0  # seconds: the issue's «within 1 s of the host's key»


def intended_game() -> list[dict[str, Any]]:
    """The game the host plays (seated at creation, so from the roles on): Day 1 votes №5 out, Night 1
    the blacks shoot №6 (checks, his best move and last word), Day 2 votes №8 out, Night 2 the shot of
    №2 leaves three blacks against three reds: the blacks win after №2's last word."""
    g = Log()
    g.do("seat", players=[f"P{i}" for i in range(1, 11)])
    g.do("roles", **ROLES).do("start").until("speech")
    g.do("nominate", by=1, target=5).do("next").do("nominate", by=2, target=6).until("voting")
    g.do("votes", **{"for": {"5": [1, 2, 3, 4, 6, 7, 8], "6": [5, 9, 10]}}).until("mafia_shot")
    g.do("shots", by={"1": 6, "4": 6, "7": 6}).do("don_check", target=9).do("sheriff_check", target=1)
    g.do("best_move", seats=[1, 4, 7]).until("speech")
    g.do("nominate", by=2, target=8).until("voting")
    g.do("votes", **{"for": {"8": [1, 2, 3, 4, 7]}}).until("mafia_shot")
    g.do("shots", by={"1": 2, "4": 2, "7": 2})
    while g.state.status == "running":
        g.do("next")
    assert g.state.winner == "black", g.state.winner
    return g.actions[1:]


def muted_plans(actions: list[dict[str, Any]]) -> list[frozenset[int]]:
    """Who should be server-muted after each action (the pure plan the bot follows, voice.muted_seats)."""
    g = Log()
    g.do("seat", players=[f"P{i}" for i in range(1, 11)])
    plans = []
    for action in actions:
        g.do(**action)
        s = g.state
        view = voice.VoiceView(
            status=s.status, phase=s.phase, step=s.step, speaker=s.speaker, at_table=frozenset(s.at_table)
        )
        plans.append(voice.muted_seats(view, range(1, 11)))
    return plans


def keys_for(action: dict[str, Any]) -> list[str]:
    """The keys a host presses for one log action (as in test_console_safety's whole game)."""
    do = action["do"]
    if do == "roles":
        return [key_for(s) for s in (action["sheriff"], action["don"], *action["mafia"])] + ["Enter"]
    if do in ("start", "next"):
        return [" "]
    if do == "nominate":
        return [key_for(action["target"])]
    if do == "votes":
        keys: list[str] = []
        for i, voters in enumerate(action["for"].values()):
            keys += (["ArrowDown"] if i else []) + [key_for(v) for v in voters]
        return [*keys, "Enter"]
    if do == "shots":
        return [key_for(t) for t in action["by"].values()] + ["Enter"]
    if do in ("don_check", "sheriff_check"):
        return [key_for(action["target"]), "Enter"]
    if do == "best_move":
        return [key_for(s) for s in action["seats"]] + ["Enter"]
    raise AssertionError(do)


class Bot:
    """The bot process: its `@@` events collected by a reader thread, commands written to its stdin."""

    def __init__(self, proc: subprocess.Popen[str], log: Path) -> None:
        self.proc, self.log = proc, log
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("@@ "):
                event = json.loads(line[3:])
                with self.lock:
                    self.events.append(event)
                    self.lock.notify_all()

    def wait(self, predicate: Callable[[list[dict[str, Any]]], Any], timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                found = predicate(self.events)
                if found:
                    return found
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return found
                self.lock.wait(min(left, 0.05))

    def ready(self, ev: str = "ready") -> dict[str, Any]:
        ready = self.wait(lambda evs: [e for e in evs if e["ev"] == ev], timeout=60)
        assert ready, self.log.read_text()[-3000:]
        return ready[0]

    def of(self, ev: str) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.events if e["ev"] == ev]

    def send(self, **cmd: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        n = len(self.of("ack"))
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        acks = self.wait(lambda evs: [e for e in evs if e["ev"] in ("ack", "error")][n:], timeout=15)
        assert acks and acks[0]["ev"] == "ack", (cmd, acks)
        return acks[0]


@pytest.fixture
def bot(redis_live, tmp_path):  # noqa: F811
    url, manage = redis_live
    err = open(tmp_path / "bot.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.browser.voice_game_bot"],
        cwd=PROJECT_ROOT,
        env=manage.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
        bufsize=1,
    )
    harness = Bot(proc, tmp_path / "bot.log")
    try:
        yield harness  # starting (Django, discord.py, the game's setup) while the host signs in
    finally:
        try:
            assert proc.stdin is not None
            proc.stdin.write("quit\n")
            proc.stdin.close()
            proc.wait(timeout=10)
        except Exception:
            proc.kill()
        err.close()
        log = (tmp_path / "bot.log").read_text()
        if "Traceback" in log:
            print("bot process log:\n", log[-4000:])


def test_a_whole_game_in_the_browser_mutes_and_unmutes_within_a_second_of_each_key(redis_live, bot, page):  # noqa: F811
    started = time.monotonic()
    url, _ = redis_live
    bot.ready("host")
    sign_in(page, url, HOST)
    ready = bot.ready()
    members: list[int] = ready["members"]
    seat_of = {uid: seat for seat, uid in enumerate(members[:10], start=1)}
    host_account, spectator = members[10], members[11]
    game = ready["game"]

    # Chore 1: the draw in the game's channel, with its seed (line 29), and «Ваш номер: N» by DM.
    def draw_sent(evs):
        line = [e for e in evs if e["ev"] == "sent" and e["channel"] == ready["text"]]
        dms = {e["to"]: e["content"] for e in evs if e["ev"] == "sent" and e["to"] in seat_of}
        return line and len(dms) == 10 and (line, dms)

    drawn = bot.wait(draw_sent, timeout=15)
    assert drawn, bot.of("sent")
    line, dms = drawn
    seating = ", ".join(f"{seat} — {nick}" for seat, nick in enumerate(ready["players"], start=1))
    assert [e["content"] for e in line] == [f"Рассадка (S1, жребий, сид {ready['seed']}): {seating}"]
    assert dms == {members[s - 1]: f"Ваш номер: {s}" for s in range(1, 11)}
    check = list(NICKS)
    random.Random(ready["seed"]).shuffle(check)  # anyone can check the draw from the seed
    assert check == ready["players"]

    page.goto(f"{url}/games/{game}/")
    page.wait_for_selector("#console")
    page.wait_for_selector("#discord-panel [data-voice-strip]")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def seq() -> int:
        return int(page.get_attribute("#console", "data-seq"))

    def ready_for_keys() -> None:
        page.wait_for_function("() => !window.consoleBusy && !document.body.classList.contains('keys-settling')")

    def edits_since(t: float) -> list[dict[str, Any]]:
        return [e for e in bot.of("edit") if e["t"] >= t]

    actions = intended_game()
    plans = muted_plans(actions)
    muted: frozenset[int] = frozenset()
    nights = 0
    latencies: list[tuple[str, float, int]] = []
    for i, (action, plan) in enumerate(zip(actions, plans, strict=True)):
        n = seq()
        ready_for_keys()
        if page.locator("#console[data-clock-waits]").count():
            # «В городе ночь» / «Доброе утро» said: Space starts the step's clock (issue 26-4), not logged.
            page.keyboard.press(" ")
            page.wait_for_selector("#console[data-clock-waits]", state="detached")
            ready_for_keys()
        *first, last = keys_for(action)
        for k in first:
            page.keyboard.press(k)
        pressed = time.time()
        page.keyboard.press(last)
        page.wait_for_selector(f'#console[data-seq="{n + 1}"]')
        shown = time.time()
        if plan == muted:
            continue
        # The host's key changed who is muted: the fake Discord must get exactly these edits.
        want = {(members[s - 1], True) for s in plan - muted} | {(members[s - 1], False) for s in muted - plan}

        def arrived(evs, want=want, pressed=pressed):
            got = {(e["user"], e["mute"]): e["t"] for e in evs if e["ev"] == "edit" and e["t"] >= pressed}
            return want <= got.keys() and got

        got = bot.wait(arrived, timeout=10)
        assert got, (i, action, want, edits_since(pressed))
        latency = max(got[w] for w in want) - pressed
        first_edit = min(got[w] for w in want) - pressed
        # Where the time went (the bot process's figures): the plan stored, found by the bot's poll.
        due = next((e for e in bot.of("due") if e["t"] >= pressed), None)
        found = (
            f"planned +{(due['planned'] - pressed) * 1000:.0f}, found by the poll +{(due['t'] - pressed) * 1000:.0f}"
            if due
            else "found on a voice event"
        )
        latencies.append(
            (
                f"{CHANGES[len(latencies)]}: {len(want)} edits; {found}, first edit +{first_edit * 1000:.0f} ms"
                f" (the console showed the step +{(shown - pressed) * 1000:.0f} ms)",
                latency,
                len(want),
            )
        )
        muted = plan

        nights += plan == ALL
        # Night 1 has begun (Day 1's last word over): chore 4, a seated player deafens, another leaves and returns.
        if plan == ALL and nights == 2:
            bot.send(do="deafen", seat=4)
            left_at = time.time()
            bot.send(do="leave", seat=7)
            bot.send(do="return", seat=7)
            assert bot.wait(
                lambda evs, t=left_at: [
                    e for e in evs if e["ev"] == "edit" and e["t"] >= t and e["user"] == members[6]
                ],
                timeout=5,
            ), "№7 back mid-Night is muted on join"
            page.wait_for_selector('[data-voice-alert="returned"][data-seat="7"]', timeout=10_000)
            strip = page.inner_text("#discord-panel [data-voice-strip]")
            assert "№4 выключил звук" in strip and "№7 вышел из канала" in strip and "№7 вернулся" in strip, strip
            bot.send(do="undeafen", seat=4)
        # Day 2 has begun (№6's last word over, he is muted again): chore 5, a chat message outside the vote.
        if action["do"] == "next" and plan == {5, 6}:
            bot.send(do="chat", seat=3, text="я мирный")
            page.wait_for_selector('[data-silence-event="chat"][data-seat="3"]', timeout=10_000)
            assert "№3 написал в чат: «я мирный»" in page.inner_text("#discord-panel [data-silence]")

    assert "Победа чёрных" in page.inner_text("#console .banner")
    played = time.monotonic() - started

    figures = [t for _, t, _ in latencies]
    print(f"\nthe host's key → the fake Discord's last edit(mute=…) of the step change ({len(figures)}):")
    for what, t, _ in latencies:
        print(f"  {t * 1000:6.0f} ms  {what}")
    print(
        f"count {len(figures)}, median {statistics.median(figures) * 1000:.0f} ms, max {max(figures) * 1000:.0f} ms;"
        f" the game took {played:.1f} s"
    )
    assert len(latencies) == len(CHANGES)
    assert max(figures) <= LATENCY_LIMIT, latencies

    # Chore 3: one invite per black, one use, short-lived, DMed to him; after the game revoked and removed.
    blacks = {members[s - 1] for s in BLACKS}
    over = bot.wait(
        lambda evs: (
            len([e for e in evs if e["ev"] == "invite_deleted"]) >= 3
            and len([e for e in evs if e["ev"] == "kick"]) >= 3
        ),
        timeout=10,
    )
    assert over, (bot.of("invite"), bot.of("invite_deleted"), bot.of("kick"))
    invites = bot.of("invite")
    assert len(invites) == 3 and all(
        e["max_uses"] == 1 and e["max_age"] <= 15 * 60 and e["unique"] and e["channel"] == ready["blacks_channel"]
        for e in invites
    ), invites
    invite_dms = {e["to"]: e["content"] for e in bot.of("sent") if e["content"].startswith(INVITE_TEXT.split("{")[0])}
    assert invite_dms.keys() == blacks and len(bot.of("sent")) == 1 + 10 + 3  # nothing else, nothing twice
    codes = {e["code"] for e in invites}
    assert {dm.rsplit("/", 1)[-1] for dm in invite_dms.values()} == codes
    assert sorted(e["code"] for e in bot.of("invite_deleted")) == sorted(codes)  # never an invite left alive
    assert {e["user"] for e in bot.of("kick")} == blacks and {e["guild"] for e in bot.of("kick")} == {
        ready["blacks_guild"]
    }

    # Nobody is left muted; the host's own account and the spectator were never touched.
    bot.send(do="report")
    report = bot.of("report")[-1]
    assert report["muted"] == [] and report["voice_mutes"] == [], report
    assert {host_account, spectator} <= set(report["in_voice"])
    touched = {e["user"] for e in bot.of("edit")}
    assert host_account not in touched and spectator not in touched
    assert touched == set(members[:10])
    assert [tuple(i[:2]) for i in report["invites"]] == [(1, "revoked"), (4, "revoked"), (7, "revoked")]
    assert all(joined for *_, joined in report["invites"])  # each black used his invite
    assert report["failures"] == [], report["failures"]
    # Every edit is one of the measured step changes' or №7's mute on his return: none twice, none extra.
    assert len(bot.of("edit")) == sum(n for *_, n in latencies) + 1
    assert errors == []
