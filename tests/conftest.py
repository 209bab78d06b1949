"""Shared fixtures. SHARED_DIR points at the shared/ folder beside the project."""

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("SHARED_DIR", PROJECT_ROOT.parent / "shared")).resolve()
EXAMPLES_DIR = SHARED_DIR / "protocol-log" / "examples"


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES_DIR


@pytest.fixture
def host(db, django_user_model):
    return django_user_model.objects.create_user(username="host", password="host-pass-123")


@pytest.fixture
def other_user(db, django_user_model):
    return django_user_model.objects.create_user(username="stranger", password="stranger-pass-123")


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole run (Debian's package, never a downloaded build).

    Playwright's sync API refuses a second instance while one is open in the
    same thread, so every browser test in every folder uses this fixture.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: `make browsers` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield CspWatchingBrowser(b)
        finally:
            b.close()


# Content-Security-Policy violations seen by any page of any browser test
# (issue 15): `_fail_on_csp_violation` fails the test that caused them.
CSP_VIOLATIONS: list[str] = []

# Chromium logs a refused inline script, eval or style to the console itself;
# the securitypolicyviolation event also catches what it reports only there.
_CSP_REPORTER = """
document.addEventListener("securitypolicyviolation", function (e) {
  console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + (e.sourceFile || document.URL) + ":" + e.lineNumber);
});
"""


def _watch_page_for_csp(page) -> None:
    def on_console(msg) -> None:
        text = msg.text
        if text.startswith("CSP violation") or "Content Security Policy" in text:
            CSP_VIOLATIONS.append(f"{page.url}: {text}")

    page.on("console", on_console)


class CspWatchingBrowser:
    """The Playwright browser; every context and page it makes reports CSP violations."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        context.add_init_script(script=_CSP_REPORTER)
        context.on("page", _watch_page_for_csp)
        return context

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)
        page.add_init_script(script=_CSP_REPORTER)
        _watch_page_for_csp(page)
        return page


@pytest.fixture(autouse=True)
def _fail_on_csp_violation():
    CSP_VIOLATIONS.clear()
    yield
    if CSP_VIOLATIONS:
        found = list(CSP_VIOLATIONS)
        CSP_VIOLATIONS.clear()
        pytest.fail("Content-Security-Policy violations:\n" + "\n".join(found[:20]), pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def _close_stray_database_sessions(django_db_setup, django_db_blocker):
    """PostgreSQL: end the test database's sessions held by worker threads.

    Channels runs consumer database code in asgiref's thread pool, whose
    threads keep their own connections open; without this the test database
    cannot be dropped at the end ("being accessed by other users"). Its
    teardown runs before pytest-django's, which it depends on.
    """
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(autouse=True)
def _render_board_frames_in_the_request(settings):
    """In-process tests see each frame as the request's own side effect.

    Under a real daphne (live and browser tests, their own processes) the
    frames are rendered after the response (settings.LIVE_RENDER_OFF_REQUEST);
    in-process, a worker thread would use another database connection than
    the test's transaction.
    """
    settings.LIVE_RENDER_OFF_REQUEST = False
