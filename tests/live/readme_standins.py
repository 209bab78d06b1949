"""Stand-ins for the README's commands that cannot run on a test machine.

tests/live/test_readme_deploy.py runs the README's deploy blocks with a
directory of these first on PATH, each name a link to this file: `systemctl`,
`nginx`, `runuser`, `adduser`, `apt-get` and `install`. They do what the real
command would have done for the test's processes (no systemd, no service
user, an nginx of the test's own on free ports) and log every call to
calls.log, which the test reads. Their settings are in
$README_LIVE_STATE/config.json (written by the test).

Run as `python readme_standins.py NAME ARGS...`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

STATE = Path(os.environ["README_LIVE_STATE"])
CONF = json.loads((STATE / "config.json").read_text())
UNIT_DIR = Path(CONF["unit_dir"])
REAL_NGINX = "/usr/sbin/nginx"


def fail(message: str, code: int = 1) -> None:
    print(f"stand-in: {message}", file=sys.stderr)
    sys.exit(code)


def sub_paths(text: str) -> str:
    """The test's path substitutions (/srv/mafia-protocol -> a temporary directory, ...)."""
    for old, new in CONF["paths"].items():
        text = text.replace(old, new)
    return text


def mapped_port(port: str) -> str:
    return str(CONF["ports"].get(port, port))


# --- runuser, adduser, apt-get, install ---------------------------------------------


def runuser(args: list[str]) -> None:
    if len(args) < 2 or args[0] != "-u":
        fail(f"runuser {shlex.join(args)}: only `runuser -u USER [--preserve-environment] -- CMD` is stood in for")
    user, rest = args[1], args[2:]
    if user == "postgres":  # the database's own user exists here: the real command
        os.execv("/usr/sbin/runuser", ["runuser", *args])
    if user != CONF["service_user"]:
        fail(f"runuser: unknown user {user}")
    while rest and rest[0] in ("--preserve-environment", "-p", "-m"):
        rest = rest[1:]
    if not rest or rest[0] != "--":
        fail(f"runuser {shlex.join(args)}: `--` expected before the command")
    # No service user here: the command runs as the test's user.
    os.execvp(rest[1], rest[1:])


def adduser(args: list[str]) -> None:
    if "--system" not in args or args[-1] != CONF["service_user"]:
        fail(f"adduser {shlex.join(args)}: a system user {CONF['service_user']} expected")


def apt_get(args: list[str]) -> None:
    if not args or args[0] != "install":
        fail(f"apt-get {shlex.join(args)}: only install is stood in for")
    missing = []
    for name in (a for a in args[1:] if not a.startswith("-")):
        out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
        if "install ok installed" not in out.stdout:
            missing.append(name)
    if missing:
        fail(f"apt-get install: not installed on this machine: {' '.join(missing)}", 100)


def install(args: list[str]) -> None:
    kept: list[str] = []
    it = iter(args)
    for a in it:
        if a in ("-o", "-g"):  # the service user and group do not exist here
            owner = next(it, "")
            if owner != CONF["service_user"]:
                fail(f"install: unknown owner {owner}")
            continue
        kept.append(a)
    os.execv("/usr/bin/install", ["install", *kept])


# --- systemctl: the units' ExecStart as processes -----------------------------------


def unit_settings(text: str) -> dict[str, list[str]]:
    text = re.sub(r"\\\n\s*", " ", text)  # systemd's line continuations
    settings: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        settings.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return settings


def target_ports(target: str) -> list[str]:
    wants = " ".join(unit_settings((UNIT_DIR / target).read_text()).get("Unit.Wants", []))
    return [mapped_port(p) for p in re.findall(r"mafia-protocol@(\d+)\.service", wants)]


def read_env_file(path: Path) -> dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip().strip('"').strip("'")
    return env


def pid_file(port: str) -> Path:
    return STATE / f"worker-{port}.pid"


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return not re.search(r"^State:\s+Z", status, re.M)


def start_worker(port: str) -> None:
    if pid_file(port).exists() and alive(int(pid_file(port).read_text())):
        return
    unit = unit_settings((UNIT_DIR / "mafia-protocol@.service").read_text())
    service = {k.removeprefix("Service."): v for k, v in unit.items() if k.startswith("Service.")}
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    for path in service.get("EnvironmentFile", []):
        env.update(read_env_file(Path(sub_paths(path.removeprefix("-")))))
    for assignments in service.get("Environment", []):
        for assignment in shlex.split(assignments):
            key, _, value = assignment.partition("=")
            env[key] = value
    env.update(CONF.get("extra_env", {}))  # what the README says to add on a non-standard port
    command = shlex.split(sub_paths(service["ExecStart"][-1].replace("%i", port)))
    log = (STATE / f"worker-{port}.log").open("ab")
    proc = subprocess.Popen(
        command,
        cwd=sub_paths(service["WorkingDirectory"][-1]),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    pid_file(port).write_text(str(proc.pid))


def stop_worker(port: str) -> None:
    if not pid_file(port).exists():
        return
    pid = int(pid_file(port).read_text())
    unit = unit_settings((UNIT_DIR / "mafia-protocol@.service").read_text())
    timeout = float(unit.get("Service.TimeoutStopSec", ["90"])[-1])
    with_signal = getattr(signal, unit.get("Service.KillSignal", ["SIGTERM"])[-1])
    if alive(pid):
        os.kill(pid, with_signal)
        deadline = time.monotonic() + timeout
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    pid_file(port).unlink()


def instances(units: list[str]) -> list[str]:
    ports = []
    for unit in units:
        if unit.endswith(".target"):
            ports += target_ports(unit)
        elif m := re.fullmatch(r"mafia-protocol@(\d+)(\.service)?", unit):
            ports.append(mapped_port(m.group(1)))
        else:
            fail(f"systemctl: unknown unit {unit}")
    return ports


def systemctl(args: list[str]) -> None:
    if args == ["daemon-reload"]:
        return
    if args[:1] == ["list-dependencies"]:
        target = args[-1]
        print(target)
        for port in target_ports(target):
            print(f"  mafia-protocol@{port}.service")
        return
    if args == ["reload", "nginx"]:
        nginx_render()
        pid = STATE / "nginx.pid"
        if pid.exists() and alive(int(pid.read_text().strip() or 0)):
            subprocess.run([REAL_NGINX, "-c", str(STATE / "nginx.conf"), "-s", "reload"], check=True)
        else:
            subprocess.run([REAL_NGINX, "-c", str(STATE / "nginx.conf")], check=True)
        return
    if args[:2] == ["enable", "--now"] or args[:1] == ["start"]:
        for port in instances([a for a in args[1:] if not a.startswith("-")]):
            start_worker(port)
        return
    if args[:1] == ["restart"]:
        for port in instances(args[1:]):
            stop_worker(port)
            start_worker(port)
        return
    fail(f"systemctl {shlex.join(args)}: not stood in for")


# --- nginx: the copied site, on the test's ports, in the test's nginx.conf -----------


def nginx_render() -> None:
    site = Path(CONF["nginx_site"])
    if Path(CONF["nginx_enabled"]).resolve() != site.resolve():
        fail(f"nginx: {CONF['nginx_enabled']} does not lead to {site}")
    # The ports of the workers in the copied site itself: the update script edits those lines.
    text = site.read_text()
    for old, new in CONF["ports"].items():
        text = text.replace(f"server 127.0.0.1:{old} ", f"server 127.0.0.1:{new} ")
    site.write_text(text)
    # What the README says to set by hand: certificates (their paths), and a port other than 80/443.
    text = sub_paths(text)
    for line in ("listen [::]:80;", "listen [::]:443 ssl http2;"):
        text = text.replace(line, "")
    text = text.replace("listen 80;", f"listen 127.0.0.1:{CONF['http_port']};")
    text = text.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{CONF['https_port']} ssl http2;")
    text = text.replace("proxy_set_header Host $host;", "proxy_set_header Host $http_host;")
    (STATE / "site.conf").write_text(text)
    user = "user root;\n" if os.geteuid() == 0 else ""
    (STATE / "nginx.conf").write_text(
        f"""{user}worker_processes 1;
worker_rlimit_nofile {CONF["worker_rlimit_nofile"]};
pid {STATE}/nginx.pid;
error_log {STATE}/nginx-error.log;
events {{ worker_connections {CONF["worker_connections"]}; }}
http {{
    access_log {STATE}/nginx-access.log;
    client_body_temp_path {STATE}/client_body;
    proxy_temp_path {STATE}/proxy;
    fastcgi_temp_path {STATE}/fastcgi;
    uwsgi_temp_path {STATE}/uwsgi;
    scgi_temp_path {STATE}/scgi;
    include {STATE}/site.conf;
}}
"""
    )


def nginx(args: list[str]) -> None:
    if args and args[0] == "-t" and set(args[1:]) <= {"-q"}:
        nginx_render()
        os.execv(REAL_NGINX, ["nginx", "-c", str(STATE / "nginx.conf"), *args])
    if args == ["-s", "reload"]:
        nginx_render()
        os.execv(REAL_NGINX, ["nginx", "-c", str(STATE / "nginx.conf"), "-s", "reload"])
    fail(f"nginx {shlex.join(args)}: not stood in for")


COMMANDS = {
    "runuser": runuser,
    "adduser": adduser,
    "apt-get": apt_get,
    "install": install,
    "systemctl": systemctl,
    "nginx": nginx,
}

if __name__ == "__main__":
    name, args = sys.argv[1], sys.argv[2:]
    with (STATE / "calls.log").open("a") as calls:
        calls.write(json.dumps([name, *args]) + "\n")
    COMMANDS[name](args)
