"""Reading games: the engine state of a game and its protocol lines, for every part.

The one state reader (issue 23). The read-only parts (the board, the exports,
the Discord bridge) and the console take the state from here, never from
games.services, which is the write path. One cache per process holds, for each
recent game:

- its state at a revision (``game_state``): the revision changes with every
  recorded or undone action, so a cached state is never stale, and a worker
  that missed a change simply replays;
- beside it, its protocol lines (``game_protocol``), one list per language:
  a log only grows at its end (an undo drops the last action; a new action
  gets a new seq), so the lines of the longest prefix with the same action
  seqs are still right, and when that prefix is the whole cached log its final
  state is the state to go on from. The words of a line are the console's
  (games.console.protocol_text writes them); the replay, the skipping of a
  refused stored action and the cache are here.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.db.models import Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import get_language

from games import clock
from games.models import Game
from games.rules import GameState, Regulations, RuleViolation, apply_in_place, new_state, replay_as_recorded
from games.vocabulary import clock_text


def game_regulations(game: Game) -> Regulations:
    return Regulations.from_dict(game.regulations) if game.regulations else Regulations()


def game_state(game: Game) -> GameState:
    """The engine state of a game at its current revision.

    A replay of its active actions, memoized (see the module's docstring).
    Callers get a copy, so nobody can alter the cached one. A stored action
    that today's rules refuse (a log recorded under an earlier reading,
    issue 21) is skipped, not fatal: the game stays readable (see
    games.rules.replay_as_recorded).
    """
    with _LOCK:
        entry = _entry(game)
        cached = entry.state if entry is not None and entry.revision == game.seq else None
    if cached is None:
        cached = replay_stored(game.action_payloads(), game_regulations(game))
        remember_state(game, cached)
    return cached.copy()


def remember_state(game: Game, state: GameState) -> None:
    """Keep `state` as the game's state at its revision (`game.seq`).

    The write path calls it once its transaction has committed, with the
    state it has just computed, so that the next reader does not replay."""
    with _LOCK:
        entry = _entry(game, create=True)
        assert entry is not None
        # The revision only grows (an undo is a revision too): a reader still
        # holding an older one never replaces the newer state.
        if entry.revision is None or game.seq >= entry.revision:
            entry.revision, entry.state = game.seq, state


def replay_stored(actions: list[dict[str, Any]], regulations: Regulations) -> GameState:
    """The state of a stored log: actions today's rules refuse are skipped."""
    state, _refused = replay_as_recorded(actions, regulations)
    return state


def clock_key(state: GameState) -> str:
    """The key of the step's clock: one per occurrence of a step.

    The write path gives a new clock when it changes (games.services), and the
    Discord bridge keys its step spans by it, so both compute it here. The
    number of speeches tells apart two consecutive steps of one speaker (his
    speech, then his tie speech).
    """
    speeches = len(state.record.speeches)
    return f"{state.status}|{state.day}|{state.phase}|{state.step}|{state.speaker}|{speeches}"


def game_export_log(*, game: Game) -> dict[str, Any]:
    """The protocol log of FORMAT.md."""
    return {
        "format": "mafia-protocol-log/1",
        "name": game.title or f"game-{game.pk}",
        "actions": game.action_payloads(),
    }


# --- the protocol lines ------------------------------------------------------------------------


class LineWriter(Protocol):
    """How a part words the protocol's lines (games.console.protocol_text.LINES)."""

    def before(self, state: GameState) -> Any:
        """What `line` needs of the state before an action (cheaper than a copy)."""

    def line(self, index: int, seq: int | None, action: dict[str, Any], before: Any, after: GameState) -> Any:
        """The line of an applied action."""

    def refused(self, index: int, seq: int | None, action: dict[str, Any], before: Any, exc: RuleViolation) -> Any:
        """The line of a stored action today's rules refuse (skipped)."""


@dataclass
class Replayed:
    """A game's state after its log, and a line per stored action."""

    state: GameState  # shared with the cache: never mutate it
    lines: list[Any] = field(default_factory=list)
    # (index, refusal) of each stored action today's rules refuse (games.rules.replay_as_recorded).
    refused: list[tuple[int, RuleViolation]] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)  # the active actions' seqs, in order


def game_protocol(game: Game, writer: LineWriter) -> Replayed:
    """The game's state and protocol lines (in the request's language), reusing
    what this process read before (see the module's docstring).

    The log is read in ONE query (seq and payload of every active action
    together): two reads — the seqs, then the payloads — let an action
    committed in between give more payloads than seqs, and the page failed
    with a 500 after a committed action (issue 11, finding 1). The payloads
    come as text and only those the cache has not seen are JSON-decoded.
    """
    rows = list(game.active_actions().values_list("seq", Cast("payload", output_field=TextField())))
    seqs = [seq for seq, _raw in rows]

    def load(start: int) -> list[dict[str, Any]]:
        return [json.loads(raw) for _seq, raw in rows[start:]]

    return replay_lines(load, writer, game_regulations(game), seqs, game=game)


@dataclass
class _Lines:
    lines: list[Any]
    state: GameState  # after the last of them


@dataclass
class _Entry:
    revision: int | None = None
    state: GameState | None = None
    lines: dict[tuple[str, str], _Lines] = field(default_factory=dict)  # by (language, regulations)


_CACHE: OrderedDict[tuple[int, float], _Entry] = OrderedDict()
_CACHE_SIZE = 256
_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every game read (a fresh worker; benchmarks measure the cold read)."""
    with _LOCK:
        _CACHE.clear()


def _entry(game: Game, create: bool = False) -> _Entry | None:
    # created_at tells apart two games that got the same pk (SQLite may reuse
    # the pk of a deleted game, a test database that rolls back too).
    key = (game.pk, game.created_at.timestamp() if game.created_at else 0.0)
    entry = _CACHE.get(key)
    if entry is None and create:
        entry = _CACHE[key] = _Entry()
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    if entry is not None:
        _CACHE.move_to_end(key)
    return entry


def replay_lines(
    actions: Sequence[dict[str, Any]] | Callable[[int], list[dict[str, Any]]],
    writer: LineWriter,
    regulations: Regulations | None = None,
    seqs: list[int] | None = None,
    game: Game | None = None,
) -> Replayed:
    """Apply the actions one by one, wording each: the final state and the lines.

    `actions` may be a function giving the actions from an index on, so that
    a cached game loads only its new actions. With `game` and `seqs`, what
    was worded before for the same leading actions is reused. A stored
    action today's rules refuse is skipped, exactly as
    games.rules.replay_as_recorded does, and worded as refused."""
    key = (get_language() or "", repr(regulations.to_dict()) if regulations else "")
    with _LOCK:
        entry = _entry(game) if game is not None and seqs is not None else None
        cached = entry.lines.get(key) if entry is not None else None
    reuse = 0
    if cached is not None and seqs is not None:
        for line, seen in zip(cached.lines, seqs, strict=False):
            if line.seq != seen:
                break
            reuse += 1
    if cached is not None and reuse == len(cached.lines):
        # The cached log is a prefix of this one: go on from its final state.
        state = cached.state.copy()
        tail = actions(reuse) if callable(actions) else actions[reuse:]
        start = reuse
    else:
        state = new_state(regulations)
        tail = actions(0) if callable(actions) else actions
        start = 0
    out = Replayed(state=state, lines=list(cached.lines[:reuse]) if cached else [], seqs=list(seqs or []))
    for offset, action in enumerate(tail):
        i = start + offset
        if i < reuse:
            apply_in_place(state, action)
            continue
        seq: int | None = seqs[i] if seqs else None
        before = writer.before(state)
        try:
            apply_in_place(state, action)
        except RuleViolation as exc:
            # The skipped action keeps its place: the record's index of every
            # later entry still names its own stored action.
            state.count += 1
            out.refused.append((i, exc))
            out.lines.append(writer.refused(i, seq, action, before, exc))
            continue
        out.lines.append(writer.line(i, seq, action, before, state))
    if game is not None and seqs is not None and not out.refused:
        with _LOCK:
            stored = _entry(game, create=True)
            assert stored is not None
            stored.lines[key] = _Lines(out.lines, state.copy())
    return out


def tech_pause_start(game: Game, as_of: datetime | None = None) -> dict[str, Any] | None:
    """The technical pause (D7) the log ends with: {"seat", "started_at"}, or None.

    A pause runs from its `tech_pause` action while that is the last active
    action of the log (it depends only on the revision, so a reader may
    cache it with the revision: the board does). With `as_of`, the log as it
    was then (a delayed board frame shows the past).
    """
    if as_of is None and game.status != "running":
        return None  # (as of a past moment, the caller knows whether it was running then)
    actions = game.actions.all()
    if as_of is None:
        actions = actions.filter(undone_at__isnull=True)
    else:
        actions = actions.filter(created_at__lte=as_of).filter(Q(undone_at__isnull=True) | Q(undone_at__gt=as_of))
    last = actions.order_by("-seq").values_list("payload", "created_at").first()
    if last is None or not isinstance(last[0], dict) or last[0].get("do") != "tech_pause":
        return None
    return {"seat": last[0].get("seat"), "started_at": last[1]}


def running_tech_pause(
    game: Game, now: datetime | None = None, start: dict[str, Any] | None | bool = True, *, as_of: bool = False
) -> dict[str, Any] | None:
    """The technical pause (D7) running at `now` (default: now), or None.

    It runs for the regulations' tech_pause seconds from its start
    (`tech_pause_start`; pass `start` when it is already known) unless the
    host ended it early (`Game.tech_pause_ended_at`). With `as_of`, `now` is
    a past moment and the log and the host's end are read as they were then.
    The seat is public: the player asks for the pause aloud.
    """
    now = now or timezone.now()
    begun = tech_pause_start(game, as_of=now if as_of else None) if start is True else start
    if not isinstance(begun, dict) or (game.status != "running" and not as_of):
        return None
    duration_ms = game_regulations(game).tech_pause * 1000
    # As of a past moment, an end the host gave later had not happened yet.
    ended = game.tech_pause_ended_at
    if as_of and ended is not None and ended > now:
        ended = None
    remaining = clock.tech_pause_remaining_ms(begun["started_at"], ended, duration_ms, now)
    if remaining <= 0:
        return None
    return {
        "seat": begun["seat"],
        "remaining_ms": remaining,
        "deadline": now + timedelta(milliseconds=remaining),
        "text": clock_text(remaining),
    }
