"""The live board's and the overlay's view-models (issue 23: apart from their delivery).

- *public view* (:func:`public_view`): the ONLY input of the public board
  templates: a pure function of the game's public facts (games.board.public,
  stored on the row by the write path) until the game is over. Night steps
  are shown as "Ночь N" without their name, speaker or clock: which night
  steps happen reveals who is still at the table (a captain who left has no
  check step, FORMAT.md). After the end (finished / annulled) it adds the
  roles and the full protocol from the engine's record.
- *overlay view* (:func:`overlay_view`): the stream's view (roles shown, night
  steps and checks included), protected by the game's overlay token and
  delayed by the host's `overlay_delay_seconds`.

The words come from games.vocabulary; rendering these views into frames and
delivering them is games.board.frames.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import clock, vocabulary
from games.board.public import OVER, current_facts
from games.models import (
    Game,
    GameAction,
    GameSeat,
)
from games.reading import (
    game_regulations,
    game_state,
    replay_stored,
    running_tech_pause,
)
from games.rules.catalogue import reason_text
from games.rules.state import vote_still_ahead
from games.titles import game_title


def token_digest(token: str) -> str:
    """What travels with overlay frames instead of the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()[:24] if token else ""


# --- labels: the game's words (games.vocabulary) ------------------------------


def _step_label(step: str | None) -> str:
    # The public board names the step in its own context where the generic
    # English names a secret (vocabulary.STEPS.public). The night steps are
    # named on the overlay only: the public board masks them while the game runs.
    return vocabulary.STEPS.public(step)


def _status_label(status: str) -> str:
    return vocabulary.STATUSES(status, default="")


def _how_label(how: str) -> str:
    return vocabulary.HOW_LEFT_PUBLIC.public(how) or how


def _phase_label(phase: str | None, day: int | None) -> str:
    if phase not in ("day", "night"):
        return ""
    return vocabulary.when(day or 0, phase)


def _phase_name(phase: str | None, day: int | None, step: str | None) -> str:
    """The phase as the console names it: the morning's last word is «Утро»,
    not «Ночь N · Последнее слово» (issue 12-7: one name everywhere)."""
    if phase == "night" and day and step == "last_word":
        return str(_("Утро"))
    return _phase_label(phase, day)


def _cancelled_votes(ps: dict[str, Any]) -> list[str]:
    """F7–F10: the votes ahead cancelled by a removal (issue 12-5)."""
    day, phase, step = ps.get("day") or 0, ps.get("phase"), ps.get("step")
    out = []
    for d in ps.get("votes_cancelled") or []:
        if vote_still_ahead(d, day, phase, step):
            out.append(str(_("Голосование дня %(n)s не проводится (F7–F10)") % {"n": d}))
    return out


def _winner_label(status: str, winner: str | None) -> str:
    if status == "annulled":
        return vocabulary.STATUSES("annulled")
    return vocabulary.WINNERS(winner, default="")


def _role_label(role: str) -> str:
    return vocabulary.ROLES(role, default="")


_team = vocabulary.team_of


# --- clock --------------------------------------------------------------------


def clock_view(game: Game, *, visible: bool) -> dict[str, Any]:
    """The host's clock as the overlay shows it (games.clock, the arithmetic the services use)."""
    return _clock(game, visible=visible)


def public_clock_view(facts: dict[str, Any]) -> dict[str, Any]:
    """The step's clock as the public board shows it: from the public facts only.

    In a Night (and whenever the step is not public) there is no clock at
    all — no remaining time, no deadline, no running flag in any attribute:
    a 20 s countdown would say the best move is running, 15 s a check.
    """
    c = facts.get("clock")
    if not c:
        return {
            "visible": False,
            "running": False,
            "timeout": False,
            "remaining_ms": "",
            "duration_ms": "",
            "deadline_ms": "",
            "deadline_iso": "",
            "server_ms": "",
            "text": "",
        }
    fields = _StoredClock(
        clock_duration_ms=int(c["duration_ms"]),
        clock_elapsed_ms=int(c["elapsed_ms"]),
        clock_started_at=_dt(c.get("started_at")),
        timeout_since=_dt(c.get("timeout_since")),
    )
    return _clock(fields, visible=True)


@dataclass
class _StoredClock:
    clock_duration_ms: int
    clock_elapsed_ms: int
    clock_started_at: datetime | None
    timeout_since: datetime | None


def _dt(ms: int | None) -> datetime | None:
    return datetime.fromtimestamp(ms / 1000, tz=UTC) if ms is not None else None


def _clock(fields: Any, *, visible: bool) -> dict[str, Any]:
    now = timezone.now()
    remaining = clock.remaining_ms(fields, now)
    running = clock.is_running(fields)
    deadline = clock.deadline(fields, now) if running else None
    return {
        "visible": visible and fields.clock_duration_ms > 0,
        "running": running,
        "timeout": fields.timeout_since is not None,
        "remaining_ms": remaining,
        "duration_ms": fields.clock_duration_ms,
        "deadline_ms": int(deadline.timestamp() * 1000) if deadline else "",
        "deadline_iso": deadline.isoformat() if deadline else "",
        "server_ms": int(now.timestamp() * 1000),
        "text": _clock_text(remaining),
    }


def tech_pause_view(game: Game, facts: dict[str, Any]) -> dict[str, Any] | None:
    """The running technical pause (D7) as the board shows it, or None.

    Time-dependent like the clock, so it is part of the live head recomputed
    per send, from its start in the public facts. The seat is public: the
    player asked for the pause aloud.
    """
    pause = facts.get("tech_pause")
    if not pause or facts.get("status") != "running" or pause.get("ended_at") is not None:
        return None
    started = _dt(pause.get("started_at"))
    if started is None:
        return None
    duration_ms = game_regulations(game).tech_pause * 1000
    now = timezone.now()
    remaining = clock.tech_pause_remaining_ms(started, None, duration_ms, now)
    if remaining <= 0:
        return None
    return {
        "seat": pause["seat"],
        "remaining_ms": remaining,
        "deadline_iso": (now + timedelta(milliseconds=remaining)).isoformat(),
        "text": _clock_text(remaining),
    }


_clock_text = vocabulary.clock_text


# --- the public view ------------------------------------------------------------


def public_title(game: Game) -> str:
    return game.display_name


def epoch_ms(dt: datetime | None) -> int:
    return int(dt.timestamp() * 1000) if dt else 0


def public_view(game: Game, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The public board's view-model: the only input of the public templates.

    A pure function of the game's public facts (games.board.public) and its
    public revision, in the current language; until the game is over nothing
    else is read. Over, it adds the roles and the full protocol.
    """
    f = facts if facts is not None else current_facts(game)
    status = str(f.get("status") or game.status)
    over = bool(f.get("over"))
    day = f.get("day")
    phase = f.get("phase")
    step = f.get("step")  # None in a masked Night (public_facts)
    speaker = f.get("speaker")
    at_table = set(f.get("at_table") or [])
    left = {int(e["seat"]): e for e in f.get("left") or []}
    nominees_now = [int(s) for s in f.get("nominees") or []]
    fouls = {int(k): int(v) for k, v in (f.get("fouls") or {}).items()}
    nicknames = {int(k): v for k, v in (f.get("nicknames") or {}).items()}
    warnings = {int(k): int(v) for k, v in (f.get("warnings") or {}).items()}
    grey = {int(k): int(v) for k, v in (f.get("grey_cards") or {}).items()}
    # W1/W2: once the result is decided (`winner`, held back during the Night)
    # the board shows it at once while the last words go on; the roles stay
    # hidden until the game is over.
    decided = not over and f.get("winner") in ("red", "black", "draw")

    roles: dict[int, str] = {}
    if over:
        roles = {s: r for s, r in GameSeat.objects.filter(game=game).values_list("seat_no", "role") if r}

    seats = []
    for no in range(1, 11):
        gone = left.get(no)
        role = roles.get(no, "")
        seats.append(
            {
                "no": no,
                "nickname": nicknames.get(no, ""),
                "present": no in at_table,
                "left": (
                    {
                        "how": _how_label(str(gone.get("how", ""))),
                        "when": _phase_label(gone.get("phase"), gone.get("day")),
                    }
                    if gone
                    else None
                ),
                "fouls": fouls.get(no, 0),
                "warnings": warnings.get(no, 0),
                "grey_cards": grey.get(no, 0),
                "speaking": speaker == no,
                "nominee": no in nominees_now and not over,
                "role": _role_label(role) if over else "",
                "team": _team(role) if over and role else "",
            }
        )

    votes = []
    for r in f.get("votes") or []:
        kind_label = {"vote": _("Голосование"), "revote": _("Переголосование"), "lift": _("Подъём всех")}.get(
            r["kind"], ""
        )
        votes.append(
            {
                "day": r["day"],
                "label": f"{_phase_label('day', r['day'])} · {kind_label}",
                "lift": r["kind"] == "lift",
                "candidates": [
                    {
                        "seat": c,
                        "nickname": nicknames.get(c, ""),
                        "count": len(v),
                        "voters": [x[0] for x in v],
                        "auto": [x[0] for x in v if x[1]],
                    }
                    for c, v in r["candidates"]
                ],
                "yes": r["yes"],
                "no": r["no"],
            }
        )
    nominations = [
        {"day": d, "by": b, "target": t, "nickname": nicknames.get(t, ""), "supported": sup}
        for d, b, t, sup in f.get("nominations") or []
    ]
    today = [n for n in nominations if phase == "day" and n["day"] == day]
    cancelled = {"day": day, "phase": phase, "step": step, "votes_cancelled": f.get("votes_cancelled") or []}
    winner = f.get("final_winner") if over else f.get("winner")

    view: dict[str, Any] = {
        "game_id": game.pk,
        "title": game_title(str(f.get("title") or "")) or str(_("Игра №%(pk)s") % {"pk": game.pk}),
        "seq": game.public_rev,
        "at": epoch_ms(game.public_at),
        "status": status,
        # Over, the header names the result itself (issue 12-7), once.
        "status_label": (_winner_label(status, winner) or _status_label(status)) if over else _status_label(status),
        "over": over,
        "phase_label": _phase_name(phase, day, step) if status == "running" else "",
        "is_night": bool(f.get("night")),
        "step_label": _step_label(step) if step and not over else "",
        "votes_cancelled": _cancelled_votes(cancelled) if status == "running" else [],
        "speaker": speaker,
        "speaker_nickname": nicknames.get(speaker, "") if speaker else "",
        "seats": seats,
        "nominees": [{"seat": s, "nickname": nicknames.get(s, "")} for s in nominees_now] if not over else [],
        "nominations_today": today,
        "votes": votes,
        "result": _winner_label(status, winner) if over or decided else "",
        "decided": decided,
        "ppk": bool(f.get("ppk")),
        "clock_visible": f.get("clock") is not None,
        "protocol": _protocol(game, nicknames) if over else None,
    }
    return view


def _protocol(game: Game, nicknames: dict[int, str]) -> dict[str, Any]:
    """The full protocol, drawn after the end only (roles, shots, checks, best move)."""
    state = game_state(game)
    public = state.public_dict()

    def nick(seat: Any) -> str:
        try:
            return f"{int(seat)}. {nicknames.get(int(seat), '')}"
        except (TypeError, ValueError):
            return "—"

    nights: dict[int, dict[str, Any]] = defaultdict(
        lambda: {"shots": [], "victim": None, "checks": [], "best_move": None}
    )
    for e in state.record.shots:
        n = nights[int(e.get("night") or 0)]
        n["shots"] = [
            {"by": nick(b), "target": nick(t) if t is not None else "—"} for b, t in (e.get("by") or {}).items()
        ]
        n["victim"] = nick(e["victim"]) if e.get("victim") is not None else str(_("Промах"))
    for e in state.record.checks:
        result = e.get("result")
        if e.get("by") == "don":
            text = vocabulary.ROLES("sheriff") if result else _("Не шериф")
            who = vocabulary.ROLES("don")
        else:
            text = _("Чёрный") if result == "black" else _("Красный")
            who = vocabulary.ROLES("sheriff")
        nights[int(e.get("night") or 0)]["checks"].append(
            {"who": str(who), "target": nick(e.get("target")), "result": str(text)}
        )
    for e in state.record.best_moves:
        if e.get("passed"):
            verdict = _("Пас")
        elif e.get("accepted"):
            verdict = _("Принят, чёрных: %(n)s") % {"n": e.get("blacks") or 0}
        else:
            verdict = _("Не принят")
        nights[int(e.get("night") or 0)]["best_move"] = {
            "seat": nick(e.get("seat")),
            "seats": [nick(s) for s in e.get("seats") or []],
            "verdict": str(verdict),
        }
    penalties = []
    for e in state.record.penalties:
        penalties.append(
            {
                "kind": vocabulary.sentence(vocabulary.PENALTIES(e.get("kind", ""))),
                "seat": nick(e["seat"]) if e.get("seat") else "",
                "when": _phase_label(e.get("phase"), e.get("day")),
                # The state keeps the stored (Russian) wording of a catalogue
                # reason: it is shown in the reader's language (F16).
                "reason": reason_text(e.get("reason") or "", None, get_language() or "ru"),
            }
        )
    winks = [
        {"by": nick(e.get("by")), "target": nick(e.get("target")), "when": _phase_label(e.get("phase"), e.get("day"))}
        for e in state.record.winks
    ]
    best = public.get("best_move") or None
    return {
        "nights": [{"label": _phase_label("night", k), **v} for k, v in sorted(nights.items())],
        "penalties": penalties,
        "winks": winks,
        "best_move": best,
    }


# --- the overlay view (roles shown) ---------------------------------------------


def overlay_view(game: Game, *, as_of: datetime | None = None) -> dict[str, Any]:
    """The stream overlay's view-model; with `as_of`, the game as it was then."""
    if as_of is None:
        actions = game.action_payloads()
        seq = game.seq
        at = epoch_ms(game.updated_at)
    else:
        rows = GameAction.objects.filter(game=game, created_at__lte=as_of)
        actions = list(
            rows.filter(Q(undone_at__isnull=True) | Q(undone_at__gt=as_of))
            .order_by("seq")
            .values_list("payload", flat=True)
        )
        # Game.seq counts recorded actions plus undos (services).
        seq = rows.count() + GameAction.objects.filter(game=game, undone_at__lte=as_of).count()
        at = epoch_ms(as_of)
    state = replay_stored(actions, game_regulations(game))
    ps = state.public_dict()
    players = list(state.players or [])
    roles = {int(k): v for k, v in (state.roles or {}).items()}
    status = ps.get("status") or "setup"
    over = status in OVER
    at_table = set(ps.get("at_table") or [])
    left = {int(e["seat"]): e for e in ps.get("left") or []}
    fouls = {int(k): int(v) for k, v in (ps.get("fouls") or {}).items()}
    checks: dict[int, list[str]] = defaultdict(list)
    for c in ps.get("checks") or []:
        t = int(c.get("target") or 0)
        if c.get("by") == "sheriff":
            checks[t].append("sheriff-" + ("black" if c.get("result") == "black" else "red"))
        else:
            checks[t].append("don-" + ("yes" if c.get("result") else "no"))
    seats = []
    for no in range(1, 11):
        role = roles.get(no, "")
        gone = left.get(no)
        seats.append(
            {
                "no": no,
                "nickname": players[no - 1] if len(players) >= no else "",
                "nick_parts": nick_parts(players[no - 1] if len(players) >= no else ""),
                "role": role,
                "role_label": _role_label(role),
                "team": _team(role) if role else "",
                "present": no in at_table,
                "left": _how_label(str(gone.get("how", ""))) if gone else "",
                "fouls": fouls.get(no, 0),
                "speaking": ps.get("speaker") == no,
                "nominee": no in (ps.get("nominees") or []),
                "checked_red": "sheriff-red" in checks.get(no, []),
                "checked_black": "sheriff-black" in checks.get(no, []),
                "don_checked": any(c.startswith("don-") for c in checks.get(no, [])),
            }
        )
    return {
        "game_id": game.pk,
        "title": game.display_title,
        "seq": seq,
        "at": at,
        "as_of": as_of is not None,
        "status": status,
        "over": over,
        "phase_label": _phase_name(ps.get("phase"), ps.get("day"), ps.get("step"))
        if status == "running"
        else _status_label(status),
        "step_label": _step_label(ps.get("step")),
        "speaker": ps.get("speaker"),
        "speaker_nickname": players[ps["speaker"] - 1] if ps.get("speaker") and len(players) >= ps["speaker"] else "",
        "seats": seats,
        # Over, the nominees are history (issue 12-7: «Выставлены: 2» on the finished overlay).
        "nominees": list(ps.get("nominees") or []) if not over else [],
        "result": _winner_label(status, ps.get("winner")) if over or ps.get("winner") else "",
        "delay_ms": int(game.overlay_delay_seconds) * 1000,
        "token_digest": token_digest(game.overlay_token),
        "phase": ps.get("phase"),
        "step": ps.get("step"),
    }


# OBS scenes that follow the game (static/js/overlay-obs.js): the overlay's own,
# delayed state names the scene a streamer maps to one of his OBS scenes.
OVERLAY_SCENES = ("setup", "night", "day", "vote", "pause", "finished")
_VOTE_STEPS = frozenset({"voting", "lift_vote"})


def overlay_scene(*, status: str, phase: str | None, step: str | None, paused: bool) -> str:
    """The scene of a game's moment: one of OVERLAY_SCENES."""
    if status in OVER:
        return "finished"
    if status != "running":
        return "setup"
    if paused:
        return "pause"  # D7: a technical pause, whatever the step it stopped
    if phase == "night":
        return "night"
    return "vote" if step in _VOTE_STEPS else "day"


def tech_pause_running(game: Game, as_of: datetime | None) -> bool:
    """Whether a technical pause (D7) ran at `as_of` (None: now), by the log as it was then."""
    return running_tech_pause(game, as_of, as_of=as_of is not None) is not None


_NICK_BOUNDARY = re.compile(r"(?<=[_\-.\s])|(?<=[a-zа-яё])(?=[A-ZА-ЯЁ])|(?<=\D)(?=\d)")


def nick_parts(nickname: str) -> list[str]:
    """A nickname cut at its boundaries (after «_», «-», «.», a space; between
    «котУчёный» humps; before digits): the overlay lets it wrap there and
    nowhere inside a word (issue 24: «Кот_Учоны / й»)."""
    return [p for p in _NICK_BOUNDARY.split(nickname) if p] if nickname else []
