"""The README's deploy, backup, restore and update blocks, run as written (issue 27-7).

The blocks marked `<!-- readme-live: NAME -->` in README.md are taken out of
the README and run line by line in one bash each, stopping at the first line
that fails (a failing command inside an `a && b` chain included). The only
changes to their text are the substitutions the README lists («What the
README test runs»): paths under a temporary directory, a unique database and
role instead of `mafia`, free ports instead of 8001/8002 and 80/443, a local
clone as REPOSITORY. What cannot run here (systemd, the service user, the
system's nginx) is stood in for by tests/live/readme_standins.py, which runs
the copied units' ExecStart as processes and loads the copied nginx site into
an nginx of the test's own; the units' and the README's settings that only a
real server would use are checked in their text.

Then, as a club's administrator would: /healthz and a sign-in through nginx
(TLS, a self-signed certificate) as the account createsuperuser made; a game;
the backup and the restore blocks, the restored database compared with the
original; the update block after a new commit upstream, while requests go
through nginx: both workers restarted on the new commit, its new hashed static
file served, the old one kept, no request failed.

Runs where PostgreSQL (127.0.0.1:5432, user postgres, trust), Redis and
Debian's nginx answer, as root (the README's steps are root's); builds a venv
with pip from the package index (~1 min), about 4 minutes in all (~3 in the test itself).
"""

from __future__ import annotations

import datetime
import http.cookiejar
import json
import os
import pty
import re
import secrets
import select
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.live.test_two_daphne_redis import ROOT, free_port, redis_up

pytestmark = pytest.mark.live

README = ROOT / "README.md"
STANDINS = Path(__file__).with_name("readme_standins.py")
NGINX = "/usr/sbin/nginx"
PG = "postgres://postgres@127.0.0.1:5432/postgres"
ADMIN, ADMIN_PASSWORD = "club-admin", "Readme-" + secrets.token_urlsafe(12)
SERVICE_USER = "mafia"
BLOCK = re.compile(r"<!-- readme-live: ([\w-]+) -->\n```sh\n(.*?)\n```", re.S)


def readme_blocks() -> dict[str, str]:
    blocks = dict(BLOCK.findall(README.read_text()))
    assert {"setup", "update", "backup", "restore", "add-worker"} <= blocks.keys(), (
        f"README blocks marked: {sorted(blocks)}"
    )
    return blocks


def logical_lines(block: str) -> list[str]:
    """The block's commands: continuation lines joined, comment-only and empty lines left out."""
    lines = []
    for line in re.sub(r"\\\n", " ", block).splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            lines.append(line)
    return lines


def as_script(block: str) -> str:
    # Not `set -e`: it ignores a failure before the last command of an `a && b && c`
    # chain. The status of each README line is checked instead.
    out = ["set -u -o pipefail"]
    for line in logical_lines(block):
        out.append(f"printf '%s %s\\n' \"$(date -u +%T)\" {shlex.quote('README$ ' + line)}")
        out.append(line)
        out.append(
            f'__readme_rc=$?; if [ "$__readme_rc" -ne 0 ]; then printf "README LINE FAILED (exit %s): %s\\n" "$__readme_rc" {shlex.quote(line)}; exit "$__readme_rc"; fi'
        )
    return "\n".join(out) + "\n"


def substitute(block: str, subs: list[tuple[str, str]]) -> str:
    for old, new in subs:
        block = block.replace(old, new)
    return block


def run_block(
    name: str,
    text: str,
    env: dict[str, str],
    state: Path,
    answers: list[tuple[str, str]] | None = None,
    timeout: float = 300,
) -> str:
    """Run a block's lines in bash; with answers, on a terminal (prompts answered in order)."""
    script = state / f"block-{name}.sh"
    script.write_text(as_script(text))
    log = state / f"block-{name}.log"
    if not answers:
        proc = subprocess.run(
            ["/bin/bash", str(script)],
            cwd="/",
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        output = proc.stdout + proc.stderr
        log.write_text(output)
        assert proc.returncode == 0, f"README block {name!r} failed:\n{output[-4000:]}"
        return output
    pending = list(answers)
    pid, fd = pty.fork()
    if pid == 0:  # the child: bash on the terminal
        try:
            os.chdir("/")
            os.execve("/bin/bash", ["bash", str(script)], env)
        finally:
            os._exit(127)
    out = bytearray()
    answered_at = 0
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
            fresh = out[answered_at:].decode(errors="replace")
            if pending and re.search(pending[0][0], fresh):
                os.write(fd, pending.pop(0)[1].encode() + b"\n")
                answered_at = len(out)
        else:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(
                f"README block {name!r} did not finish in {timeout:.0f} s:\n{out.decode(errors='replace')[-3000:]}"
            )
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    output = out.decode(errors="replace").replace("\r\n", "\n")
    log.write_text(output)
    assert os.waitstatus_to_exitcode(status) == 0, f"README block {name!r} failed:\n{output[-4000:]}"
    assert not pending, f"README block {name!r}: prompts never asked: {pending}"
    return output


class Browser:
    """A browser through nginx's TLS port: cookies, CSRF, Origin and Referer as a browser sends them."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the test's self-signed certificate
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), urllib.request.HTTPSHandler(context=context)
        )

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=10) as r:
                return r.status, r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def login(self, username: str, password: str) -> None:
        status, _ = self.get("/accounts/login/")
        assert status == 200, status
        token = next(c.value for c in self.jar if c.name == "csrftoken")
        data = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": token}
        ).encode()
        headers = {"Referer": self.base + "/accounts/login/", "Origin": self.base}
        with self.opener.open(
            urllib.request.Request(self.base + "/accounts/login/", data=data, headers=headers), timeout=10
        ) as r:
            assert r.status == 200, r.status
        assert any(c.name == "sessionid" for c in self.jar), "sign-in failed: no session cookie"


def get_status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


class Poller(threading.Thread):
    """Asks nginx for the sign-in page and /healthz every 0.2 s; counts every failure."""

    def __init__(self, browser: Browser) -> None:
        super().__init__(daemon=True)
        self.browser = browser
        self.stop = threading.Event()
        self.requests = 0
        self.failures: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            for path in ("/accounts/login/", "/healthz"):
                self.requests += 1
                try:
                    status, _ = self.browser.get(path)
                except OSError as e:
                    self.failures.append(f"{path}: {e}")
                    continue
                if status != 200:
                    self.failures.append(f"{path}: {status}")
            time.sleep(0.2)


def pg(db: str = "postgres"):
    import psycopg

    return psycopg.connect(PG.rsplit("/", 1)[0] + "/" + db, autocommit=True, connect_timeout=3)


def pg_up() -> bool:
    try:
        with pg():
            return True
    except Exception:
        return False


def rows(db: str, query: str) -> list[tuple[object, ...]]:
    with pg(db) as conn:
        return conn.execute(query).fetchall()


def alive(pid: int) -> bool:
    try:
        return not re.search(r"^State:\s+Z", Path(f"/proc/{pid}/status").read_text(), re.M)
    except OSError:
        return False


def base_python() -> str:
    """The machine's Python >= 3.12: the one this test's venv was made with (Debian 12's python3 is 3.11)."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def readme_number(pattern: str) -> int:
    m = re.search(pattern, README.read_text())
    assert m, f"the README no longer says {pattern!r}"
    return int(m.group(1))


GAME = """
from django.contrib.auth import get_user_model
from games import services
host = get_user_model().objects.get(username={admin!r})
game = services.game_create(host=host, title="README live", players=[f"P{{i}}" for i in range(1, 11)])
for action in ({{"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}}, {{"do": "start"}}, {{"do": "next"}}, {{"do": "next"}}):
    services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
print("GAME", game.pk)
"""


@pytest.fixture
def machine(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the README's steps are root's (runuser, the database's postgres user)")
    if not Path(NGINX).exists():
        pytest.skip(f"{NGINX} is missing (.ci/run installs Debian's nginx)")
    if not redis_up():
        pytest.skip("Redis is not reachable on 127.0.0.1:6379 (.ci/run starts it)")
    if not pg_up():
        pytest.skip(f"PostgreSQL is not reachable at {PG} (.ci/run starts it)")
    for tool in ("git", "openssl", "curl", "msgfmt"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is missing")

    role = f"mafia_readme_{secrets.token_hex(4)}"
    ports = {"8001": free_port(), "8002": free_port(), "8003": free_port()}
    http_port, https_port = free_port(), free_port()
    root = tmp_path / "root"
    state = tmp_path / "state"
    state.mkdir()
    paths = {
        p: str(root / p.lstrip("/"))
        for p in (
            "/srv/mafia-protocol",
            "/etc/mafia-protocol",
            "/etc/systemd/system",
            "/etc/nginx",
            "/etc/letsencrypt",
            "/var/backups",
        )
    }
    # What a Debian machine with nginx installed has; /srv/mafia-protocol is the README's to make.
    for p in (
        "/etc/systemd/system",
        "/etc/nginx/sites-available",
        "/etc/nginx/sites-enabled",
        "/etc/letsencrypt/live/mafia.example.org",
        "/var/backups",
    ):
        (root / p.lstrip("/")).mkdir(parents=True, exist_ok=True)
    (root / "srv").mkdir(exist_ok=True)
    # certbot's certificate, self-signed.
    live = root / "etc/letsencrypt/live/mafia.example.org"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", str(live / "privkey.pem"), "-out", str(live / "fullchain.pem")],
        check=True, capture_output=True,
    )  # fmt: skip

    # REPOSITORY: a clone of this tree on a branch (CI may check out a detached commit), with
    # its uncommitted changes committed, so that `git pull` in the deployment has an upstream.
    upstream = tmp_path / "upstream"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(upstream)], check=True)
    git = ["git", "-C", str(upstream), "-c", "user.name=readme-test", "-c", "user.email=readme-test@localhost"]
    subprocess.run([*git, "checkout", "-q", "-B", "readme-live"], check=True)
    diff = subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD", "--binary"], check=True, capture_output=True).stdout
    if diff:
        subprocess.run([*git, "apply", "--index"], input=diff, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "the working tree under test"], check=True)

    worker_rlimit = readme_number(r"worker_rlimit_nofile (\d+);")
    worker_connections = readme_number(r"events \{ worker_connections (\d+); \}")
    config = {
        "service_user": SERVICE_USER, "unit_dir": paths["/etc/systemd/system"], "paths": paths, "ports": ports,
        "http_port": http_port, "https_port": https_port,
        "nginx_site": str(root / "etc/nginx/sites-available/mafia-protocol"), "nginx_enabled": str(root / "etc/nginx/sites-enabled/mafia-protocol"),
        "worker_rlimit_nofile": worker_rlimit, "worker_connections": worker_connections,
        # The README: behind a port other than 443, list the origin with its port.
        "extra_env": {"DJANGO_CSRF_TRUSTED_ORIGINS": f"https://127.0.0.1:{https_port}"},
    }  # fmt: skip
    (state / "config.json").write_text(json.dumps(config))
    bin_dir = state / "bin"
    bin_dir.mkdir()
    for name in ("systemctl", "nginx", "runuser", "adduser", "apt-get", "install"):
        (bin_dir / name).write_text(
            f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(STANDINS))} {name} "$@"\n'
        )
        (bin_dir / name).chmod(0o755)
    # A root shell's environment, not this test's (no DATABASE_URL or DJANGO_* of its own).
    env = {k: v for k, v in os.environ.items() if k.startswith("PIP_") or k in ("HOME", "TERM", "LANG", "TZ")}
    env.update(
        {
            "PATH": f"{bin_dir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "README_LIVE_STATE": str(state),
            "PYTHON": base_python(),
        }
    )
    # Ports first: the temporary paths and the role name may contain their digits.
    subs = [
        *((old, str(new)) for old, new in ports.items()),
        *(
            (old, new) for old, new in paths.items() if old != "/etc/letsencrypt"
        ),  # that one is in the nginx site, not in the README
        ("REPOSITORY", str(upstream)),
        ("createuser mafia", f"createuser {role}"),
        ("createdb -O mafia mafia", f"createdb -O {role} {role}"),
        ("postgres://mafia@/mafia", f"postgres://{role}@/{role}"),
    ]
    yield {
        "root": root, "state": state, "env": env, "subs": subs, "role": role, "ports": ports, "upstream": upstream, "git": git,
        "srv": Path(paths["/srv/mafia-protocol"]), "https": f"https://127.0.0.1:{https_port}", "http": f"http://127.0.0.1:{http_port}",
    }  # fmt: skip

    # nginx first (its keepalive connections would hold the workers' graceful stop), then
    # every worker at once, SIGKILL after 10 s.
    nginx_pid = state / "nginx.pid"
    pids = [int(t) for t in [nginx_pid.read_text().strip()] if t] if nginx_pid.exists() else []
    pids += [int(p.read_text()) for p in sorted(state.glob("worker-*.pid"))]
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    with pg() as admin:
        for db in (role, f"{role}_restored"):
            admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        admin.execute(f'DROP ROLE IF EXISTS "{role}"')
    # The venv is ~200 MB in thousands of files: removed in the background (30-40 s on a busy disk).
    subprocess.Popen(
        ["rm", "-rf", str(root / "srv/mafia-protocol/.venv")],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_readme_setup_backup_restore_and_update_run_as_written(machine):
    blocks = readme_blocks()
    subs, env, state = machine["subs"], machine["env"], machine["state"]
    for old, _ in subs:
        assert any(old in block for block in blocks.values()), (
            f"substitution {old!r} found in no README block: update the test with the README"
        )
    started = time.monotonic()
    timings: dict[str, float] = {}

    # --- the setup, as root, once ------------------------------------------------
    prompts = [
        (r"(?:Имя пользователя|Username)[^\n]*: *$", ADMIN),
        (r"(?:Адрес электронной почты|Email address)[^\n]*: *$", "admin@example.org"),
        (r"Password: *$", ADMIN_PASSWORD),
        (r"Password \(again\): *$", ADMIN_PASSWORD),
    ]
    output = run_block("setup", substitute(blocks["setup"], subs), env, state, answers=prompts, timeout=400)
    timings["setup"] = time.monotonic() - started
    assert "System check identified no issues" in output, output[-3000:]
    assert re.search(r'"status": "ok"', output), "the README's closing curl saw no healthy worker"

    calls = [json.loads(line) for line in (state / "calls.log").read_text().splitlines()]
    names = [" ".join(c) for c in calls]
    assert any(c[:2] == ["apt-get", "install"] for c in calls)
    assert any(c[0] == "adduser" for c in calls)
    enable = names.index("systemctl enable --now mafia-protocol.target")
    assert "systemctl daemon-reload" in names[:enable], "the units are enabled before systemd reads them"
    assert "systemctl reload nginx" in names[enable:], "nginx is never reloaded with the site"

    # The unit as copied: what systemd would run and with which limits (only checked here).
    unit = (machine["root"] / "etc/systemd/system/mafia-protocol@.service").read_text()
    assert re.search(r"^User=mafia$", unit, re.M) and re.search(
        r"^EnvironmentFile=/etc/mafia-protocol/env$", unit, re.M
    )
    limit = re.search(r"^LimitNOFILE=(\d+)$", unit, re.M)
    assert limit and int(limit.group(1)) >= 65536, "each spectator is an open file: the default 1,024 capped a worker"
    assert re.search(r"^Environment=PYTHONUNBUFFERED=1$", unit, re.M), "the access log would be block-buffered"
    assert re.search(
        r"^ExecStart=/srv/mafia-protocol/\.venv/bin/daphne .*--access-log - ", re.sub(r"\\\n\s*", " ", unit), re.M
    )
    check_nginx_settings(machine)

    # The venv: the named interpreter, no development extras.
    srv = machine["srv"]
    venv_cfg = (srv / ".venv/pyvenv.cfg").read_text()
    assert re.search(r"^version(_info)? = 3\.1[2-9]", venv_cfg, re.M), venv_cfg
    freeze = subprocess.run(
        [str(srv / ".venv/bin/python"), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    for dev in ("pytest", "playwright", "mypy", "ruff"):
        assert f"\n{dev}==" not in f"\n{freeze}", f"{dev} is in the production venv"
    assert "daphne==" in freeze and "django==" in freeze

    # --- both workers, nginx, a sign-in --------------------------------------------
    for port in (machine["ports"]["8001"], machine["ports"]["8002"]):
        assert get_status(f"http://127.0.0.1:{port}/healthz/ready") == 200
    assert get_status(machine["http"] + "/healthz") == 200
    browser = Browser(machine["https"])
    browser.login(ADMIN, ADMIN_PASSWORD)
    status, page = browser.get("/games/")
    assert status == 200 and ADMIN in page, (status, page[:500])
    # The unbuffered access log: the sign-in's lines are there while the worker runs.
    logs = "".join(p.read_text(errors="replace") for p in state.glob("worker-*.log"))
    assert '"POST /accounts/login/' in logs, logs[-2000:]

    # A game to back up, recorded by the first admin.
    py = str(srv / ".venv/bin/python")
    shell_env = {**env, **env_file(machine), "PYTHONPATH": str(srv)}
    out = subprocess.run(
        [py, "manage.py", "shell", "-c", GAME.format(admin=ADMIN)],
        cwd=srv,
        env=shell_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    game = int(re.search(r"GAME (\d+)", out.stdout).group(1))  # type: ignore[union-attr]
    status, page = browser.get(f"/games/{game}/")
    assert status == 200 and "README live" in page, status

    # --- backup, restore into a fresh database, compare ------------------------------
    t = time.monotonic()
    run_block("backup", substitute(blocks["backup"], subs), env, state)
    archive = machine["root"] / f"var/backups/mafia-protocol/mafia-{datetime.date.today():%F}.json"
    assert archive.exists() and archive.stat().st_size > 0
    assert archive.parent.stat().st_mode & 0o077 == 0, (
        "the backups' directory is readable by others (password hashes, secrets)"
    )
    output = run_block("restore", substitute(blocks["restore"], subs), env, state)
    timings["backup+restore"] = time.monotonic() - t
    role = machine["role"]
    for query in (
        # Accounts are archived by username, never by id (tournaments/archive.py); every other row keeps its id.
        "SELECT username, password, is_superuser, is_staff, is_active FROM auth_user ORDER BY username",
        "SELECT g.id, g.title, g.seq, g.public_rev, g.rated, g.status, u.username FROM games_game g JOIN auth_user u ON u.id = g.host_id ORDER BY g.id",
        "SELECT a.id, a.game_id, a.seq, a.payload::text, a.created_at, c.username, a.undone_at, d.username FROM games_gameaction a"
        " LEFT JOIN auth_user c ON c.id = a.created_by_id LEFT JOIN auth_user d ON d.id = a.undone_by_id ORDER BY a.id",
        "SELECT id, game_id, seat_no, nickname, role FROM games_gameseat ORDER BY id",
    ):
        original = rows(role, query)
        assert original, query
        assert rows(f"{role}_restored", query) == original, query

    # --- an update: a new commit upstream, the README's update block ------------------
    manifest = srv / "staticfiles/staticfiles.json"
    old_css = json.loads(manifest.read_text())["paths"]["css/app.css"]
    git = machine["git"]
    css = machine["upstream"] / "static/css/app.css"
    css.write_text(css.read_text() + f"\n/* readme update {secrets.token_hex(4)} */\n")
    subprocess.run([*git, "commit", "-q", "-am", "an update"], check=True)
    new_head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    old_pids = {p.name: p.read_text() for p in state.glob("worker-*.pid")}
    poller = Poller(Browser(machine["https"]))
    poller.start()
    t = time.monotonic()
    update_env = {
        **env,
        "ENV_FILE": str(machine["root"] / "etc/mafia-protocol/env"),
        "NGINX_SITE": str(machine["root"] / "etc/nginx/sites-available/mafia-protocol"),
    }
    try:
        output = run_block("update", substitute(blocks["update"], subs), update_env, state, timeout=300)
    finally:
        time.sleep(1)
        poller.stop.set()
        poller.join(10)
    timings["update"] = time.monotonic() - t
    assert "rolling-update: done:" in output, output[-2000:]
    assert (
        subprocess.run(
            ["git", "-C", str(srv), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        == new_head
    )
    new_css = json.loads(manifest.read_text())["paths"]["css/app.css"]
    assert new_css != old_css
    assert (srv / "staticfiles" / old_css).exists(), "the old hashed file was removed: old pages lose their style"
    new_pids = {p.name: p.read_text() for p in state.glob("worker-*.pid")}
    assert new_pids.keys() == old_pids.keys() and all(new_pids[k] != old_pids[k] for k in old_pids), (
        "a worker was not restarted"
    )
    for port in (machine["ports"]["8001"], machine["ports"]["8002"]):
        # Straight at the worker, as nginx asks it (DJANGO_HTTPS=1 redirects plain HTTP).
        assert get_status(f"http://127.0.0.1:{port}/static/{new_css}", {"X-Forwarded-Proto": "https"}) == 200, (
            f"worker {port} does not serve the new commit's static file"
        )
    assert browser.get(f"/static/{new_css}")[0] == 200
    assert poller.requests > 20 and not poller.failures, (
        f"{len(poller.failures)} of {poller.requests} requests failed during the update: {poller.failures[:5]}"
    )
    # The plain HTTP port of the shipped site still answers probes after nginx's reloads.
    assert get_status(machine["http"] + "/healthz") == 200

    # --- a third worker, by the README's words ------------------------------------
    t = time.monotonic()
    run_block("add-worker", substitute(blocks["add-worker"], subs), env, state)
    third = machine["ports"]["8003"]
    target = (machine["root"] / "etc/systemd/system/mafia-protocol.target").read_text()
    assert f"mafia-protocol@{third}.service" in target, "updates would not restart the new worker"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if get_status(f"http://127.0.0.1:{third}/healthz/ready") == 200:
                break
        except OSError:
            pass
        time.sleep(0.5)
    else:
        raise AssertionError(
            f"the third worker never became ready: {(state / f'worker-{third}.log').read_text()[-2000:]}"
        )
    for _ in range(15):
        assert browser.get("/accounts/login/")[0] == 200
    assert '"GET /accounts/login/' in (state / f"worker-{third}.log").read_text(), (
        "nginx sends the third worker nothing"
    )
    timings["add-worker"] = time.monotonic() - t

    timings["total"] = time.monotonic() - started
    print(
        "README live test: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
        + f"; {poller.requests} requests during the update, 0 failed"
    )


def env_file(machine) -> dict[str, str]:
    env = {}
    for line in (machine["root"] / "etc/mafia-protocol/env").read_text().splitlines():
        key, _, value = line.partition("=")
        if key:
            env[key] = value
    return env


def check_nginx_settings(machine) -> None:
    """The README's nginx.conf settings (the test's nginx ran with them) and the site as copied."""
    connections = readme_number(r"events \{ worker_connections (\d+); \}")
    assert connections >= 16384, "Debian's 768 connections capped 900 spectators at 764"
    assert readme_number(r"worker_rlimit_nofile (\d+);") >= connections
    conf = (machine["state"] / "nginx.conf").read_text()
    assert f"worker_connections {connections};" in conf
    site = (machine["root"] / "etc/nginx/sites-available/mafia-protocol").read_text()
    assert re.search(r"max_fails=1 fail_timeout=2s;", site), "one worker down must not mark the others"
    assert "proxy_next_upstream error timeout;" in site, "an answer of the app (a 503) must not mark a worker down"


def test_readme_blocks_are_found_and_each_line_is_checked():
    """The extraction itself: a failing line anywhere in a chain stops the block."""
    blocks = readme_blocks()
    assert "deploy/rolling-update.sh" in blocks["update"]
    assert "export_archive" in blocks["backup"] and "import_archive" in blocks["restore"]
    script = as_script("true && false && true\necho after")
    proc = subprocess.run(["/bin/bash", "-c", script], capture_output=True, text=True)
    assert (
        proc.returncode == 1
        and "README LINE FAILED (exit 1): true && false && true" in proc.stdout
        and "after" not in proc.stdout.replace("README$ echo after", "")
    )
