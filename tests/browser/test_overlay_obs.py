"""OBS scenes that follow the game (issue 31, part 1), against a fake obs-websocket 5 server.

The overlay page — with its token and a 2 s delay — talks to obs-websocket from the
streamer's side (static/js/overlay-obs.js): Hello with an authentication challenge,
Identify with the salted SHA-256 answer, then SetCurrentProgramScene per phase. The fake
server checks the handshake as OBS does and records every scene request with its time: a
whole game gives the streamer's scenes in order, each no sooner than the delay after the
host's action, and the server never sees the OBS password (it lives in the URL fragment).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.live.test_two_daphne_redis import Host, free_port
from tests.test_board_browser import OVERLAY_ON, server  # noqa: F401, F811  (server: the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.live]

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
PASSWORD = "obs-secret-42"


class FakeObs:
    """obs-websocket 5's handshake and SetCurrentProgramScene, nothing else."""

    def __init__(self) -> None:
        self.port = free_port()
        self.scenes: list[tuple[str, float]] = []
        self.failed_auth = 0
        self.salt, self.challenge = "c2FsdA==", "Y2hhbGxlbmdl"
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def expected_auth(self) -> str:
        secret = base64.b64encode(hashlib.sha256((PASSWORD + self.salt).encode()).digest()).decode()
        return base64.b64encode(hashlib.sha256((secret + self.challenge).encode()).digest()).decode()

    async def handler(self, ws) -> None:
        assert ws.request.headers.get("Sec-WebSocket-Protocol") == "obswebsocket.json"
        await ws.send(
            json.dumps(
                {
                    "op": 0,
                    "d": {
                        "obsWebSocketVersion": "5.5.0",
                        "rpcVersion": 1,
                        "authentication": {"challenge": self.challenge, "salt": self.salt},
                    },
                }
            )
        )
        identify = json.loads(await ws.recv())
        if identify.get("op") != 1 or identify["d"].get("authentication") != self.expected_auth():
            self.failed_auth += 1
            await ws.close(4009, "Authentication failed.")
            return
        await ws.send(json.dumps({"op": 2, "d": {"negotiatedRpcVersion": 1}}))
        async for raw in ws:
            msg = json.loads(raw)
            if msg.get("op") == 6 and msg["d"]["requestType"] == "SetCurrentProgramScene":
                self.scenes.append((msg["d"]["requestData"]["sceneName"], time.monotonic()))
                await ws.send(
                    json.dumps(
                        {
                            "op": 7,
                            "d": {
                                "requestType": "SetCurrentProgramScene",
                                "requestId": msg["d"]["requestId"],
                                "requestStatus": {"result": True, "code": 100},
                            },
                        }
                    )
                )

    def _run(self) -> None:
        import websockets

        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self.stopped = asyncio.Event()
            async with websockets.serve(self.handler, "127.0.0.1", self.port, subprotocols=["obswebsocket.json"]):
                self.ready.set()
                await self.stopped.wait()

        self.loop.run_until_complete(main())
        self.loop.close()

    def start(self) -> FakeObs:
        self.thread.start()
        assert self.ready.wait(10)
        return self

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.stopped.set)
        self.thread.join(10)


def test_obs_follows_a_whole_game_with_the_overlays_delay(server, browser, tmp_path):  # noqa: F811
    srv, info, env = server
    access_log = tmp_path / "daphne.log"  # where the shared fixture's daphne writes
    game, seq = info["game"], info["seq"]
    out = subprocess.run(
        [str(PYTHON), "-c", OVERLAY_ON, str(game), "2"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr[-2000:]
    token = out.stdout.strip().splitlines()[-1]
    obs = FakeObs().start()
    try:
        time.sleep(2.2)  # the seating and roles are older than the delay
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="ru-RU")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        scenes = "setup=Before&night=Night+scene&day=Day+scene&vote=Vote+scene&pause=Pause+scene&finished=Results"
        page.goto(srv.url(f"/games/{game}/overlay/{token}/#obs=ws://127.0.0.1:{obs.port}&password={PASSWORD}&{scenes}"))
        page.wait_for_selector('#obs-status[data-state="identified"]', timeout=10000, state="attached")
        deadline = time.monotonic() + 5
        while not obs.scenes and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [s for s, _ in obs.scenes] == ["Night scene"]  # N0 (договорка) as the overlay shows it

        host = Host(srv)
        host.login("livehost", "live-pass-123")
        acted: dict[str, float] = {}

        def act(action: dict, scene: str | None = None) -> None:
            nonlocal seq
            assert host.post(f"/games/{game}/act/", {"action": json.dumps(action), "expected_seq": str(seq)}) == 200, (
                action
            )
            seq += 1
            if scene:
                acted[scene] = time.monotonic()
                time.sleep(0.5)  # frames close together may be coalesced into the latest: a host is not that fast

        act({"do": "next"})  # free seating: still the Night
        act({"do": "next"}, "Day scene")  # Day 1, seat 1 speaks
        act({"do": "nominate", "by": 1, "target": 5})
        act({"do": "next"})
        act({"do": "nominate", "by": 2, "target": 6})
        for _ in range(8):
            act({"do": "next"})
        act({"do": "next"}, "Vote scene")  # the tenth speech ends: the vote (V1)
        act({"do": "tech_pause", "seat": 7}, "Pause scene")
        act({"do": "ppk", "team": "black"}, "Results")
        deadline = time.monotonic() + 10
        while len(obs.scenes) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        names = [s for s, _ in obs.scenes]
        assert names == ["Night scene", "Day scene", "Vote scene", "Pause scene", "Results"], names
        for name, at in obs.scenes[1:]:
            assert at - acted[name] >= 1.8, (name, at - acted[name])  # the overlay's delay held
        assert obs.failed_auth == 0 and errors == []
        context.close()
    finally:
        obs.stop()
    # The OBS password never reached the server (the fragment is not sent).
    assert PASSWORD not in access_log.read_text(errors="replace")
