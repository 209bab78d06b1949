"""deploy/rolling-update.sh restarts one worker at a time, drained and ready before the next (issue 27-5).

The script runs for real with stand-ins for systemctl, nginx and curl on
PATH (each logs its call; nginx logs which upstream servers are `down` at
each reload) and a copy of the shipped nginx site.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "rolling-update.sh"
SITE = ROOT / "deploy" / "nginx-mafia-protocol.conf"

STUBS = {
    "systemctl": """#!/bin/bash
if [ "$1" = list-dependencies ]; then printf 'mafia-protocol.target\\n  mafia-protocol@8001.service\\n  mafia-protocol@8002.service\\n'; exit 0; fi
echo "systemctl $*" >> "$LOG"
""",
    "nginx": """#!/bin/bash
if [ "$1" = -s ]; then echo "nginx reload down=[$(grep -oE 'server 127\\.0\\.0\\.1:[0-9]+[^;]* down;' "$NGINX_SITE" | grep -oE ':[0-9]+' | tr -d : | tr '\\n' ' ')]" >> "$LOG"; fi
""",
    "curl": """#!/bin/bash
url="${@: -1}"; port=$(echo "$url" | sed -E 's#.*:([0-9]+)/.*#\\1#')
n=$(grep -c "curl $port" "$LOG" || true)
echo "curl $port $url" >> "$LOG"
[ "$port" = "$NEVER_READY" ] && exit 7
[ "$n" -ge 1 ]  # not ready at the first probe after a restart, ready at the second
""",
}


def run(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], list[str], Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in STUBS.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    site = tmp_path / "site.conf"
    shutil.copy(SITE, site)
    log = tmp_path / "log"
    log.write_text("")
    envfile = tmp_path / "env"
    envfile.write_text("DJANGO_DEBUG=0\n")
    full = {
        **os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "LOG": str(log), "NGINX_SITE": str(site), "ENV_FILE": str(envfile),
        "APP_USER": subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip(),
        "NO_INSTALL": "1", "DRAIN": "0", "SETTLE": "0", "READY_TIMEOUT": "2", "NEVER_READY": "", **env,
    }  # fmt: skip
    done = subprocess.run(["bash", str(SCRIPT)], env=full, capture_output=True, text=True, timeout=60)
    return done, log.read_text().splitlines(), site


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is missing")
def test_one_worker_at_a_time_drained_restarted_ready_and_back(tmp_path):
    done, log, site = run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    steps = [re.sub(r" http://\S+", "", line) for line in log]
    assert steps == [
        "nginx reload down=[8001 ]",
        "systemctl restart mafia-protocol@8001",
        "curl 8001", "curl 8001",
        "nginx reload down=[]",
        "nginx reload down=[8002 ]",
        "systemctl restart mafia-protocol@8002",
        "curl 8002", "curl 8002",
        "nginx reload down=[]",
    ]  # fmt: skip
    assert all("/healthz/ready" in line for line in log if line.startswith("curl"))
    assert site.read_text() == SITE.read_text()  # every worker back in the upstream, nothing else changed


def test_a_worker_that_does_not_come_back_stops_the_update_with_the_others_serving(tmp_path):
    done, log, site = run(tmp_path, NEVER_READY="8001")
    assert done.returncode != 0 and "worker 8001 is not ready" in done.stdout
    assert "systemctl restart mafia-protocol@8002" not in log  # 8002 kept serving, untouched
    assert re.search(r"server 127\.0\.0\.1:8001 [^;]*down;", site.read_text())  # the broken one stays out of nginx
    assert not re.search(r"server 127\.0\.0\.1:8002 [^;]*down;", site.read_text())
