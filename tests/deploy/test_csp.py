"""Content-Security-Policy on every page, and no inline script in any template (issue 15)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from games import services

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def policy_of(response) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.django_db
def test_every_kind_of_page_carries_the_policy_without_inline_or_eval(client, host, settings):
    settings.ALLOWED_HOSTS = ["mafia.example.org"]
    game = services.game_create(host=host, title="CSP", players=[f"P{i}" for i in range(1, 11)])
    client.force_login(host)
    pages = [
        reverse("login"),
        reverse("games:list"),
        reverse("games:create"),
        reverse("games:console", args=[game.pk]),
        reverse("board:board", args=[game.pk]),
        reverse("tournaments:list"),
    ]
    for url in pages:
        response = client.get(url, HTTP_HOST="mafia.example.org")
        assert response.status_code == 200, url
        policy = policy_of(response)
        assert policy["script-src"] == ["'self'"], url
        assert policy["default-src"] == ["'self'"] and policy["object-src"] == ["'none'"]
        header = response.headers["Content-Security-Policy"]
        assert "unsafe-inline" not in header and "unsafe-eval" not in header
        # The live board's websocket: this host's ws:// and wss://, and nothing else.
        assert policy["connect-src"] == ["'self'", "ws://mafia.example.org", "wss://mafia.example.org"], url


@pytest.mark.django_db
def test_a_refused_host_still_gets_the_static_policy(client):
    response = client.get(reverse("login"), HTTP_HOST="evil.example.com")
    assert response.status_code == 400
    assert policy_of(response)["connect-src"] == ["'self'"]


COMMENTS = re.compile(r"\{#.*?#\}|\{% comment %\}.*?\{% endcomment %\}", re.DOTALL)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
EVAL_FEATURES = re.compile(r"hx-on|hx-trigger=\"[^\"]*\[|hx-vals='js:|hx-vals=\"js:|javascript:", re.IGNORECASE)
INLINE_STYLE = re.compile(r"<style\b|\sstyle\s*=", re.IGNORECASE)


def test_no_template_has_inline_script_handlers_styles_or_eval_based_htmx():
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = COMMENTS.sub("", path.read_text(encoding="utf-8"))
        for name, pattern in (
            ("inline <script>", INLINE_SCRIPT),
            ("on* handler", INLINE_HANDLER),
            ("eval-based htmx", EVAL_FEATURES),
            ("inline style", INLINE_STYLE),
        ):
            found += [f"{path.relative_to(TEMPLATES)}: {name}: {m.group(0)!r}" for m in pattern.finditer(text)]
    assert not found, "\n".join(found)


def test_htmx_is_configured_for_the_policy():
    base = (TEMPLATES / "base.html").read_text(encoding="utf-8")
    # Right after htmx, before htmx reads its config on DOMContentLoaded.
    assert "vendor/htmx.min.js' %}\" defer></script>\n  <script src=\"{% static 'js/htmx-csp.js' %}\" defer>" in base
    script = (TEMPLATES.parent / "static" / "js" / "htmx-csp.js").read_text(encoding="utf-8")
    assert "htmx.config.allowEval = false" in script and "htmx.config.includeIndicatorStyles = false" in script


@pytest.mark.django_db
def test_debug_error_pages_are_readable_and_production_ones_carry_the_policy(client, settings):
    settings.DEBUG = True  # Django's technical 404 page styles itself inline
    assert "Content-Security-Policy" not in client.get("/no-such-page/").headers
    settings.DEBUG = False
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404 and "script-src 'self'" in missing.headers["Content-Security-Policy"]
