"""The only write path for games.

Every change goes through a function here: lock the game row, check the
revision the caller saw (a stale double click is refused, not applied twice),
let the pure engine apply the action, store it, project it, and schedule the
live-board broadcast for after the commit. Views, commands and tests never
write games, actions or projection rows themselves.

What a committed change sets off (the receivers, so that following a click
does not mean searching the apps):
- `games.signals.game_changed` (after the commit, `_schedule_broadcast`):
  games.board.frames.on_game_changed (the board's and the overlay's frames;
  wired in games/apps.py), tournaments.live.on_game_changed (the tournament's
  live page; tournaments/apps.py), discord_bridge.receivers (the bot's chat
  and voice chores; discord_bridge/apps.py).
- `games.signals.results_changed` (inside the transaction that writes or
  removes a game's results, `_sync_results`): players.book.on_results_changed
  (ratings and statistics) and players.discipline.on_results_changed
  (discipline that outlives a game); players/apps.py.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import clock
from games.board import publish
from games.board.public import public_facts
from games.models import (
    Game,
    GameAction,
    GameSeat,
    NightAction,
    Nomination,
    Penalty,
    SeatResult,
    Vote,
    new_overlay_token,
)
from games.reading import (
    clock_key,
    game_regulations,
    game_state,
    remember_state,
    replay_stored,
    running_tech_pause,
)
from games.rules import (
    GameState,
    Regulations,
    RuleViolation,
    apply,
    check_title,
    new_state,
    script,
    validate_action,
    validate_log,
)
from games.rules.schema import bad_action, check_text
from games.signals import results_changed


class StaleRevision(Exception):
    """The caller's page is behind the game: the click is refused (not applied twice)."""

    code = "stale_revision"
    rule = "SEQ"

    def __init__(self, expected: int, actual: int) -> None:
        self.expected = expected
        self.actual = actual
        self.params = {"expected": expected, "actual": actual}
        self.message = (
            f"The game changed since this page was drawn (revision {actual}, page {expected}); nothing was applied."
        )
        super().__init__(self.message)


class NoTechPause(Exception):
    """Ending a technical pause early when none runs (D7)."""

    code = "no_tech_pause"
    rule = "D7"
    params: dict[str, Any] = {}
    message = "Rule D7: no technical pause is running; nothing was changed."


class NothingToUndo(Exception):
    code = "nothing_to_undo"
    rule = "UNDO"
    params: dict[str, Any] = {}
    message = "There is no action to undo."


@dataclass
class Outcome:
    game: Game
    state: GameState
    action: GameAction | None


# Reading lives in games.reading (the board and the exports import it, never
# this module); callers read a game's state, regulations and log from there.

# --- writing -----------------------------------------------------------------


def game_create(
    *,
    host: Any,
    title: str = "",
    players: list[str] | None = None,
    regulations: Regulations | None = None,
    seating_seed: str = "",
) -> Game:
    """A new game in setup; with `players`, the `seat` action is recorded at once.

    The title and the seed are checked by the input schema first (RuleViolation
    "bad_action"): the database never has to refuse them."""
    title = check_title(title)
    if seating_seed:
        seating_seed = check_text(seating_seed, index=None, field="seed", max_len=64, min_len=1)
    with transaction.atomic():
        game = Game.objects.create(
            host=host,
            title=title,
            regulations=regulations.to_dict() if regulations else {},
            seating_seed=seating_seed,
            public_state=new_state(regulations).public_dict(),
        )
        if players is not None:
            action: dict[str, Any] = {"do": "seat", "players": list(players)}
            if seating_seed:
                action["seed"] = seating_seed
            game_record_action(game=game, action=action, expected_seq=0, by=host)
            game.refresh_from_db()
    return game


def _lock(game: Game, expected_seq: int | None = None) -> Game:
    """The game row, locked; refused when the caller saw another revision."""
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if expected_seq is not None and expected_seq != locked.seq:
        raise StaleRevision(expected_seq, locked.seq)
    return locked


def game_record_action(*, game: Game, action: dict[str, Any], expected_seq: int | None, by: Any) -> Outcome:
    """Apply one host action. Raises RuleViolation or StaleRevision; both change nothing.

    The input schema checks the action first (games/rules/schema.py: keys,
    types, limits), naming its position in the log; what is stored is the
    checked, normalised action."""
    if not isinstance(action, dict):
        raise bad_action(
            None, "action", "must be a JSON object with a 'do' field", "должно быть JSON-объектом с полем do"
        )
    with transaction.atomic():
        locked = _lock(game, expected_seq)
        before = game_state(locked)
        action = validate_action(action, index=before.count)
        after = apply(before, action)
        locked.seq += 1
        stored = GameAction.objects.create(game=locked, seq=locked.seq, payload=action, created_by=_user_or_none(by))
        index = _count_active(locked) - 1
        _project_new_entries(locked, after, {index: stored})
        _sync_after_change(locked, before, after)
        _schedule_broadcast(locked, public=_sync_public(locked))
        # Cached only once committed: a rolled-back transaction leaves no trace.
        transaction.on_commit(lambda: remember_state(locked, after.copy()))
    _copy_fields(locked, game)
    return Outcome(game=game, state=after, action=stored)


def game_undo_last_action(*, game: Game, expected_seq: int | None, by: Any) -> Outcome:
    """Mark the last active action undone (the row stays, replay skips it)."""
    with transaction.atomic():
        locked = _lock(game, expected_seq)
        last = locked.active_actions().last()
        if last is None:
            raise NothingToUndo()
        before = game_state(locked)
        last.undone_at = timezone.now()
        last.undone_by = _user_or_none(by)
        last.save(update_fields=["undone_at", "undone_by"])
        for model in (Nomination, Vote, Penalty, NightAction):
            model.objects.filter(action=last).delete()
        # A fresh replay: the cache holds states by revision, and the revision
        # only moves on below.
        after = replay_stored(locked.action_payloads(), game_regulations(locked))
        locked.seq += 1
        _sync_after_change(locked, before, after)
        _schedule_broadcast(locked, public=_sync_public(locked))
        transaction.on_commit(lambda: remember_state(locked, after.copy()))
    _copy_fields(locked, game)
    return Outcome(game=game, state=after, action=last)


def game_rebuild_projection(*, game: Game) -> GameState:
    """Rewrite every projection row (and the result rows) from the log."""
    with transaction.atomic():
        locked = _lock(game)
        for model in (Nomination, Vote, Penalty, NightAction):
            model.objects.filter(game=locked).delete()
        actions = list(locked.active_actions())
        state = replay_stored([a.payload for a in actions], game_regulations(locked))
        _project_new_entries(locked, state, dict(enumerate(actions)))
        _sync_seats(locked, state)
        _sync_results(locked, state)
        if _sync_public(locked):
            _schedule_broadcast(locked)
    return state


def game_set_rated(*, game: Game, rated: bool) -> Game:
    """The host marks the game as counting for the players' rating (or not)."""
    with transaction.atomic():
        locked = _lock(game)
        if locked.rated != rated:
            locked.rated = rated
            locked.save(update_fields=["rated", "updated_at"])
            if locked.is_over:
                results_changed.send(sender=Game, game=locked)
    _copy_fields(locked, game)
    return game


def game_import_log(*, host: Any, data: dict[str, Any], title: str = "") -> Game:
    """Store a protocol log (FORMAT.md) as a game, action by action through the engine.

    The whole file is checked by the input schema before anything is stored
    (RuleViolation "bad_action" naming the action's position in the file).
    The log's `name` becomes the title when it is a valid title; like every
    top-level key but `format` and `actions`, it is otherwise ignored."""
    checked = validate_log(data)
    # (position in the file, action): a refusal names the file's position.
    actions = [(i, a) for i, a in enumerate(checked) if a["do"] != "expect" and not a.get("reject")]
    if not title:
        name = data.get("name")
        try:
            title = check_title(name) if isinstance(name, str) else ""
        except RuleViolation:
            title = ""
    # All or nothing: a log the engine refuses halfway leaves no half game.
    with transaction.atomic():
        game = game_create(host=host, title=title)
        for position, action in actions:
            try:
                game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
            except RuleViolation as exc:
                exc.params.setdefault("index", position)
                raise
    return game


def game_restore_reading(*, game: Game, state: GameState, accepted: list[GameAction]) -> None:
    """Write what a restored log means: status, public state, seats, projection and result rows.

    Only for a game whose actions an archive import has just written as
    recorded (tournaments/archive.py, format /1, which carries no projection
    rows): `state` is today's reading of those actions (games.rules
    replay_as_recorded) and `accepted` the active actions, in order: an
    action today's rules refuse keeps its index in the state's record, is
    kept in the log, flagged by the import, and projects nothing. No
    broadcast, no clock change, no signal: the import rebuilds ratings once
    at its end."""
    public = state.public_dict()
    game.public_state = {**public, "votes_cancelled": sorted(state.cancelled)}
    game.status, game.winner, game.ppk = public["status"], public["winner"] or "", public["ppk"] or ""
    Game.objects.filter(pk=game.pk).update(
        public_state=game.public_state, status=game.status, winner=game.winner, ppk=game.ppk
    )
    _project_new_entries(game, state, dict(enumerate(accepted)))
    _sync_seats(game, state)
    _write_results(game, state)


def game_restore_archived_fields(
    *,
    game: Game,
    created_at: datetime,
    finished_at: datetime | None,
    overlay_token: str,
    overlay_delay_seconds: int,
    clock: dict[str, Any],
    action_times: dict[int, tuple[datetime, datetime | None]],
) -> Game:
    """Put back what a replay cannot know: when things happened, the overlay link, the clock.

    Only for a game rebuilt from an archive (tournaments/archive.py) whose
    actions were just replayed through game_record_action / game_undo_last_action:
    the protocol itself is not touched. `action_times` maps an action's seq to
    (created_at, undone_at).
    """
    with transaction.atomic():
        locked = _lock(game)
        Game.objects.filter(pk=locked.pk).update(
            created_at=created_at,
            finished_at=finished_at,
            overlay_token=overlay_token,
            overlay_delay_seconds=max(0, min(600, int(overlay_delay_seconds))),
            clock_key=str(clock.get("key", "")),
            clock_duration_ms=int(clock.get("duration_ms", 0)),
            clock_started_at=clock.get("started_at"),
            clock_elapsed_ms=int(clock.get("elapsed_ms", 0)),
            timeout_since=clock.get("timeout_since"),
        )
        for action in locked.actions.all():
            if action.seq in action_times:
                created, undone = action_times[action.seq]
                GameAction.objects.filter(pk=action.pk).update(
                    created_at=created, undone_at=undone if action.undone_at else None
                )
        locked.refresh_from_db()
        _sync_public(locked)
    _copy_fields(locked, game)
    return game


# --- clocks (DESIGN.md "Clocks": stored, never ticked) --------------------------


def game_clock_control(*, game: Game, command: str, by: Any, seconds: int = 0) -> Game:
    """start | pause | resume | adjust (±seconds) | reset | timeout | end_timeout."""
    with transaction.atomic():
        locked = _lock(game)
        now = timezone.now()
        if command in ("start", "resume"):
            if locked.clock_started_at is None and locked.timeout_since is None:
                locked.clock_started_at = now
        elif command == "pause":
            _pause(locked, now)
        elif command == "reset":
            locked.clock_elapsed_ms = 0
            locked.clock_started_at = None
        elif command == "adjust":
            locked.clock_duration_ms = max(0, locked.clock_duration_ms + seconds * 1000)
        elif command == "timeout":  # D8: every clock stops
            if locked.timeout_since is None:
                # The clock keeps whether it was running: «Продолжить игру»
                # resumes it as it was (issue 12-9); the time-out's span never counts.
                locked.timeout_since = now
        elif command == "end_timeout":
            if locked.timeout_since is not None and locked.clock_started_at is not None:
                locked.clock_elapsed_ms += clock.run_elapsed_ms(locked.clock_started_at, locked.timeout_since)
                locked.clock_started_at = now
            locked.timeout_since = None
        else:
            raise ValueError(f"unknown clock command {command!r}")
        locked.save(
            update_fields=["clock_started_at", "clock_elapsed_ms", "clock_duration_ms", "timeout_since", "updated_at"]
        )
        # At night the clock is the host's alone: no public frame (issue 24).
        _schedule_broadcast(locked, clock_only=True, public=_sync_public(locked))
    _copy_fields(locked, game)
    return game


def game_end_tech_pause(*, game: Game, expected_seq: int | None, by: Any) -> Game:
    """D7: end the running technical pause early.

    The pause is clock state (it runs from its `tech_pause` action), so its
    early end is stored on the game, not written to the log (FORMAT.md is
    unchanged); the revision does not move, as with the other clock commands.
    The step's clock stays as it is: the host resumes it.
    """
    with transaction.atomic():
        locked = _lock(game, expected_seq)
        now = timezone.now()
        if running_tech_pause(locked, now) is None:
            raise NoTechPause()
        locked.tech_pause_ended_at = now
        locked.save(update_fields=["tech_pause_ended_at", "updated_at"])
        _schedule_broadcast(locked, clock_only=True, public=_sync_public(locked))
    _copy_fields(locked, game)
    return game


class OverlayDelayUnconfirmed(Exception):
    """An overlay without delay shows the roles live: only after the host confirms it (issue 24)."""

    code = "overlay_no_delay"
    rule = "OVERLAY"
    params: dict[str, Any] = {}
    message = "The overlay shows the roles: a 0 s delay shows them to every player watching the stream; confirm it, or set a delay longer than a player needs to see the stream. Nothing was changed."


def game_set_overlay(
    *,
    game: Game,
    by: Any,
    enabled: bool,
    delay_seconds: int | None = None,
    keep_token: bool = False,
    confirm_no_delay: bool = False,
) -> Game:
    """Enable (a new secret link), disable, or with `keep_token` only change the delay.

    The overlay shows the roles, so an enabled overlay with a 0 s delay needs
    `confirm_no_delay` (OverlayDelayUnconfirmed otherwise; nothing changes).
    """
    with transaction.atomic():
        locked = _lock(game)
        delay = locked.overlay_delay_seconds if delay_seconds is None else max(0, min(600, int(delay_seconds)))
        if enabled and delay == 0 and not confirm_no_delay:
            raise OverlayDelayUnconfirmed()
        if not (enabled and keep_token and locked.overlay_token):
            locked.overlay_token = new_overlay_token() if enabled else ""
        if delay_seconds is not None:
            locked.overlay_delay_seconds = max(0, min(600, int(delay_seconds)))
        locked.save(update_fields=["overlay_token", "overlay_delay_seconds", "updated_at"])
    _copy_fields(locked, game)
    return game


def draw_seating(players: list[str], seed: str | None = None) -> tuple[list[str], str]:
    """S1: a random seating, reproducible from the recorded seed."""
    import random

    seed = seed or secrets.token_hex(8)
    order = list(players)
    random.Random(seed).shuffle(order)
    return order, seed


# --- internals ----------------------------------------------------------------


def _user_or_none(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def _count_active(game: Game) -> int:
    return GameAction.objects.filter(game=game, undone_at__isnull=True).count()


def _copy_fields(source: Game, target: Game) -> None:
    if source is target:
        return
    for field in source._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))


def _pause(game: Game, now: datetime) -> None:
    if game.clock_started_at is not None:
        stop = min(now, game.timeout_since) if game.timeout_since else now
        game.clock_elapsed_ms += clock.run_elapsed_ms(game.clock_started_at, stop)
        game.clock_started_at = None


def _sync_after_change(game: Game, before: GameState, after: GameState) -> None:
    public = after.public_dict()
    # The public board shows a vote cancelled by a removal as soon as it is
    # recorded (F7–F10, issue 12-5); the host announces it aloud anyway.
    game.public_state = {**public, "votes_cancelled": sorted(after.cancelled)}
    game.status = public["status"]
    game.winner = public["winner"] or ""
    game.ppk = public["ppk"] or ""
    if game.is_over and game.finished_at is None:
        game.finished_at = timezone.now()
    elif not game.is_over:
        game.finished_at = None
    # A new step gets a fresh clock that starts at once; the same step keeps its clock.
    # Issue 26-2: a step the console precedes with a script step of its own
    # (a departed captain's wake-up) keeps its clock full and paused: the
    # console starts it when its turn comes, so one clock runs at a time.
    # Issue 26-4: so does a step the host opens with «В городе ночь» or
    # «Доброе утро»: his Space ("start", clock state, not a log action) runs it.
    key = clock_key(after)
    if key != game.clock_key:
        game.clock_key = key
        seconds = after.step_seconds
        game.clock_duration_ms = int(seconds or 0) * 1000
        game.clock_elapsed_ms = 0
        waits = script.clock_waits_for_host(after)
        game.clock_started_at = timezone.now() if seconds and game.timeout_since is None and not waits else None
    game.save()
    if before.players != after.players or before.roles != after.roles:
        _sync_seats(game, after)
    # Result rows exist exactly while the game is over: written when it ends,
    # rewritten by a penalty after the end (W3), removed when an undo reopens it.
    if game.is_over or before.status in ("finished", "annulled"):
        _sync_results(game, after)


def _sync_seats(game: Game, state: GameState) -> None:
    players = list(state.players or [])
    roles = dict(state.roles or {})
    existing = {s.seat_no: s for s in game.seats.all()}
    for seat_no in range(1, 11):
        nickname = players[seat_no - 1] if len(players) >= seat_no else ""
        role = roles.get(seat_no) or ""
        seat = existing.get(seat_no)
        if not nickname:
            if seat:
                seat.delete()
            continue
        if seat is None:
            GameSeat.objects.create(game=game, seat_no=seat_no, nickname=nickname, role=role)
        elif seat.nickname != nickname or seat.role != role:
            if seat.nickname != nickname:
                seat.player = None  # another person now: linked again by players
            seat.nickname, seat.role = nickname, role
            seat.save(update_fields=["nickname", "role", "player"])


def _project_new_entries(game: Game, state: GameState, actions_by_index: dict[int, GameAction]) -> None:
    """Write projection rows for the record entries of the given action indexes."""
    votes: list[Vote]
    nominations, votes, penalties, nights = [], [], [], []
    for e in state.record.nominations:
        if (a := actions_by_index.get(e["index"])) is not None:
            nominations.append(
                Nomination(
                    game=game, action=a, day=e["day"], by_seat=e["by"], target_seat=e["target"], result=e["result"]
                )
            )
    for e in state.record.votes:
        if (a := actions_by_index.get(e["index"])) is None:
            continue
        auto = set(e.get("auto") or [])
        if e["kind"] == "lift":
            for lift_yes, voters in ((True, e.get("yes")), (False, e.get("no"))):
                votes.extend(
                    Vote(
                        game=game,
                        action=a,
                        day=e["day"],
                        round_no=e["round"],
                        kind="lift",
                        voter_seat=voter,
                        lift_yes=lift_yes,
                    )
                    for voter in voters or []
                )
        else:
            for voter, candidate in (e.get("ballots") or {}).items():
                votes.append(
                    Vote(
                        game=game,
                        action=a,
                        day=e["day"],
                        round_no=e["round"],
                        kind=e["kind"],
                        voter_seat=int(voter),
                        candidate_seat=int(candidate),
                        auto=int(voter) in auto,
                    )
                )
    for e in state.record.penalties:
        if (a := actions_by_index.get(e["index"])) is not None:
            penalties.append(
                Penalty(
                    game=game,
                    action=a,
                    kind=e["kind"],
                    seat=e.get("seat"),
                    team=e.get("team") or "",
                    reason=e.get("reason") or "",
                    day=e.get("day"),
                    phase=e.get("phase") or "",
                    count=e.get("count"),
                    removed=bool(e.get("removed")),
                )
            )
    for e in state.record.shots:
        if (a := actions_by_index.get(e["index"])) is None:
            continue
        victim = e.get("victim")
        for black, target in (e.get("by") or {}).items():
            nights.append(
                NightAction(
                    game=game,
                    action=a,
                    night=e["night"],
                    kind="shot",
                    actor_seat=int(black),
                    target_seat=target,
                    result="kill" if victim is not None else "miss",
                )
            )
        if not e.get("by"):
            nights.append(NightAction(game=game, action=a, night=e["night"], kind="shot", result="miss"))
    captains = _captain_seats(state)
    for e in state.record.checks:
        if (a := actions_by_index.get(e["index"])) is not None:
            result = ("sheriff" if e["result"] else "not_sheriff") if e["by"] == "don" else str(e["result"])
            nights.append(
                NightAction(
                    game=game,
                    action=a,
                    night=e["night"],
                    kind=f"{e['by']}_check",
                    actor_seat=captains.get(e["by"]),
                    target_seat=e["target"],
                    result=result,
                )
            )
    for e in state.record.best_moves:
        if (a := actions_by_index.get(e["index"])) is not None:
            result = "pass" if e.get("passed") else ("accepted" if e.get("accepted") else "not_accepted")
            nights.append(
                NightAction(
                    game=game,
                    action=a,
                    night=e["night"],
                    kind="best_move",
                    actor_seat=e["seat"],
                    result=result,
                    seats=list(e.get("seats") or []),
                )
            )
    Nomination.objects.bulk_create(nominations)
    Vote.objects.bulk_create(votes)
    Penalty.objects.bulk_create(penalties)
    NightAction.objects.bulk_create(nights)


def _captain_seats(state: GameState) -> dict[str, int]:
    out: dict[str, int] = {}
    for seat, role in (state.roles or {}).items():
        if role in ("sheriff", "don"):
            out[role] = int(seat)
    return out


def _sync_results(game: Game, state: GameState) -> None:
    _write_results(game, state)
    results_changed.send(sender=Game, game=game)


def _write_results(game: Game, state: GameState) -> None:
    game.results.all().delete()
    public = state.public_dict()
    if public["status"] not in ("finished", "annulled"):
        return
    winner = public["winner"] or ""
    roles = {int(k): v for k, v in (state.roles or {}).items()}
    left = {entry["seat"]: entry for entry in public["left"]}
    penalties = state.record.penalties
    first_night_victim = None
    for shot in state.record.shots:
        if shot["night"] == 1 and shot.get("victim") is not None:
            first_night_victim = shot["victim"]
    best = {e["seat"]: e for e in state.record.best_moves}
    regs = game_regulations(game)
    rows = []
    for seat_no, nickname in enumerate(state.players or [], start=1):
        role = roles.get(seat_no, "civilian")
        team = "black" if role in ("don", "mafia") else "red"
        mine = [p for p in penalties if p.get("seat") == seat_no]
        bm = best.get(seat_no)
        how = left.get(seat_no, {}).get("how", "")
        rows.append(
            SeatResult(
                game=game,
                seat_no=seat_no,
                nickname=nickname,
                role=role,
                team=team,
                won=winner == team,
                winner=winner if public["status"] == "finished" else "",
                left_how=how,
                left_day=left.get(seat_no, {}).get("day"),
                left_phase=left.get(seat_no, {}).get("phase", ""),
                fouls=int(public["fouls"].get(str(seat_no), 0)),
                warnings=sum(1 for p in mine if p["kind"] == "warning"),
                grey_cards=sum(1 for p in mine if p["kind"] == "grey_card"),
                # From the penalties, not from `how`: a removing penalty during
                # his own last word keeps his left entry (W3) yet still counts.
                # A 2nd warning after leaving (RULES F19) removes nobody: not a disqualification.
                disqualified=any(
                    p["kind"] == "disqualify"
                    or (
                        p["kind"] == "warning"
                        and (p.get("count") or 0) >= regs.warnings_to_remove
                        and not p.get("after_leaving")
                    )
                    for p in mine
                ),
                removed_by_fouls=any(
                    p["kind"] == "foul" and (p.get("count") or 0) >= regs.fouls_to_remove for p in mine
                ),
                ppk=any(p["kind"] == "ppk" for p in mine),
                first_night_victim=first_night_victim == seat_no,
                best_move_seats=list(bm.get("seats") or []) if bm else [],
                best_move_accepted=bool(bm and bm.get("accepted")),
                best_move_blacks=int(bm.get("blacks") or 0) if bm and bm.get("accepted") else 0,
            )
        )
    SeatResult.objects.bulk_create(rows)


def _sync_public(game: Game) -> bool:
    """Move the public revision when, and only when, the public facts changed (issue 24).

    Called under the row lock after every change, once the projection rows
    and the seats are written. True when the public board needs a frame.
    """
    facts = public_facts(game, previous=game.public_facts or None)
    if facts == game.public_facts:
        return False
    game.public_facts = facts
    game.public_rev += 1
    game.public_at = timezone.now()
    game.save(update_fields=["public_facts", "public_rev", "public_at"])
    return True


def _schedule_broadcast(game: Game, *, clock_only: bool = False, public: bool = True) -> None:
    game_id, seq, status = game.pk, game.seq, game.status
    transaction.on_commit(lambda: publish.publish_game_changed(game_id, seq, status, clock_only, public))
