#!/bin/bash
# Rolling update of Протокол мафии: one worker at a time, never an outage (issue 27-5).
#
#   sudo deploy/rolling-update.sh            # from the app's tree, as root
#
# 1. As the service user: `git pull --ff-only`, install (no dev extras),
#    compile the catalogues, migrate, collectstatic. collectstatic never
#    clears: the old hashed files stay for the pages old workers still serve,
#    and nginx asks another worker when one does not know a new file yet
#    (`location /static/`: proxy_next_upstream http_404).
# 2. For each worker (the instances of mafia-protocol.target, or PORTS):
#    drain it (its `server` line in nginx's site gets `down`, nginx reloads:
#    new requests and websockets go to the others, requests in flight
#    finish), wait DRAIN seconds, restart it, wait until its /healthz/ready
#    answers 200 (at most READY_TIMEOUT seconds; a worker that does not come
#    back stops the update with the others still serving), put it back into
#    nginx, wait SETTLE seconds (longer than nginx's fail_timeout), next.
#
# Settings (environment): APP_USER (mafia), ENV_FILE (/etc/mafia-protocol/env),
# NGINX_SITE (/etc/nginx/sites-available/mafia-protocol; empty: no drain),
# PORTS (default: the target's instances), DRAIN (2), SETTLE (3),
# NGINX (the nginx command), RESTART (systemctl restart mafia-protocol@%s),
# READY_TIMEOUT (60), NO_PULL=1 (skip git pull), NO_INSTALL=1 (skip step 1
# but for nothing else). tests/deploy/test_rolling_update.py runs it with
# stand-ins for systemctl, nginx, curl and git.
set -euo pipefail

cd "$(dirname "$0")/.."
APP_USER=${APP_USER:-mafia}
ENV_FILE=${ENV_FILE:-/etc/mafia-protocol/env}
NGINX_SITE=${NGINX_SITE-/etc/nginx/sites-available/mafia-protocol}
DRAIN=${DRAIN:-2}
SETTLE=${SETTLE:-3}
READY_TIMEOUT=${READY_TIMEOUT:-60}
# How to reload nginx and restart one worker (%s: its port); tests/live sets
# them for processes of its own.
NGINX=${NGINX:-nginx}
RESTART=${RESTART:-systemctl restart mafia-protocol@%s}

say() { printf '%s rolling-update: %s\n' "$(date -u +%FT%TZ)" "$*"; }

as_app() {
    if [ "$(id -un)" = "$APP_USER" ]; then "$@"; else runuser -u "$APP_USER" -- "$@"; fi
}

if [ -z "${PORTS:-}" ]; then
    PORTS=$(systemctl list-dependencies --plain --no-pager mafia-protocol.target | sed -n 's/.*mafia-protocol@\([0-9][0-9]*\)\.service.*/\1/p' | sort -u | tr '\n' ' ')
fi
[ -n "${PORTS// /}" ] || { say "no workers found (mafia-protocol.target has no mafia-protocol@PORT)"; exit 1; }

# shellcheck disable=SC1090
set -a; . "$ENV_FILE"; set +a

if [ "${NO_INSTALL:-0}" != 1 ]; then
    [ "${NO_PULL:-0}" = 1 ] || as_app git pull --ff-only
    as_app .venv/bin/pip install --quiet -e .  # as the README installs it
    as_app .venv/bin/python manage.py compilemessages --ignore=.venv --verbosity 0
    as_app .venv/bin/python manage.py migrate --noinput --verbosity 0
    as_app .venv/bin/python manage.py collectstatic --noinput --verbosity 0
    say "installed $(git rev-parse --short HEAD)"
fi

nginx_mark() {  # nginx_mark PORT down|up
    [ -n "$NGINX_SITE" ] || return 0
    if [ "$2" = down ]; then
        sed -i -E "s/^([[:space:]]*server 127\.0\.0\.1:$1)( [^;]*)?;/\1\2 down;/; s/ down down;/ down;/" "$NGINX_SITE"
    else
        sed -i -E "s/^([[:space:]]*server 127\.0\.0\.1:$1( [^;]*)?) down;/\1;/" "$NGINX_SITE"
    fi
    $NGINX -t -q
    $NGINX -s reload
}

wait_ready() {  # wait_ready PORT
    local deadline=$((SECONDS + READY_TIMEOUT))
    until curl -fsS -o /dev/null --max-time 5 "http://127.0.0.1:$1/healthz/ready"; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            say "worker $1 is not ready after ${READY_TIMEOUT}s: stopped here, the other workers keep serving (journalctl -u mafia-protocol@$1)"
            return 1
        fi
        sleep 0.5
    done
}

for port in $PORTS; do
    say "worker $port: drain"
    nginx_mark "$port" down
    sleep "$DRAIN"
    say "worker $port: restart"
    # shellcheck disable=SC2059
    $(printf "$RESTART" "$port")
    wait_ready "$port"
    nginx_mark "$port" up
    say "worker $port: ready, back in nginx"
    sleep "$SETTLE"
done
say "done: $PORTS"
