"""Production settings come from the environment (issue 15, issue 11 item 6).

Each case runs manage.py in a fresh process: the settings module reads the
environment once, at import, exactly as daphne does on a server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "k" * 20 + "Zq8-vT3pL0xW9nB2cR7yH4mJ6sD1fG5aE0uI8oP3lK"  # 60 characters, varied


def production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("DJANGO_") and k not in ("DATABASE_URL", "REDIS_URL")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "mafia_protocol.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": GOOD_KEY,
            "DJANGO_ALLOWED_HOSTS": "mafia.example.org",
            "DJANGO_HTTPS": "1",
            "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
            "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        }
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_with_the_documented_environment_reports_no_issues(tmp_path):
    out = manage(production_env(tmp_path), "check", "--deploy")
    assert out.returncode == 0, out.stderr
    assert "System check identified no issues" in out.stdout, out.stdout + out.stderr
    assert "WARNINGS" not in out.stdout + out.stderr


def test_check_deploy_without_https_names_the_missing_protections(tmp_path):
    # The same check fails without DJANGO_HTTPS: proof that the test above can fail.
    out = manage(production_env(tmp_path, DJANGO_HTTPS="0"), "check", "--deploy")
    text = out.stdout + out.stderr
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in text


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("", "is not set"),
        ("   ", "is not set"),
        ("dev-insecure-mafia-protocol-key-change-me", "is not set"),
        ("django-insecure-" + "x1y2z3" * 10, "placeholder"),
        ("please-change-me-" + "a1b2c3d4" * 6, "placeholder"),
        ("short-but-random-9f8e7d", "too short"),
    ],
)
def test_debug_off_with_an_empty_or_placeholder_key_refuses_to_start_in_one_line(tmp_path, key, reason):
    out = manage(production_env(tmp_path, DJANGO_SECRET_KEY=key), "check")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr  # one line, no traceback
    assert lines[0].startswith("Refusing to start with DJANGO_DEBUG=0") and reason in lines[0]


def test_debug_on_keeps_the_demo_key_for_make_run(tmp_path):
    env = production_env(tmp_path, DJANGO_DEBUG="1")
    env.pop("DJANGO_SECRET_KEY")
    assert manage(env, "check").returncode == 0


HTTPS_PROBE = """
import django, json
django.setup()
from django.test import Client
c = Client(SERVER_NAME="mafia.example.org")
plain = c.get("/accounts/login/")
proxied = c.get("/accounts/login/", headers={"X-Forwarded-Proto": "https"})
print(json.dumps({
    "plain_status": plain.status_code,
    "plain_location": plain.get("Location", ""),
    "proxied_status": proxied.status_code,
    "hsts": proxied.get("Strict-Transport-Security", ""),
    "csrf_cookie_secure": bool(proxied.cookies["csrftoken"]["secure"]) if "csrftoken" in proxied.cookies else None,
}))
"""


def test_behind_the_tls_proxy_http_redirects_and_https_carries_hsts_and_secure_cookies(tmp_path):
    env = production_env(tmp_path)
    assert manage(env, "migrate", "--noinput", "--verbosity", "0").returncode == 0
    assert manage(env, "collectstatic", "--noinput", "--verbosity", "0").returncode == 0  # pages name hashed files
    out = subprocess.run(
        [sys.executable, "-c", HTTPS_PROBE],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    import json

    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert probe["plain_status"] == 301 and probe["plain_location"] == "https://mafia.example.org/accounts/login/"
    assert probe["proxied_status"] == 200
    assert probe["hsts"] == "max-age=31536000; includeSubDomains"
    assert probe["csrf_cookie_secure"] is True
