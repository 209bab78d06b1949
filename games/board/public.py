"""The public facts of a game: everything the public board may show, and nothing else.

Terms (issue 24, "secrets by rhythm"):
- *public facts*: a JSON dict, language-free, built by :func:`public_facts`
  from public data only — the whitelisted keys of `Game.public_state`, the
  seats' nicknames, the public projection rows (nominations, votes, warning
  and grey-card counts), the step's clock while it is public and a running
  technical pause. The public board (games.board.view.public_view) is a
  pure function of them until the game is over.
- *public revision* (`Game.public_rev`): a counter that the write path moves
  when, and only when, the public facts change. Frames carry it, never the
  log's `seq`: a Night then gives the same frames whichever captains are at
  the table and whatever the blacks and the captains did.

The Night (from N1 on, until the morning) is one public state: «Ночь N», no
step, no speaker, no clock. Three things the engine knows at once are held
back until the morning because, read during the Night, they would tell what a
night action did: the result decided by the shot (W1 counts the player shot
as out), the votes a removal cancels (F10 INTERP: a removal cancels unless
the player removed was shot this Night) and the end of a technical pause by
the host's next (night) action. The morning tells them anyway: the player
shot leaves then (N5). The morning shows when its first clock starts, on the
host's Space after «Доброе утро» (issue 26-4), not at the last night action.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from datetime import datetime
from typing import Any

from games.models import Game, GameSeat, GameStatus, Nomination, Penalty, Vote
from games.reading import tech_pause_start

# Steps whose name, speaker and clock the public board may show while the game
# runs. The night steps after N0 are masked: which of them happen reveals who
# is still at the table (a captain who left has no check step, FORMAT.md).
PUBLIC_STEPS = frozenset(
    {"dogovorka", "free_seating", "speech", "voting", "tie_speech", "lift_vote", "last_word", "finished"}
)
OVER = (GameStatus.FINISHED, GameStatus.ANNULLED)


def _ms(dt: datetime | None) -> int | None:
    return int(dt.timestamp() * 1000) if dt else None


def is_masked_night(ps: dict[str, Any], status: str) -> bool:
    """A Night from N1 on, before its morning: one public state, whatever happens in it."""
    return status == "running" and ps.get("phase") == "night" and ps.get("step") not in PUBLIC_STEPS


def _morning_waiting(game: Game, ps: dict[str, Any], status: str, previous: dict[str, Any] | None) -> bool:
    """The engine is at the morning, but the morning has not begun for the table.

    The last night action takes the engine to the morning's first step (the
    player shot's last word, or after a miss the Day's first speech), whose
    clock waits, full and paused, for the host: for a departed captain's
    wake-up (the log has no step for him, FORMAT.md; games/rules/script.py,
    issue 26-2) and then for «Доброе утро» (issue 26-4). The board shows the
    morning when that clock starts. Shown at the engine's moment, the morning
    would tell by its time whether a captain had left (and the shot before the
    host announces it); every morning waits the same way, whatever the roles."""
    if status != "running" or not previous or not previous.get("night"):
        return False
    if not (
        game.clock_duration_ms > 0
        and game.clock_started_at is None
        and game.clock_elapsed_ms == 0
        and game.timeout_since is None
    ):
        return False
    day = ps.get("day")
    if ps.get("phase") == "night":
        return not is_masked_night(ps, status) and previous.get("day") == day
    return ps.get("phase") == "day" and isinstance(day, int) and previous.get("day") == day - 1


def public_facts(game: Game, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """The public facts of `game` now; `previous` are the facts last published.

    Reads no role, no night action and never `public_state`'s `checks` or
    `best_move`.
    """
    ps = game.public_state or {}
    status = str(game.status)
    over = status in OVER
    if previous and _morning_waiting(game, ps, status, previous):
        # The Night as last published, whole: not even who was shot shows before
        # the host has started the morning (a penalty given meanwhile shows
        # with the morning).
        return dict(previous)
    night = is_masked_night(ps, status)
    step = ps.get("step")
    step_public = not night and (over or step in PUBLIC_STEPS)

    nicknames = {
        str(no): nick
        for no, nick in GameSeat.objects.filter(game=game).order_by("seat_no").values_list("seat_no", "nickname")
    }
    warnings: dict[str, int] = defaultdict(int)
    grey: dict[str, int] = defaultdict(int)
    for kind, seat in (
        Penalty.objects.filter(game=game, kind__in=("warning", "grey_card"))
        .order_by("action__seq")
        .values_list("kind", "seat")
    ):
        if seat:
            (warnings if kind == "warning" else grey)[str(seat)] += 1

    rounds: OrderedDict[int, dict[str, Any]] = OrderedDict()
    rows = Vote.objects.filter(game=game).order_by("action__seq", "voter_seat")
    for action_id, rday, round_no, kind, voter, candidate, lift_yes, auto in rows.values_list(
        "action_id", "day", "round_no", "kind", "voter_seat", "candidate_seat", "lift_yes", "auto"
    ):
        r = rounds.setdefault(
            action_id,
            {"day": rday, "round": round_no, "kind": kind, "candidates": {}, "order": [], "yes": [], "no": []},
        )
        if kind == "lift":
            (r["yes"] if lift_yes else r["no"]).append(voter)
        else:
            if candidate not in r["candidates"]:
                r["order"].append(candidate)
                r["candidates"][candidate] = []
            r["candidates"][candidate].append([voter, bool(auto)])
    votes = [
        {
            "day": r["day"],
            "round": r["round"],
            "kind": r["kind"],
            "candidates": [[c, r["candidates"][c]] for c in r["order"]],
            "yes": r["yes"],
            "no": r["no"],
        }
        for r in rounds.values()
    ]
    nominations = [
        [d, b, t, res == "supported"]
        for d, b, t, res in Nomination.objects.filter(game=game)
        .order_by("action__seq")
        .values_list("day", "by_seat", "target_seat", "result")
    ]

    clock = None
    if step_public and not over and game.clock_duration_ms > 0:
        clock = {
            "duration_ms": game.clock_duration_ms,
            "elapsed_ms": game.clock_elapsed_ms,
            "started_at": _ms(game.clock_started_at),
            "timeout_since": _ms(game.timeout_since),
        }

    pause = None
    begun = tech_pause_start(game)
    if begun is not None:
        pause = {"seat": begun["seat"], "started_at": _ms(begun["started_at"]), "ended_at": None}
    elif (
        night
        and previous
        and previous.get("night")
        and previous.get("day") == ps.get("day")
        and previous.get("tech_pause")
    ):
        # A pause asked for aloud in this Night: the host's next action is a
        # night action, so it does not end the pause on the board (see above);
        # an undo of the pause itself does.
        kept = previous["tech_pause"]
        asked = game.actions.filter(undone_at__isnull=True, payload__do="tech_pause").values_list(
            "created_at", flat=True
        )
        if any(_ms(at) == kept.get("started_at") for at in asked):
            pause = dict(kept)
    if (
        pause is not None
        and game.tech_pause_ended_at is not None
        and pause["started_at"] is not None
        and _ms(game.tech_pause_ended_at) >= pause["started_at"]
    ):
        pause["ended_at"] = _ms(game.tech_pause_ended_at)

    winner = ps.get("winner")
    return {
        "title": game.title,
        "status": status,
        "over": over,
        "day": ps.get("day"),
        "phase": ps.get("phase"),
        "night": night,
        "step": step if step_public else None,
        "speaker": ps.get("speaker") if step_public else None,
        "at_table": [int(s) for s in ps.get("at_table") or []],
        "left": [
            {"seat": int(e["seat"]), "how": e.get("how"), "day": e.get("day"), "phase": e.get("phase")}
            for e in ps.get("left") or []
            if e.get("seat")
        ],
        "nominees": [int(s) for s in ps.get("nominees") or []],
        "fouls": {str(k): int(v) for k, v in sorted((ps.get("fouls") or {}).items())},
        "winner": None if night else winner,
        "final_winner": game.winner if over else None,
        # Once over everything is public (the roles, the protocol): any change
        # of the log is then a public change.
        "log_seq": game.seq if over else None,
        "ppk": bool(over and game.ppk),
        "votes_cancelled": [] if night else [int(d) for d in ps.get("votes_cancelled") or []],
        "nicknames": nicknames,
        "warnings": dict(sorted(warnings.items())),
        "grey_cards": dict(sorted(grey.items())),
        "votes": votes,
        "nominations": nominations,
        "clock": clock,
        "tech_pause": pause,
    }


def current_facts(game: Game) -> dict[str, Any]:
    """The stored facts; computed for a game the write path has not touched since the upgrade."""
    return game.public_facts or public_facts(game)
