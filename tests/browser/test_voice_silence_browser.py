"""Issue 29, chore 5 in a browser: the bot process reports a seated player's chat message and his
nickname change during the game; the host's open console shows them live as possible violations,
and one press of «фол №3» records the foul (real daphne, Redis layer, Chromium; the «bot» side is
another process on the same database and layer, as the real bot is)."""

from __future__ import annotations

import json

import pytest

from .test_console_browser import sign_in
from .test_discord_browser import redis_live  # noqa: F401  (the module's daphne + Redis fixture)

pytestmark = [pytest.mark.browser, pytest.mark.live]


SETUP = """
from django.contrib.auth import get_user_model
from games import services
from games import reading as game_reading
from tests.bridge.helpers import ROLES, link, record
U = get_user_model()
u = U.objects.filter(username='vs').first() or U(username='vs')
u.set_password('vs-pass-123'); u.save()
g = services.game_create(host=u, players=[f"P{i}" for i in range(1, 11)])
for a in (ROLES, {"do": "start"}, {"do": "next"}, {"do": "next"}):
    record(g, a, u)
link(g)
print(g.pk)
"""

BOT_SEES = """
import json
from django.utils import timezone
from discord_bridge import silence_services
from tests.bridge.helpers import user_id
silence_services.chat_seen(channel_id=555, message_id=987654321, author_id=user_id(3), text="я мирный", sent_at=timezone.now())
silence_services.profile_seen(user_id=user_id(6), name="P6", avatar="a")
silence_services.profile_seen(user_id=user_id(6), name="P6 шериф", avatar="a")
print(json.dumps({"ok": True}))
"""

FOULS = """
from games.models import Game
from games import services
from games import reading as game_reading
g = Game.objects.get(pk={pk})
print(game_reading.game_state(g).fouls.get(3, 0))
"""


def test_chat_and_nickname_violations_appear_live_and_one_press_records_the_foul(redis_live, page):  # noqa: F811
    url, manage = redis_live
    pk = int(manage("shell", "-c", SETUP).strip().splitlines()[-1])
    sign_in(page, url, ("vs", "vs-pass-123"))
    page.goto(f"{url}/games/{pk}/")
    page.wait_for_selector("#discord-panel [data-voice-strip]")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.includes('/discord/'))")
    page.wait_for_timeout(500)  # the host socket connects
    assert json.loads(manage("shell", "-c", BOT_SEES).strip().splitlines()[-1])["ok"]
    page.wait_for_selector('[data-silence-event="nick"][data-seat="6"]', timeout=10_000)
    strip = page.inner_text("#discord-panel [data-silence]")
    assert "№3 написал в чат: «я мирный»" in strip and "№6 сменил ник: P6 → P6 шериф" in strip
    assert manage("shell", "-c", FOULS.format(pk=pk)).strip().splitlines()[-1] == "0"  # shown, never recorded by itself
    page.click('[data-silence-foul="3"]')
    page.wait_for_selector('[data-silence-foul="3"]', state="detached", timeout=10_000)
    assert manage("shell", "-c", FOULS.format(pk=pk)).strip().splitlines()[-1] == "1"
    # Never on a public surface.
    board = page.context.new_page()
    board.goto(f"{url}/games/{pk}/board/")
    assert "я мирный" not in board.content()
    board.close()
