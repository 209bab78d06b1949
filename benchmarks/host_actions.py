"""Benchmark: server time of a host action through the HTTP view, on SQLite.

Plays whole games through POST /games/<id>/act/ (the console's form fields,
HX-Request header, the host signed in) with Django's test client in-process,
and times each request from the client's call to the returned response: URL
routing, middleware, the session, the service (lock, revision check, replay,
apply, store, projection) and the re-rendered console fragment. No network.

Figures: p50 / p99 / max over every action of the games, and the same split
into the service call alone vs the whole view, measured side by side in one
run. Aim (issue 3): p50 ≤ 10 ms, p99 ≤ 50 ms.

    .venv/bin/python benchmarks/host_actions.py [--games red_win,black_win,tie_and_lift] [--random N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("SHARED_DIR", ROOT.parent / "shared"))
EXAMPLES = SHARED / "protocol-log" / "examples"

# A throwaway SQLite database in WAL mode, like `make run`; never the real one.
_tmp = tempfile.mkdtemp(prefix="host-bench-")
os.environ["SQLITE_PATH"] = str(Path(_tmp) / "bench.sqlite3")
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-use-anywhere-else-0123456789")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from games import services  # noqa: E402
from games.models import Game  # noqa: E402


def action_to_post(action: dict) -> dict:
    """The console's form fields for a log action (what the clicks send)."""
    do = action["do"]
    data: dict = {"do": do}
    if do == "roles":
        data.update(sheriff=action["sheriff"], don=action["don"], mafia=list(action["mafia"]))
    elif do == "votes":
        for cand, voters in action["for"].items():
            for v in voters:
                data[f"vote-{v}"] = str(cand)
    elif do == "lift_vote":
        data["yes"] = list(action["yes"])
    elif do == "shots":
        for black, target in action["by"].items():
            data[f"shot-{black}"] = "" if target is None else str(target)
    elif do == "best_move":
        if action.get("pass"):
            data["mode"] = "pass"
        elif action.get("accepted") is False:
            data["mode"] = "not_accepted"
        else:
            data.update(mode="seats", seats=list(action["seats"]))
    else:
        for key, value in action.items():
            if key != "do":
                data[key if key != "reason" else "reason_text"] = value
    return data


def load(path: Path) -> list[dict]:
    data = json.loads(path.read_text())
    return [a for a in data["actions"] if a["do"] != "expect" and not a.get("reject")]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="red_win,black_win,tie_and_lift")
    parser.add_argument("--random", type=int, default=6, help="also this many logs of examples/random")
    parser.add_argument("--rounds", type=int, default=2, help="play every game this many times")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("bench-host", password="bench-pass-123")
    client = Client()
    client.force_login(user)

    paths = [EXAMPLES / f"{name}.json" for name in args.games.split(",") if name]
    paths += sorted((EXAMPLES / "random").glob("*.json"))[: args.random]
    games = [(p.stem, load(p)) for p in paths]

    # Side by side, action by action (the same load on the machine for all):
    # A) the whole view on game A; on game B, B1) the service with the
    # post-commit broadcast switched off, B2) the broadcast alone (live board
    # frame, standings), B3) the console fragment alone (replay + render).
    from django.template.loader import render_to_string

    from games.board import publish
    from games.console import views

    real_publish = publish.publish_game_changed
    series: dict[str, list[float]] = {
        "whole view": [],
        "service, no broadcast": [],
        "broadcast receivers": [],
        "console fragment": [],
    }
    lengths: list[int] = []
    for round_no in range(1 + args.rounds):
        warm = round_no == 0  # imports, template compilation: not measured
        for name, actions in games:
            game = services.game_create(host=user, players=actions[0]["players"])
            other = services.game_create(host=user, players=actions[0]["players"])
            for action in actions[1:]:
                seq = game.seq
                t0 = time.perf_counter()
                r = client.post(
                    f"/games/{game.pk}/act/", {"expected_seq": seq, **action_to_post(action)}, HTTP_HX_REQUEST="true"
                )
                t1 = time.perf_counter()
                if r.status_code != 200:
                    raise SystemExit(f"{name}: {action} refused: {r.status_code} {r.content[:300]!r}")
                game.seq = seq + 1
                publish.publish_game_changed = lambda *a, **k: None
                try:
                    t2 = time.perf_counter()
                    services.game_record_action(game=other, action=action, expected_seq=other.seq, by=user)
                    t3 = time.perf_counter()
                finally:
                    publish.publish_game_changed = real_publish
                real_publish(other.pk, other.seq, other.status, False)
                t4 = time.perf_counter()
                render_to_string("games/console.html#console", views.console_context(other))
                t5 = time.perf_counter()
                if not warm:
                    series["whole view"].append((t1 - t0) * 1000)
                    series["service, no broadcast"].append((t3 - t2) * 1000)
                    series["broadcast receivers"].append((t4 - t3) * 1000)
                    series["console fragment"].append((t5 - t4) * 1000)
            if not warm:
                lengths.append(len(actions))
            assert Game.objects.get(pk=game.pk).status in ("finished", "annulled", "running")

    view_ms = series["whole view"]
    print("host actions through POST /games/<id>/act/ (SQLite WAL, in-process test client, DEBUG off)")
    print(
        f"games: {len(games)} × {args.rounds} rounds, {len(view_ms)} actions (game length {min(lengths)}–{max(lengths)}); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(f"{'ms':>24} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8} {'mean':>8}")
    for label, values in series.items():
        print(
            f"{label:>24} {pct(values, 50):8.2f} {pct(values, 90):8.2f} {pct(values, 99):8.2f} {max(values):8.2f} {statistics.fmean(values):8.2f}"
        )
    p50, p99 = pct(view_ms, 50), pct(view_ms, 99)
    print(
        f"aim p50 ≤ 10 ms: {'yes' if p50 <= 10 else 'NO'} ({p50:.2f}); aim p99 ≤ 50 ms: {'yes' if p99 <= 50 else 'NO'} ({p99:.2f})"
    )


if __name__ == "__main__":
    main()
