"""The live board and the stream overlay: view-models, frames, broadcast.

Terms:
- *public view*: the dict built by :func:`public_view`, the ONLY input of the
  public board templates. Before the game is over it is made of public data
  alone: the whitelisted keys of `Game.public_state` (never its `checks` or
  `best_move`), the seats' nicknames (never `GameSeat.role`) and the public
  projection rows (nominations, votes, penalty counts). Night steps are shown
  as "Ночь N" without their name or clock: which night steps happen reveals
  who is still at the table (a captain who left has no check step,
  FORMAT.md). After the end (finished / annulled) it adds the roles and the
  full protocol from the engine's record.
- *overlay view*: the stream's view (roles shown, night steps and checks
  included), protected by the game's overlay token and delayed by the
  host's `overlay_delay_seconds`.
- *frame*: the HTML text sent over the websocket: a set of elements with ids
  and `hx-swap-oob="true"`, led by `#board-meta` that carries the revision
  (`data-seq` = `Game.seq`, the number of the last host action or undo) and
  `data-at` (ms of `Game.updated_at`, which orders clock-only updates of the
  same revision). A frame is rendered ONCE per change and the same text goes
  to every spectator.
- *body*: the frame without its meta and clock elements; cached per
  (game, seq, at), so that a thousand reconnecting spectators cost one
  render, and the clock is recomputed per send (its remaining time is
  relative to the moment it is sent).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language, override, pgettext
from django.utils.translation import gettext as _

from games import clock
from games.board.fanout import peek_hub
from games.models import (
    Game,
    GameAction,
    GameSeat,
    GameStatus,
    Nomination,
    Penalty,
    Vote,
)
from games.reading import (
    game_regulations,
    game_state,
    replay_stored,
    running_tech_pause,
    tech_pause_start,
)
from games.rules.catalogue import reason_text

log = logging.getLogger(__name__)

BOARD_TEMPLATE = "games/board.html"
OVERLAY_TEMPLATE = "games/overlay.html"
BOARD_UPDATE = "board.update"
OVERLAY_UPDATE = "overlay.update"

# Steps whose name (and clock) the public board may show while the game runs.
# The night steps after N0 (mafia_shot, don_check, sheriff_check, best_move)
# are masked: see the module docstring.
PUBLIC_STEPS = {"dogovorka", "free_seating", "speech", "voting", "tie_speech", "lift_vote", "last_word", "finished"}
OVER = (GameStatus.FINISHED, GameStatus.ANNULLED)


def board_group(game_id: int) -> str:
    return f"game-{game_id}-board"


def overlay_group(game_id: int) -> str:
    return f"game-{game_id}-overlay"


def token_digest(token: str) -> str:
    """What travels with overlay frames instead of the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()[:24] if token else ""


# --- labels (Russian msgids, translated by Django i18n) -------------------------


def _step_label(step: str | None) -> str:
    labels = {
        # Context "public board": the generic translations of these two
        # ("Mafia meeting", "Shot at night") name a role or a shot, which a
        # leak scanner of the public board must not find before the end.
        "dogovorka": pgettext("public board", "Договорка"),
        "free_seating": _("Свободная посадка"),
        "speech": _("Речь"),
        "voting": _("Голосование"),
        "tie_speech": _("Речь при равенстве голосов"),
        "lift_vote": _("Голосование за подъём всех"),
        "last_word": _("Последнее слово"),
        "finished": _("Игра окончена"),
        # Overlay only (the public board masks them while the game runs).
        "mafia_shot": _("Стрельба"),
        "don_check": _("Проверка дона"),
        "sheriff_check": _("Проверка шерифа"),
        "best_move": _("Лучший ход"),
    }
    return str(labels.get(step or "", ""))


def _status_label(status: str) -> str:
    return str(
        {
            "setup": _("Подготовка"),
            "running": _("Игра идёт"),
            "finished": _("Игра окончена"),
            "annulled": _("Игра аннулирована"),
        }.get(status, "")
    )


def _how_label(how: str) -> str:
    return str(
        {
            "vote": _("Заголосован"),
            "lift_vote": _("Поднят голосованием"),
            "shot": pgettext("public board", "Убит ночью"),
            "fouls": _("Удалён: 4 фола"),
            "disqualified": _("Дисквалифицирован"),
            "warnings": _("Удалён: 2 предупреждения"),
            "removed": _("Удалён"),
        }.get(how, how)
    )


def _phase_label(phase: str | None, day: int | None) -> str:
    if phase == "day":
        return str(_("День %(n)s") % {"n": day})
    if phase == "night":
        return str(_("Ночь %(n)s") % {"n": day or 0})
    return ""


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
        if d > day or (d == day and phase == "day" and step in ("speech", "tie_speech", "voting", "lift_vote")):
            out.append(str(_("Голосование дня %(n)s не проводится (F7–F10)") % {"n": d}))
    return out


def _winner_label(status: str, winner: str | None) -> str:
    if status == "annulled":
        return str(_("Игра аннулирована"))
    return str({"red": _("Победа красных"), "black": _("Победа чёрных"), "draw": _("Ничья")}.get(winner or "", ""))


def _role_label(role: str) -> str:
    return str({"sheriff": _("Шериф"), "don": _("Дон"), "mafia": _("Мафия"), "civilian": _("Мирный")}.get(role, ""))


def _team(role: str) -> str:
    return "black" if role in ("don", "mafia") else "red"


# --- clock --------------------------------------------------------------------


def clock_view(game: Game, *, visible: bool) -> dict[str, Any]:
    """The host's clock as the board shows it (games.clock, the arithmetic the services use)."""
    now = timezone.now()
    remaining = clock.remaining_ms(game, now)
    running = clock.is_running(game)
    deadline = clock.deadline(game, now) if running else None
    return {
        "visible": visible and game.clock_duration_ms > 0,
        "running": running,
        "timeout": game.timeout_since is not None,
        "remaining_ms": remaining,
        "duration_ms": game.clock_duration_ms,
        "deadline_ms": int(deadline.timestamp() * 1000) if deadline else "",
        "deadline_iso": deadline.isoformat() if deadline else "",
        "server_ms": int(now.timestamp() * 1000),
        "text": _clock_text(remaining),
    }


def tech_pause_view(game: Game, start: dict[str, Any] | None) -> dict[str, Any] | None:
    """The running technical pause (D7) as the board shows it, or None.

    Time-dependent like the clock, so it is part of the live head recomputed
    per send, from its start (cached with the body: it depends on the
    revision only). The seat is public: the player asked for the pause aloud.
    """
    pause = running_tech_pause(game, start=start)
    if pause is None:
        return None
    return {
        "seat": pause["seat"],
        "remaining_ms": pause["remaining_ms"],
        "deadline_iso": pause["deadline"].isoformat(),
        "text": pause["text"],
    }


def _clock_text(ms: int) -> str:
    seconds = (ms + 999) // 1000  # 0:01 until it is really over, as the host's clock
    return f"{seconds // 60}:{seconds % 60:02d}"


# --- the public view ------------------------------------------------------------


def public_title(game: Game) -> str:
    return game.display_title or str(_("Игра №%(pk)s") % {"pk": game.pk})


def _ms(dt: datetime | None) -> int:
    return int(dt.timestamp() * 1000) if dt else 0


def public_view(game: Game) -> dict[str, Any]:
    """The public board's view-model: the only input of the public templates.

    Reads the game row it is given, seat nicknames and public projection rows.
    Until `game.status` is finished/annulled nothing secret is read at all.
    """
    ps = game.public_state or {}
    status = str(game.status)
    over = status in OVER
    # Whitelist of public_state: `checks` and `best_move` are secret until
    # the end and are deliberately never read here.
    day = ps.get("day")
    phase = ps.get("phase")
    step = ps.get("step")
    speaker = ps.get("speaker")
    at_table = [int(s) for s in ps.get("at_table") or []]
    left = {int(e["seat"]): e for e in ps.get("left") or [] if e.get("seat")}
    nominees_now = [int(s) for s in ps.get("nominees") or []]
    fouls = {int(k): int(v) for k, v in (ps.get("fouls") or {}).items()}
    step_public = over or (step in PUBLIC_STEPS)
    # W1/W2: once the result is decided (`winner` is public state) the board
    # shows it at once — a deciding shot included — while the last words go
    # on; the roles stay hidden until the game is over.
    decided = not over and ps.get("winner") in ("red", "black", "draw")

    nicknames = dict(GameSeat.objects.filter(game=game).values_list("seat_no", "nickname"))
    warnings: dict[int, int] = defaultdict(int)
    grey: dict[int, int] = defaultdict(int)
    for kind, seat in Penalty.objects.filter(game=game, kind__in=("warning", "grey_card")).values_list("kind", "seat"):
        if seat:
            (warnings if kind == "warning" else grey)[seat] += 1

    roles: dict[int, str] = {}
    if over:
        roles = {s: r for s, r in GameSeat.objects.filter(game=game).values_list("seat_no", "role") if r}

    seats = []
    for no in range(1, 11):
        nick = nicknames.get(no, "")
        gone = left.get(no)
        role = roles.get(no, "")
        seats.append(
            {
                "no": no,
                "nickname": nick,
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
                "speaking": step_public and speaker == no,
                "nominee": no in nominees_now and not over,
                "role": _role_label(role) if over else "",
                "team": _team(role) if over and role else "",
            }
        )

    # Votes grouped by round (one host action = one round), in order.
    rounds: OrderedDict[int, dict[str, Any]] = OrderedDict()
    for action_id, rday, round_no, kind, voter, candidate, lift_yes, auto in Vote.objects.filter(game=game).order_by("action__seq", "voter_seat").values_list(
        "action_id", "day", "round_no", "kind", "voter_seat", "candidate_seat", "lift_yes", "auto"
    ):
        r = rounds.setdefault(action_id, {"day": rday, "round": round_no, "kind": kind, "by_candidate": OrderedDict(), "yes": [], "no": []})
        if kind == "lift":
            (r["yes"] if lift_yes else r["no"]).append(voter)
        else:
            r["by_candidate"].setdefault(candidate, []).append({"seat": voter, "auto": auto})
    votes = []
    for r in rounds.values():
        kind_label = {"vote": _("Голосование"), "revote": _("Переголосование"), "lift": _("Подъём всех")}.get(r["kind"], "")
        votes.append(
            {
                "day": r["day"],
                "label": f"{_phase_label('day', r['day'])} · {kind_label}",
                "lift": r["kind"] == "lift",
                "candidates": [
                    {"seat": c, "nickname": nicknames.get(c, ""), "count": len(v), "voters": [x["seat"] for x in v], "auto": [x["seat"] for x in v if x["auto"]]}
                    for c, v in r["by_candidate"].items()
                ],
                "yes": r["yes"],
                "no": r["no"],
            }
        )
    nominations = [
        {"day": d, "by": b, "target": t, "nickname": nicknames.get(t, ""), "supported": res == "supported"}
        for d, b, t, res in Nomination.objects.filter(game=game).order_by("action__seq").values_list("day", "by_seat", "target_seat", "result")
    ]
    today = [n for n in nominations if phase == "day" and n["day"] == day]

    view: dict[str, Any] = {
        "game_id": game.pk,
        "title": public_title(game),
        "seq": game.seq,
        "at": _ms(game.updated_at),
        "status": status,
        # Over, the header names the result itself (issue 12-7), once.
        "status_label": (_winner_label(status, game.winner) or _status_label(status)) if over else _status_label(status),
        "over": over,
        "phase_label": _phase_name(phase, day, step) if status == "running" else "",
        "is_night": phase == "night" and not over and step != "last_word",
        "step_label": _step_label(step) if step_public and not over else "",
        "votes_cancelled": _cancelled_votes(ps) if status == "running" else [],
        "speaker": speaker if step_public else None,
        "speaker_nickname": nicknames.get(speaker, "") if step_public and speaker else "",
        "seats": seats,
        "nominees": [{"seat": s, "nickname": nicknames.get(s, "")} for s in nominees_now] if not over else [],
        "nominations_today": today,
        "votes": votes,
        "result": _winner_label(status, game.winner) if over else _winner_label(status, ps.get("winner")) if decided else "",
        "decided": decided,
        "ppk": bool(over and game.ppk),
        "clock_visible": step_public and not over,
        # D7: when the running pause began (its countdown is per send).
        "tech_pause_start": tech_pause_start(game),
        "protocol": _protocol(game, nicknames) if over else None,
    }
    return view


def _record(state: Any, name: str) -> list[dict[str, Any]]:
    record = state.record
    value = record.get(name) if isinstance(record, dict) else getattr(record, name, None)
    return list(value or [])


def _protocol(game: Game, nicknames: dict[int, str]) -> dict[str, Any]:
    """The full protocol, drawn after the end only (roles, shots, checks, best move)."""
    state = game_state(game)
    public = state.public_dict()

    def nick(seat: Any) -> str:
        try:
            return f"{int(seat)}. {nicknames.get(int(seat), '')}"
        except (TypeError, ValueError):
            return "—"

    nights: dict[int, dict[str, Any]] = defaultdict(lambda: {"shots": [], "victim": None, "checks": [], "best_move": None})
    for e in _record(state, "shots"):
        n = nights[int(e.get("night") or 0)]
        n["shots"] = [{"by": nick(b), "target": nick(t) if t is not None else "—"} for b, t in (e.get("by") or {}).items()]
        n["victim"] = nick(e["victim"]) if e.get("victim") is not None else str(_("Промах"))
    for e in _record(state, "checks"):
        result = e.get("result")
        if e.get("by") == "don":
            text = _("Шериф") if result else _("Не шериф")
            who = _("Дон")
        else:
            text = _("Чёрный") if result == "black" else _("Красный")
            who = _("Шериф")
        nights[int(e.get("night") or 0)]["checks"].append({"who": str(who), "target": nick(e.get("target")), "result": str(text)})
    for e in _record(state, "best_moves"):
        if e.get("passed"):
            verdict = _("Пас")
        elif e.get("accepted"):
            verdict = _("Принят, чёрных: %(n)s") % {"n": e.get("blacks") or 0}
        else:
            verdict = _("Не принят")
        nights[int(e.get("night") or 0)]["best_move"] = {"seat": nick(e.get("seat")), "seats": [nick(s) for s in e.get("seats") or []], "verdict": str(verdict)}
    penalties = []
    kinds = {"foul": _("Фол"), "warning": _("Предупреждение"), "grey_card": _("Серая карточка"), "disqualify": _("Дисквалификация"), "remove": _("Удаление"), "ppk": _("ППК")}
    for e in _record(state, "penalties"):
        penalties.append(
            {
                "kind": str(kinds.get(e.get("kind", ""), e.get("kind", ""))),
                "seat": nick(e["seat"]) if e.get("seat") else "",
                "when": _phase_label(e.get("phase"), e.get("day")),
                # The state keeps the stored (Russian) wording of a catalogue
                # reason: it is shown in the reader's language (F16).
                "reason": reason_text(e.get("reason") or "", None, get_language() or "ru"),
            }
        )
    winks = [{"by": nick(e.get("by")), "target": nick(e.get("target")), "when": _phase_label(e.get("phase"), e.get("day"))} for e in _record(state, "winks")]
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
        at = _ms(game.updated_at)
    else:
        rows = GameAction.objects.filter(game=game, created_at__lte=as_of)
        actions = list(rows.filter(Q(undone_at__isnull=True) | Q(undone_at__gt=as_of)).order_by("seq").values_list("payload", flat=True))
        # Game.seq counts recorded actions plus undos (services).
        seq = rows.count() + GameAction.objects.filter(game=game, undone_at__lte=as_of).count()
        at = _ms(as_of)
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
        "phase_label": _phase_name(ps.get("phase"), ps.get("day"), ps.get("step")) if status == "running" else _status_label(status),
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


def _tech_pause_running(game: Game, as_of: datetime | None) -> bool:
    """Whether a technical pause (D7) ran at `as_of` (None: now), by the log as it was then."""
    if as_of is None:
        return running_tech_pause(game) is not None
    last = (
        GameAction.objects.filter(game=game, created_at__lte=as_of)
        .filter(Q(undone_at__isnull=True) | Q(undone_at__gt=as_of))
        .order_by("-seq")
        .values_list("payload", "created_at")
        .first()
    )
    if last is None or not isinstance(last[0], dict) or last[0].get("do") != "tech_pause":
        return False
    ended = game.tech_pause_ended_at if game.tech_pause_ended_at and game.tech_pause_ended_at <= as_of else None
    duration_ms = game_regulations(game).tech_pause * 1000
    return clock.tech_pause_remaining_ms(last[1], ended, duration_ms, as_of) > 0


# --- frames -------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    game_id: int
    seq: int
    at: int
    html: str


class _BodyCache:
    """Rendered bodies per (kind, game): only the latest version is kept."""

    def __init__(self, size: int = 512) -> None:
        self._data: OrderedDict[tuple[str, int], tuple[tuple[Any, ...], dict[str, Any], str]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, kind: str, game_id: int, key: tuple[Any, ...]) -> tuple[dict[str, Any], str] | None:
        with self._lock:
            hit = self._data.get((kind, game_id))
            if hit is None or hit[0] != key:
                return None
            self._data.move_to_end((kind, game_id))
            return hit[1], hit[2]

    def put(self, kind: str, game_id: int, key: tuple[Any, ...], view: dict[str, Any], body: str) -> None:
        with self._lock:
            self._data[(kind, game_id)] = (key, view, body)
            self._data.move_to_end((kind, game_id))
            while len(self._data) > self._size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


body_cache = _BodyCache()


def languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def frame_language(code: str | None) -> str:
    """A language of the site for `code` (e.g. from ?lang= or the request), else the default.

    Frames are rendered once per change and per site language (two), never
    per spectator; each socket gets the text of its page's language.
    """
    codes = languages()
    if code:
        code = code.lower()
        if code in codes:
            return code
        if code.split("-")[0] in codes:
            return code.split("-")[0]
    return str(settings.LANGUAGE_CODE)


def board_frame(game: Game, *, snapshot: bool = False, lang: str | None = None) -> Frame:
    """The public frame of `game` as stored in the row given (render once, cached)."""
    lang = frame_language(lang)
    key = (game.seq, _ms(game.updated_at), str(game.status))
    with override(lang):
        hit = body_cache.get(f"board:{lang}", game.pk, key)
        if hit is None:
            view = public_view(game)
            body = _compact(render_to_string(f"{BOARD_TEMPLATE}#board-body", {"board": view}))
            body_cache.put(f"board:{lang}", game.pk, key, view, body)
        else:
            view, body = hit
        clock = clock_view(game, visible=view["clock_visible"])
        pause = tech_pause_view(game, view["tech_pause_start"])
        head = render_to_string(f"{BOARD_TEMPLATE}#board-live", {"board": view, "clock": clock, "pause": pause, "snapshot": snapshot, "lang": lang})
    return Frame(game.pk, game.seq, view["at"], _compact(head) + body)


def board_frame_for(game_id: int, *, snapshot: bool = False, lang: str | None = None) -> Frame | None:
    # No transaction: on SQLite ours take the write lock at BEGIN (IMMEDIATE),
    # and a frame torn between two revisions is corrected by the next one.
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    return board_frame(game, snapshot=snapshot, lang=lang)


def overlay_frame(game: Game, *, as_of: datetime | None = None, snapshot: bool = False, lang: str | None = None) -> Frame:
    lang = frame_language(lang)
    key = (game.seq, _ms(game.updated_at), game.overlay_delay_seconds, token_digest(game.overlay_token))
    with override(lang):
        hit = body_cache.get(f"overlay:{lang}", game.pk, key) if as_of is None else None
        if hit is None:
            view = overlay_view(game, as_of=as_of)
            body = _compact(render_to_string(f"{OVERLAY_TEMPLATE}#overlay-body", {"ov": view}))
            if as_of is None:
                body_cache.put(f"overlay:{lang}", game.pk, key, view, body)
        else:
            view, body = hit
        # A snapshot as of the past has no clock: the clock fields only hold now.
        clock = clock_view(game, visible=as_of is None and not view["over"])
        paused = view["status"] == "running" and _tech_pause_running(game, as_of)
        scene = overlay_scene(status=view["status"], phase=view["phase"], step=view["step"], paused=paused)
        head = render_to_string(f"{OVERLAY_TEMPLATE}#overlay-live", {"ov": view, "clock": clock, "snapshot": snapshot, "lang": lang, "scene": scene})
    return Frame(game.pk, view["seq"], view["at"], _compact(head) + body)


_BETWEEN_LINES = re.compile(r">\s*\n\s*<")


def _compact(html: str) -> str:
    """Drop the template's line breaks between tags (a frame goes to every spectator)."""
    return _BETWEEN_LINES.sub("><", html).strip()


# --- broadcast (receiver of games.signals.game_changed) ---------------------------


def broadcast_game(game_id: int) -> None:
    """Render the frames of a game once (per site language) and hand them to the channel layer."""
    layer = get_channel_layer()
    if layer is None:
        return
    rendered = _render_frames(game_id)
    if rendered is not None:
        async_to_sync(_send_all)(layer, game_id, *rendered)


def _render_frames(game_id: int) -> tuple[dict[str, Frame], dict[str, Frame], str] | None:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    board_frames = {lang: board_frame(game, lang=lang) for lang in languages()}
    overlay_frames = {lang: overlay_frame(game, lang=lang) for lang in languages()} if game.overlay_token else {}
    return board_frames, overlay_frames, token_digest(game.overlay_token)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The ASGI server's event loop when this sync code runs in a request thread of it."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    if not isinstance(loop, asyncio.AbstractEventLoop) or pid != os.getpid() or loop.is_closed() or not loop.is_running():
        return None
    return loop


_broadcast_locks: dict[int, asyncio.Lock] = {}


async def _broadcast_in_background(game_id: int) -> None:
    """The frames rendered in a worker thread, sent from the server's loop.

    One at a time per game and process, so frames leave in revision order;
    each render reads the latest committed revision, so a burst of clicks
    costs at most one render per click and clients skip what they have.
    """
    lock = _broadcast_locks.setdefault(game_id, asyncio.Lock())
    async with lock:
        try:
            layer = get_channel_layer()
            if layer is None:
                return
            rendered = await sync_to_async(_render_frames_in_worker, thread_sensitive=False)(game_id)
            if rendered is not None:
                await _send_all(layer, game_id, *rendered)
        except Exception:  # the action is durable; clients resync on the next frame
            log.warning("board broadcast of game %s failed", game_id, exc_info=True)


def _render_frames_in_worker(game_id: int) -> tuple[dict[str, Frame], dict[str, Frame], str] | None:
    # A worker thread outside any request: release its connection as a
    # request would, so pool threads do not keep database sessions open.
    try:
        return _render_frames(game_id)
    finally:
        close_old_connections()


_pending_games: set[int] = set()
_pending_loop: asyncio.AbstractEventLoop | None = None
_pending_lock = threading.Lock()


def _publish(game_id: int) -> None:
    """Under a running ASGI server, render and send once the host's response
    has gone (the host's click neither waits for the spectators' frames nor
    shares the GIL with their rendering); elsewhere (tests, management
    commands) synchronously."""
    global _pending_loop
    loop = _server_loop() if getattr(settings, "LIVE_RENDER_OFF_REQUEST", True) else None
    if loop is None:
        broadcast_game(game_id)
        return
    with _pending_lock:
        _pending_games.add(game_id)
        _pending_loop = loop
    # request_finished normally flushes it; this is the net for a change made
    # outside a request (a background job in a server thread).
    loop.call_soon_threadsafe(lambda: loop.call_later(0.2, flush_pending_broadcasts))


def _start_broadcast(loop: asyncio.AbstractEventLoop, game_id: int) -> None:
    loop.create_task(_broadcast_in_background(game_id))


def flush_pending_broadcasts(**kwargs: Any) -> None:
    """request_finished receiver: start the background broadcasts queued by the request."""
    with _pending_lock:
        games = sorted(_pending_games)
        _pending_games.clear()
        loop = _pending_loop
    if loop is None or loop.is_closed():
        return
    for game_id in games:
        loop.call_soon_threadsafe(_start_broadcast, loop, game_id)


def _message(kind: str, group: str, game_id: int, frames: dict[str, Frame]) -> dict[str, Any]:
    default = frames.get(str(settings.LANGUAGE_CODE)) or next(iter(frames.values()))
    return {
        "type": kind,
        "group": group,
        "game_id": game_id,
        "seq": default.seq,
        "at": default.at,
        "html": default.html,
        "html_by_lang": {lang: f.html for lang, f in frames.items()},
    }


async def _send_all(layer: Any, game_id: int, board_frames: dict[str, Frame], overlay_frames: dict[str, Frame], digest: str) -> None:
    group = board_group(game_id)
    message = _message(BOARD_UPDATE, group, game_id, board_frames)
    # Under daphne this coroutine runs on the server's loop while the host's
    # request thread waits for it: hold that thread until the local
    # spectators have the frame, so rendering the host's response does not
    # compete with the socket writes for the GIL (bounded: the layer may
    # drop the message, and then clients resync from seq gaps).
    hub = peek_hub()
    delivered = hub.expect(group, message["seq"], message["at"]) if hub is not None else None
    await layer.group_send(group, message)
    # Overlays always hear about the token: an empty or new digest closes
    # the sockets opened with a revoked token.
    if overlay_frames:
        overlay = _message(OVERLAY_UPDATE, overlay_group(game_id), game_id, overlay_frames)
    else:
        overlay = {"type": OVERLAY_UPDATE, "group": overlay_group(game_id), "game_id": game_id, "seq": message["seq"], "at": message["at"], "html": "", "html_by_lang": {}}
    overlay["token_digest"] = digest
    await layer.group_send(overlay_group(game_id), overlay)
    if hub is not None:
        await hub.wait(delivered, timeout=0.25)


def on_game_changed(sender: Any, game_id: int, seq: int = 0, status: str = "", clock_only: bool = False, **kwargs: Any) -> None:
    """games.signals.game_changed receiver: runs after the commit, in the writer's process."""
    _publish(game_id)


def on_game_saved(sender: Any, instance: Game, created: bool = False, update_fields: Any = None, **kwargs: Any) -> None:
    """post_save of Game: a changed overlay token or delay reaches open overlays.

    services.game_set_overlay sends no game_changed; revoking a token must
    still close the overlays opened with it, so listen to the row itself.
    """
    if update_fields and "overlay_token" in update_fields:
        game_id = instance.pk
        transaction.on_commit(lambda: _safe_broadcast(game_id))


def _safe_broadcast(game_id: int) -> None:
    try:
        broadcast_game(game_id)
    except Exception:  # a layer that is down must not break the host's request
        log.warning("overlay broadcast of game %s failed", game_id, exc_info=True)
