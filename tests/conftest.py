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
            yield b
        finally:
            b.close()


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
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")


@pytest.fixture(autouse=True)
def _render_board_frames_in_the_request(settings):
    """In-process tests see each frame as the request's own side effect.

    Under a real daphne (live and browser tests, their own processes) the
    frames are rendered after the response (settings.LIVE_RENDER_OFF_REQUEST);
    in-process, a worker thread would use another database connection than
    the test's transaction.
    """
    settings.LIVE_RENDER_OFF_REQUEST = False
