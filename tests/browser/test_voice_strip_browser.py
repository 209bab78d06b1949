"""Issue 29, chore 4 in a browser: the bot process reports a seated player's deafen and leave; the
host's open console shows «№4 выключил звук», «№7 вышел из канала» live (real daphne, Redis layer,
Chromium; the «bot» side is another process on the same database and layer, as the real bot is)."""

from __future__ import annotations

import json
import time

import pytest

from .test_console_browser import sign_in
from .test_discord_browser import redis_live  # noqa: F401  (the module's daphne + Redis fixture)

pytestmark = [pytest.mark.browser, pytest.mark.live]


SETUP = """
from django.contrib.auth import get_user_model
from games import services
from tests.bridge.helpers import ROLES, link, record
U = get_user_model()
u = U.objects.filter(username='vh').first() or U(username='vh')
u.set_password('vh-pass-123'); u.save()
g = services.game_create(host=u, players=[f"P{i}" for i in range(1, 11)])
for a in (ROLES, {"do": "start"}):
    record(g, a, u)
link(g)
print(g.pk)
"""

BOT_SEES = """
import json, time
from discord_bridge import voice, voice_services
from tests.bridge.helpers import user_id
sent = time.time()
voice_services.alert(user_id=user_id(4), before=voice.VoicePresence(556, False), after=voice.VoicePresence(556, True))
voice_services.alert(user_id=user_id(7), before=voice.VoicePresence(556, False), after=voice.VoicePresence(None, False))
print(json.dumps({"sent": sent}))
"""


def test_deafen_and_leave_appear_live_in_the_hosts_discord_strip(redis_live, page):  # noqa: F811
    url, manage = redis_live
    pk = int(manage("shell", "-c", SETUP).strip().splitlines()[-1])
    sign_in(page, url, ("vh", "vh-pass-123"))
    page.goto(f"{url}/games/{pk}/")
    page.wait_for_selector("#discord-panel [data-voice-strip]")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.includes('/discord/'))")
    time.sleep(0.5)  # the host socket connects
    sent = json.loads(manage("shell", "-c", BOT_SEES).strip().splitlines()[-1])["sent"]
    page.wait_for_selector('[data-voice-alert="left"][data-seat="7"]', timeout=10_000)
    shown = time.time()
    strip = page.inner_text("#discord-panel [data-voice-strip]")
    assert "№4 выключил звук" in strip and "№7 вышел из канала" in strip
    print(f"\nvoice event → console strip: {(shown - sent) * 1000:.0f} ms")
    assert shown - sent < 5
    # Never on a public surface.
    board = page.context.new_page()
    board.goto(f"{url}/games/{pk}/board/")
    assert "выключил звук" not in board.content()
    board.close()
