"""axe-core (WCAG 2.1 A and AA) on every page of the app, in Russian and in
English, on a desktop and on a 390×844 phone: zero violations, asserted.

One live server (the session's daphne), one browser; one signed-in context
per language and screen, reused by every page. The data (games stopped at
each console step, a finished game, an overlay, a tournament with a played
round) comes from a11y_data.py, run once in the live server's database.

axe-core is vendored in tests/browser/vendor/ (axe.min.js with its MPL-2.0
header, from the npm registry: `npm pack axe-core`), so the suite runs
offline. At phone width the page must not scroll sideways either (WCAG
1.4.10 reflow; axe does not measure it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.live]

HERE = Path(__file__).resolve().parent
AXE = HERE / "vendor" / "axe.min.js"
DATA_SCRIPT = HERE / "a11y_data.py"
# WCAG 2.1 A and AA, and axe's best practices (landmarks, heading order,
# empty table headers): the audit of issue 13 counted those too.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

SCREENS = {"desktop": {"width": 1366, "height": 860}, "phone": {"width": 390, "height": 844}}
# (language, screen, colour scheme): both languages on both screens, and the
# dark scheme (the pages follow prefers-color-scheme) once, on a desktop.
VARIANTS = [
    ("ru", "desktop", "light"),
    ("en", "desktop", "light"),
    ("ru", "phone", "light"),
    ("en", "phone", "light"),
    ("ru", "desktop", "dark"),
]
VARIANT_IDS = [f"{lang}-{screen}" + ("-dark" if scheme == "dark" else "") for lang, screen, scheme in VARIANTS]
# What a spectator without an account opens (the top bar differs).
PUBLIC_PAGES = {
    "login",
    "board_running",
    "board_finished",
    "tournaments_list",
    "tournament_detail",
    "standings",
    "scoring",
    "player",
}

# (name, path or key of the data, a selector that shows the page is ready)
PAGES: list[tuple[str, str, str]] = [
    ("login", "/accounts/login/", "#login-form"),
    ("games_list", "/games/", "main"),
    ("game_create", "/games/new/", "#create-form"),
    ("console_seating", "console_seating", "#console"),
    ("console_day", "console_day", "#console"),
    ("console_voting", "console_voting", "#console"),
    ("console_last_word", "console_last_word", "#console"),
    ("console_night", "console_night", "#console"),
    ("console_check", "console_check", "#console"),
    ("console_best_move", "console_best_move", "#console"),
    ("console_finished", "console_finished", "#console"),
    ("board_running", "board_running", "#board-meta"),
    ("board_finished", "board_finished", "#board-meta"),
    ("overlay", "overlay", "body"),
    ("tournaments_list", "/tournaments/", "main"),
    ("tournament_create", "/tournaments/new/", "main form"),
    ("tournament_detail", "tournament_detail", "main"),
    ("tournament_settings", "tournament_settings", "main form"),
    ("stage", "stage", "main"),
    ("round", "round", "main"),
    ("standings", "standings", "#standings"),
    ("scoring", "scoring", "main"),
    ("extra_points", "extra_points", "main"),
    ("player", "player", "main"),
]


@pytest.fixture(scope="module")
def a11y_data(live_server_url: str, live_manage: Callable[..., str]) -> dict[str, Any]:
    out = live_manage("shell", "-c", f"exec(open({str(DATA_SCRIPT)!r}, encoding='utf-8').read())")
    line = next(x for x in out.splitlines() if x.startswith("A11Y-DATA "))
    return json.loads(line.removeprefix("A11Y-DATA "))


@pytest.fixture(scope="module")
def signed_in_state(browser: Any, live_server_url: str, a11y_data: dict[str, Any]) -> dict[str, Any]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(live_server_url + "/accounts/login/")
    page.fill("#login-form input[name=username]", a11y_data["user"][0])
    page.fill("#login-form input[name=password]", a11y_data["user"][1])
    page.click("#login-submit")
    page.wait_for_url(re.compile(r".*/games/$"))
    state = context.storage_state()
    context.close()
    return state


@pytest.fixture(scope="module")
def audit_pages(browser: Any, live_server_url: str, signed_in_state: dict[str, Any]) -> Iterator[Callable[..., Any]]:
    """One page per variant, made on first use and reused by every page."""
    pages: dict[tuple[str, str, str, bool], Any] = {}
    contexts: list[Any] = []

    def get(lang: str, screen: str, scheme: str = "light", signed_in: bool = True) -> Any:
        key = (lang, screen, scheme, signed_in)
        if key not in pages:
            context = browser.new_context(
                viewport=SCREENS[screen],
                locale="ru-RU" if lang == "ru" else "en-US",
                color_scheme=scheme,
                storage_state=signed_in_state if signed_in else None,
            )
            host = live_server_url.split("//", 1)[1].split(":")[0]
            context.add_cookies([{"name": "django_language", "value": lang, "domain": host, "path": "/"}])
            context.add_init_script(path=str(AXE))
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(20_000)
            pages[key] = page
        return pages[key]

    yield get
    for context in contexts:
        context.close()


def _describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}): {v['help']}")
        for node in v["nodes"][:6]:
            summary = " ".join((node.get("failureSummary") or "").split())[:220]
            lines.append(f"    {' '.join(map(str, node['target']))}: {summary}")
    return "\n".join(lines)


def _audit(page: Any, url: str, name: str, ready: str, lang: str, label: str, *, reflow: bool) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, f"{url}: HTTP {response and response.status}"
    page.wait_for_selector(ready, state="attached")
    assert page.evaluate("document.documentElement.lang") == lang
    result = page.evaluate(
        "(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})", AXE_TAGS
    )
    violations = result["violations"]
    assert not violations, f"{name} [{label}] {url}: {len(violations)} axe violation(s)\n" + _describe(violations)
    if reflow and name != "overlay":  # the overlay is a 1920×1080 stream source, never read on a phone
        # WCAG 1.4.10: no sideways scrolling of the page at 390 px (wide tables scroll in their own box).
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{name} [{label}] scrolls sideways by {overflow}px at 390 px wide"


def _url(live_server_url: str, a11y_data: dict[str, Any], where: str) -> str:
    return live_server_url + (where if where.startswith("/") else a11y_data[where])


@pytest.mark.parametrize(("lang", "screen", "scheme"), VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize(("name", "where", "ready"), PAGES, ids=[p[0] for p in PAGES])
def test_page_has_no_axe_violations(audit_pages, live_server_url, a11y_data, name, where, ready, lang, screen, scheme):
    page = audit_pages(lang, screen, scheme)
    label = f"{lang}, {screen}, {scheme}"
    _audit(page, _url(live_server_url, a11y_data, where), name, ready, lang, label, reflow=screen == "phone")


@pytest.mark.parametrize(("lang", "screen"), [("ru", "phone"), ("en", "desktop")])
@pytest.mark.parametrize(
    ("name", "where", "ready"),
    [p for p in PAGES if p[0] in PUBLIC_PAGES],
    ids=[p[0] for p in PAGES if p[0] in PUBLIC_PAGES],
)
def test_public_page_without_an_account_has_no_axe_violations(
    audit_pages, live_server_url, a11y_data, name, where, ready, lang, screen
):
    page = audit_pages(lang, screen, "light", signed_in=False)
    _audit(
        page,
        _url(live_server_url, a11y_data, where),
        name,
        ready,
        lang,
        f"{lang}, {screen}, anonymous",
        reflow=screen == "phone",
    )


@pytest.mark.parametrize(("lang", "screen"), [("ru", "desktop"), ("en", "phone")])
def test_console_menus_and_dialogs_have_no_axe_violations(audit_pages, live_server_url, a11y_data, lang, screen):
    """What the console shows on demand: the share menu, the penalty dialog
    (the catalogue of F16 reasons), the keys' help."""
    page = audit_pages(lang, screen)
    page.goto(_url(live_server_url, a11y_data, "console_day"))
    page.wait_for_selector("#console")

    def check(what: str) -> None:
        result = page.evaluate(
            "(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})", AXE_TAGS
        )
        assert not result["violations"], f"console {what} [{lang}, {screen}]\n" + _describe(result["violations"])

    page.click(".head-tools details.menu > summary")
    page.wait_for_selector("#share", state="visible")
    check("share menu open")
    page.click(".head-tools details.menu > summary")
    page.click("#tile-5 .btn-more")
    page.wait_for_selector("#penalty-dialog[open]")
    check("penalty dialog open")
    page.keyboard.press("Escape")
    page.wait_for_selector("#penalty-dialog:not([open])", state="attached")
    page.click("[data-open-help]")
    page.wait_for_selector("#help-dialog[open]")
    check("help dialog open")
    page.keyboard.press("Escape")


def test_keys_on_the_focused_protocol_list_scroll_it_and_record_nothing(audit_pages, live_server_url, a11y_data):
    """The protocol list is focusable (it scrolls); Space or a digit pressed
    there must not reach the console's shortcuts (the next step, a nomination)."""
    page = audit_pages("ru", "desktop")
    page.goto(_url(live_server_url, a11y_data, "console_day"))
    before = page.get_attribute("#console", "data-seq")
    page.focus("#console ol.protocol")
    for key in (" ", "3", "ArrowDown", "PageDown"):
        page.keyboard.press(key)
    page.wait_for_timeout(600)  # an action would have swapped the console by now
    page.reload()
    assert page.get_attribute("#console", "data-seq") == before
