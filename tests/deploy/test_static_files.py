"""Static files in production come from the app itself through WhiteNoise (issue 15).

collectstatic with DEBUG off writes hashed, compressed copies; pages name the
hashed files and the app serves them with a long immutable Cache-Control.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.deploy.test_production_settings import ROOT, manage, production_env

PROBE = """
import django, json, re
django.setup()
from django.templatetags.static import static
from django.test import Client
c = Client(SERVER_NAME="mafia.example.org", headers={"X-Forwarded-Proto": "https"})
login = c.get("/accounts/login/").content.decode()
hashed = static("js/console.js")
asset = c.get(hashed, headers={"Accept-Encoding": "gzip"})
body = b"".join(asset.streaming_content) if asset.streaming else asset.content
print(json.dumps({
    "hashed": hashed,
    "htmx_in_page": static("vendor/htmx.min.js") in login,
    "css_in_page": static("css/app.css") in login,
    "status": asset.status_code,
    "cache": asset.get("Cache-Control", ""),
    "encoding": asset.get("Content-Encoding", ""),
    "length": len(body),
    "missing": c.get("/static/js/no-such-file.js").status_code,
}))
"""


def test_debug_off_serves_hashed_compressed_static_files_with_long_cache_headers(tmp_path):
    env = production_env(tmp_path, DJANGO_STATIC_ROOT=str(tmp_path / "static"))
    assert manage(env, "migrate", "--noinput", "--verbosity", "0").returncode == 0
    collected = manage(env, "collectstatic", "--noinput")
    assert collected.returncode == 0, collected.stderr
    assert list((tmp_path / "static" / "js").glob("console.*.js.gz")), "no hashed, compressed console.js"

    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert probe["hashed"].startswith("/static/js/console.") and probe["hashed"] != "/static/js/console.js"
    assert probe["htmx_in_page"] and probe["css_in_page"], "the page does not name the hashed files"
    assert probe["status"] == 200 and probe["length"] > 0
    assert "max-age=315360000" in probe["cache"] and "immutable" in probe["cache"]
    assert probe["encoding"] == "gzip"
    assert probe["missing"] == 404
