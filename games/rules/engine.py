"""The rules engine: a game's state as a pure function of its host actions.

``apply(state, action)`` returns a new state (the input is untouched);
``apply_in_place`` mutates one state and is what ``replay`` uses. Every handler
first validates the whole action (raising :class:`RuleViolation`) and only then
mutates, so a refused action leaves the state exactly as it was.

The flow of a game (FORMAT.md "Steps and what `next` does"):

    setup → start → N0: dogovorka → free_seating
    Day k: speech × players at the table (D2 order)
           → voting → [tie_speech × tied → voting]* → [lift_vote]
           → last_word × leaving → Night k
    Night k: mafia_shot → [W1 at the shot] → don_check → sheriff_check
           → best_move (N1 only) → morning (the player shot leaves, W4)
           → last_word → Day k+1 (or finished when decided)

Readings the texts leave open are marked ``READING`` with the rule id where
they are implemented; in short:

- D2: the opener skips seats no longer at the table; the next Day counts on
  from the actual opener.
- D4: naming a nominated candidate is "supported" even after the player's own
  accepted nomination; it never uses his nomination up.
- D6/F5/F6: the nearest speech is the first ``speech`` step that *begins*
  after the 3rd foul; a ``tie_speech`` before it is 30 s (F5) and does not
  use the penalty up; F6 counts the players at the table when that step begins.
- N7: a best move naming no seat is not accepted (``best_move`` stays null).
- F18: a 4th foul or a disqualifying foul for one of the three offences the
  grey-card list qualifies «при трёх фолах» is refused (the grey card instead).
- F19: a warning or a grey card may be given to a player who has left; it is
  recorded and changes nothing at the table.
- V5/X4: a vote whose candidates drop (removals) to none, or to one on Day 1,
  is not held — also a revote or a lift vote; on Day 1 the remaining tie
  speeches are not given either (no revote follows them): the Night begins.
- V6: Day 1 only, in any round, the top count shared by 3+ candidates.
- V10: "the same candidates" = every candidate of that revote is tied.
- V11: also when removals on the lift vote leave only the tied at the table.
- W1: the player shot is out for the result from the shot on: W1 is checked
  right after ``shots`` and after any removal that Night counting him out.
  A deciding shot (or a deciding removal after a pending shot) skips the
  Night's remaining checks, but the player shot keeps his N1 best move where
  N6/N9 give him one (a best move under way goes on); then the morning, his
  last word, then ``finished``.
  A deciding removal with no last word due ends the game at once.
- W2: a removal that decides the game while a last word is running (or
  queued) fixes the winner; those last words go on, then ``finished``.
- W5: ``ppk`` is the offending team; its ``seat`` may be a player who left.
- F10: "before the result" = on the Day, until its vote has an outcome
  (someone leaves, the lift fails, V6, V11); the Day-2 exception applies to
  a cancelling removal made on Day 2 before its result when Day 2's vote was
  already cancelled (by a removal on Day 2, or after Day 1's result, or in
  Night 1).
- F3/F4 on a last word: the speaker keeps his ``left`` entry; the penalty
  ends his last word and never cancels a vote.
- V10: a lift voter listed twice is refused, like a double vote (V3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from games.rules.catalogue import F18_GREY_CARD, catalogue_code
from games.rules.catalogue import reason as catalogue_reason
from games.rules.errors import RuleViolation
from games.rules.regulations import Regulations
from games.rules.state import BLACK_ROLES, SEATS, GameState

Action = dict[str, Any]

# Steps that end with `next` (FORMAT.md); voting and lift_vote end only with
# their own action.
NEXT_STEPS = frozenset(
    (
        "dogovorka",
        "free_seating",
        "speech",
        "tie_speech",
        "last_word",
        "mafia_shot",
        "don_check",
        "sheriff_check",
        "best_move",
    )
)
PENALTY_KINDS = ("foul", "warning", "grey_card", "disqualify")
TEAMS = ("red", "black")
_MISSING = object()


# --- public API ---------------------------------------------------------------------


def new_state(regulations: Regulations | None = None) -> GameState:
    """A game in setup: nobody seated, no roles."""
    return GameState(regulations)


def apply(state: GameState, action: Action) -> GameState:
    """Return the state after ``action``; ``state`` itself is never modified.

    Raises RuleViolation for anything the rules or the log format forbid.
    This is the path of a host's new action; it also refuses what only new
    input can do wrong (``_refuse_new_input``), while a stored log replays
    through ``apply_in_place`` as it was recorded."""
    _refuse_new_input(state, action)
    new = state.copy()
    apply_in_place(new, action)
    return new


def _refuse_new_input(state: GameState, action: Action) -> None:
    """Checks on new host input only. Logs recorded before a check existed
    (FORMAT.md: logs are never rewritten) must still replay, so these never
    run in ``replay`` / ``apply_in_place``."""
    if isinstance(action, dict) and action.get("do") == "nominate" and state.step == "speech":
        # D3/D4: naming the same candidate again in the same speech (one speech
        # per player per Day, D1) says nothing new: refused, not a second line.
        by, target = action.get("by"), action.get("target")
        if any(n["day"] == state.day and n["by"] == by and n["target"] == target for n in state.record.nominations):
            raise RuleViolation("repeated_nomination", "D4", {"by": by, "target": target})


def apply_in_place(state: GameState, action: Action) -> None:
    """Apply ``action`` to ``state`` itself. On a refusal nothing was changed."""
    if not isinstance(action, dict):
        raise RuleViolation("bad_action", "FORMAT", {"problem": "an action must be a JSON object with a 'do' field."})
    do = action.get("do")
    handler = _HANDLERS.get(do) if isinstance(do, str) else None
    if handler is None:
        if do == "expect":
            raise RuleViolation("expect_not_applied", "FORMAT")
        raise RuleViolation(
            "unknown_action", "FORMAT", {"do": do if isinstance(do, str | int | float | None) else str(do)}
        )
    status = state.status
    if status != "running" and do not in _SETUP_ACTIONS:
        if status == "setup":
            raise RuleViolation("game_not_started", "S1")
        _refuse_over(state)
    handler(state, action)
    state.count += 1


def replay(actions: Iterable[Action], regulations: Regulations | None = None) -> GameState:
    """The state after all ``actions`` (``expect`` checkpoints are skipped).

    Raises RuleViolation on the first refused action."""
    state = GameState(regulations)
    for action in actions:
        if isinstance(action, dict) and action.get("do") == "expect":
            continue
        apply_in_place(state, action)
    return state


def replay_as_recorded(
    actions: Iterable[Action], regulations: Regulations | None = None
) -> tuple[GameState, list[tuple[int, RuleViolation]]]:
    """A stored log replayed tolerantly: ``(state, refused)``.

    Logs are never rewritten (FORMAT.md), but a reading of the rules may
    change after a game was recorded (issue 21: D6, N7, W1, F18, F19). An
    action today's rules refuse is skipped — it changes nothing, exactly as
    a refused new action — and listed in ``refused`` as ``(index,
    RuleViolation)``, ``index`` being its position in ``actions`` (``expect``
    checkpoints count, and are skipped). Everything after it is applied to
    the state without it, so the game stays readable and the reader can say
    which recorded actions today's rules refuse. The skipped action still
    counts for the record's ``index`` (``state.count``), so every later
    record entry points at its own stored action.

    ``replay`` is the strict form (the first refusal raises); for a log that
    today's rules accept whole both give the same state. Used by
    games.reading and by the archive import.
    """
    state = GameState(regulations)
    refused: list[tuple[int, RuleViolation]] = []
    for index, action in enumerate(actions):
        if isinstance(action, dict) and action.get("do") == "expect":
            continue
        try:
            apply_in_place(state, action)
        except RuleViolation as exc:
            refused.append((index, exc))
            # The skipped action keeps its place: the record's ``index`` of
            # every later entry still names its own stored action.
            state.count += 1
    return state, refused


def legal_actions(state: GameState) -> list[Action]:
    """What the host may do now: one dict per action kind, with its options.

    Every action built from these options is accepted, or at most refused with
    a RuleViolation for a detail the options cannot express (e.g. a vote that
    lists a voter twice)."""
    s = state
    if s.status == "setup":
        out: list[Action] = [{"do": "seat"}, {"do": "roles"}]
        if s.players is not None and s.roles:
            out.append({"do": "start"})
        return out
    if s.status != "running":
        return []
    out = []
    step = s.step
    table = s.at_table
    if step in NEXT_STEPS:
        out.append({"do": "next"})
    if step == "speech":
        by = s.speaker
        if by in s.nominated_by:
            targets = s.nominees.copy()  # D4: only «Поддерживается» is left
        else:
            targets = [t for t in table if s.regulations.allow_self_nomination or t != by]
            targets = sorted(set(targets) | set(s.nominees))
        # D3/D4: a candidate this speaker already named in this speech is not offered again.
        named = {n["target"] for n in s.record.nominations if n["day"] == s.day and n["by"] == by}
        targets = [t for t in targets if t not in named]
        if targets:
            out.append({"do": "nominate", "by": by, "targets": targets})
    elif step == "voting":
        out.append({"do": "votes", "candidates": s.nominees.copy(), "voters": table.copy()})
    elif step == "lift_vote":
        out.append({"do": "lift_vote", "candidates": s.nominees.copy(), "voters": table.copy()})
    elif step == "mafia_shot":
        out.append({"do": "shots", "blacks": s.blacks_at_table(), "targets": table.copy()})
    elif step == "don_check":
        out.append({"do": "don_check", "seat": s.seat_of("don"), "targets": list(SEATS)})
    elif step == "sheriff_check":
        out.append({"do": "sheriff_check", "seat": s.seat_of("sheriff"), "targets": list(SEATS)})
    elif step == "best_move":
        out.append({"do": "best_move", "seat": s.victim, "targets": list(SEATS), "max": s.regulations.best_move_seats})
    penalised = table.copy()
    if step == "last_word" and s.speaker is not None and s.speaker not in table:
        penalised.append(s.speaker)
    departed = [e["seat"] for e in s.left if e["seat"] not in penalised]
    for kind in PENALTY_KINDS:
        # RULES F19: a warning or a grey card also after leaving.
        seats = sorted(penalised + departed) if kind in AFTER_LEAVING_KINDS else penalised
        if seats:
            out.append({"do": kind, "seats": seats})
    if table:
        out.append({"do": "remove", "seats": table.copy()})
    winkers = _winkers(s)
    if winkers and len(table) > 1:
        out.append({"do": "wink", "by": winkers, "targets": table.copy()})
    pausers = [seat for seat in table if _tech_pause_refusal(s, seat) is None]
    if pausers:
        out.append({"do": "tech_pause", "seats": pausers})
    out.append({"do": "ppk", "teams": list(TEAMS)})
    out.append({"do": "annul"})
    return out


# --- field parsing ----------------------------------------------------------------------


def _seat(action: Action, field: str) -> int:
    value = action.get(field, _MISSING)
    if value is _MISSING:
        raise RuleViolation("bad_field", "FORMAT", {"field": field, "problem": "is missing"})
    if type(value) is not int or not 1 <= value <= 10:
        raise RuleViolation("bad_seat", "FORMAT", {"field": field, "value": _jsonable(value)})
    return value


def _seat_value(field: str, value: Any) -> int:
    if type(value) is not int or not 1 <= value <= 10:
        raise RuleViolation("bad_seat", "FORMAT", {"field": field, "value": _jsonable(value)})
    return value


def _key_seat(field: str, key: Any) -> int:
    """A seat used as an object key: JSON keys are strings ("5")."""
    if type(key) is int:
        seat = key
    elif isinstance(key, str) and key.isdigit() and key.isascii():
        seat = int(key)
    else:
        raise RuleViolation("bad_seat", "FORMAT", {"field": field, "value": _jsonable(key)})
    if not 1 <= seat <= 10:
        raise RuleViolation("bad_seat", "FORMAT", {"field": field, "value": _jsonable(key)})
    return seat


def _seat_list(action: Action, field: str, *, required: bool = True) -> list[int]:
    value = action.get(field, _MISSING)
    if value is _MISSING:
        if required:
            raise RuleViolation("bad_field", "FORMAT", {"field": field, "problem": "is missing"})
        return []
    if not isinstance(value, list):
        raise RuleViolation("bad_field", "FORMAT", {"field": field, "problem": "must be a list of seats"})
    for v in value:
        _seat_value(field, v)
    return value


def _reason(action: Action) -> str | None:
    reason = action.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise RuleViolation("bad_field", "FORMAT", {"field": "reason", "problem": "must be a string or null"})
    return reason


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _require_step(s: GameState, step: str, action: str, rule: str) -> None:
    if s.step != step:
        raise RuleViolation("wrong_step", rule, {"action": action, "step": s.step})


def _refuse_over(s: GameState) -> None:
    raise RuleViolation("game_over", "W6" if s.status == "annulled" else "W1", {"status": s.status})


# --- setup (S1, S2) ------------------------------------------------------------------------


def _do_seat(s: GameState, a: Action) -> None:
    if s.status != "setup":
        _refuse_setup(s)
    players = a.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 10
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise RuleViolation("bad_players", "S1")
    s.players = list(players)
    s.at_table = list(SEATS)


def _do_roles(s: GameState, a: Action) -> None:
    if s.status != "setup":
        _refuse_setup(s)
    sheriff = _seat(a, "sheriff")
    don = _seat(a, "don")
    mafia = _seat_list(a, "mafia")
    if len(mafia) != 2:
        raise RuleViolation("bad_field", "FORMAT", {"field": "mafia", "problem": "must list exactly two seats"})
    if len({sheriff, don, *mafia}) != 4:
        raise RuleViolation("roles_not_distinct", "S2")
    roles = dict.fromkeys(SEATS, "civilian")
    roles[sheriff] = "sheriff"
    roles[don] = "don"
    roles[mafia[0]] = "mafia"
    roles[mafia[1]] = "mafia"
    s.roles = roles


def _do_start(s: GameState, a: Action) -> None:
    if s.status != "setup":
        _refuse_setup(s)
    if s.players is None:
        raise RuleViolation("not_seated", "S1")
    if not s.roles:
        raise RuleViolation("no_roles", "S2")
    s.status = "running"
    s.day = 0
    s.phase = "night"
    s.step = "dogovorka"  # N0.1–N0.3: «В городе ночь», then the blacks' minute
    s.night_leaves = [0]


def _refuse_setup(s: GameState) -> None:
    if s.status in ("finished", "annulled"):
        _refuse_over(s)
    raise RuleViolation("not_in_setup", "S1")


# --- next -----------------------------------------------------------------------------------


def _do_next(s: GameState, a: Action) -> None:
    step = s.step
    if step not in NEXT_STEPS:
        rule = "V10" if step == "lift_vote" else "V2" if step == "voting" else "FORMAT"
        raise RuleViolation("next_not_allowed", rule, {"step": step})
    if step == "speech":
        _next_speech(s)
    elif step == "tie_speech":
        _next_tie_speech(s)
    elif step == "last_word":
        _next_last_word(s)
    elif step == "dogovorka":
        s.step = "free_seating"  # N0.4
    elif step == "free_seating":
        _start_day(s)
    elif step == "mafia_shot":
        # N2: nobody named anybody — a miss.
        _record_shot(s, dict.fromkeys(s.blacks_at_table()), None)
        _night_advance(s, "mafia_shot")
    elif step == "don_check" or step == "sheriff_check":
        _night_advance(s, step)  # no check this Night
    else:  # best_move: none was left
        _record_best_move(s, [], accepted=False, passed=False, how="none")
        _morning(s)


# --- Day: speeches (D1–D6, F5, F6) ---------------------------------------------------------------


def _begin_speech(s: GameState, seat: int, kind: str) -> None:
    r = s.regulations
    if kind == "speech":
        seconds = r.speech
        if seat in s.mute_pending:
            # D6/F2: the nearest speech after the 3rd foul is lost — the step
            # still exists (for his nomination) with 0 s, or 30 s when 3 or 4
            # players are at the table at that moment (F6).
            s.mute_pending.discard(seat)
            n = len(s.at_table)
            seconds = r.speech_short if r.short_speech_min_players <= n <= r.short_speech_max_players else 0
    elif kind == "tie_speech":
        # V8/F5: always 30 s. RULES D6: a tie speech is not «his minute» —
        # a 3-foul player speaks his 30 s and his next `speech` step is still
        # the one he loses (the penalty is not used up here).
        seconds = r.tie_speech
    else:
        # D6 INTERP: a last word is always 60 s and does not use the penalty up.
        seconds = r.last_word
    s.step = kind
    s.speaker = seat
    s.speech_seconds = seconds
    s.record.speeches.append(
        {"index": s.count, "day": s.day, "phase": s.phase, "kind": kind, "seat": seat, "seconds": seconds}
    )


def _start_day(s: GameState) -> None:
    day = (s.day or 0) + 1
    s.day = day
    s.phase = "day"
    s.nominees = []
    s.nominated_by = {}
    s.vote_round = 0
    s.result_known = False
    s.victim = None
    table = s.at_table
    # D2: Day 1 opens with seat 1; a later Day with the next seat after the
    # previous Day's opener. READING (D2 INTERP): seats no longer at the table
    # are skipped — the opener is the next seat still at the table, and the
    # Day after counts on from him.
    start = 1 if day == 1 or s.opener is None else s.opener + 1
    order = [x for x in table if x >= start] + [x for x in table if x < start]
    s.opener = order[0]
    s.queue = order[1:]
    _begin_speech(s, order[0], "speech")


def _next_speech(s: GameState) -> None:
    if s.queue:
        _begin_speech(s, s.queue.pop(0), "speech")
    else:
        _end_speeches(s)


def _end_speeches(s: GameState) -> None:
    """After the last speech of the Day: the vote, unless F7–F10 cancel it,
    V5 applies or nobody is nominated."""
    if s.day in s.cancelled:
        _event(s, "vote_cancelled", nominees=s.nominees.copy())
        _begin_night(s)
        return
    _start_vote(s)


def _start_vote(s: GameState) -> None:
    """Enter (or re-enter) the voting step among ``s.nominees``."""
    candidates = s.nominees
    if not candidates:
        _event(s, "no_nominees")
        _begin_night(s)
    elif s.lone_candidate_on_day1():
        # V5: Day 1 with a single candidate: no vote, nobody leaves.
        _event(s, "single_candidate_day1", candidate=candidates[0])
        _begin_night(s)
    else:
        s.step = "voting"
        s.speaker = None
        s.speech_seconds = None
        s.queue = []


def _do_nominate(s: GameState, a: Action) -> None:
    by = _seat(a, "by")
    target = _seat(a, "target")
    if s.step != "speech":
        raise RuleViolation("wrong_step", "D3", {"action": "nominate", "step": s.step})
    if by != s.speaker:
        raise RuleViolation("not_current_speaker", "D3", {"speaker": s.speaker, "by": by})
    if target not in s.at_table:
        raise RuleViolation("target_not_at_table", "D3", {"target": target})
    if target in s.nominees:
        # D4: «Поддерживается» — accepted, changes nothing, uses nothing up.
        result = "supported"
    else:
        if target == by and not s.regulations.allow_self_nomination:
            raise RuleViolation("self_nomination_not_allowed", "D3", {"by": by})
        first = s.nominated_by.get(by)
        if first is not None:
            raise RuleViolation("already_nominated_by", "D4", {"by": by, "target": target, "first": first})
        s.nominees.append(target)
        s.nominated_by[by] = target
        result = "accepted"
    s.record.nominations.append({"index": s.count, "day": s.day, "by": by, "target": target, "result": result})


# --- Day: votes (V2–V12) ------------------------------------------------------------------------


def _do_votes(s: GameState, a: Action) -> None:
    _require_step(s, "voting", "votes", "V2")
    raw = a.get("for", _MISSING)
    if raw is _MISSING:
        raise RuleViolation("bad_field", "FORMAT", {"field": "for", "problem": "is missing"})
    if not isinstance(raw, dict):
        raise RuleViolation(
            "bad_field", "FORMAT", {"field": "for", "problem": "must be an object {candidate: [voters]}"}
        )
    candidates = s.nominees
    table = s.at_table
    given: dict[int, int] = {}
    for key, voters in raw.items():
        candidate = _key_seat("for", key)
        if candidate not in candidates:
            raise RuleViolation("vote_not_candidate", "V2", {"seat": candidate, "candidates": candidates.copy()})
        if not isinstance(voters, list):
            raise RuleViolation(
                "bad_field", "FORMAT", {"field": "for", "problem": "must map each candidate to a list of voters"}
            )
        for voter in voters:
            _seat_value("for", voter)
            if voter not in table:
                raise RuleViolation("vote_voter_not_at_table", "V3", {"voter": voter})
            if voter in given:
                raise RuleViolation("vote_double_voter", "V3", {"voter": voter})
            given[voter] = candidate
    # --- validated: from here on nothing may raise ---
    last = candidates[-1]
    auto = [v for v in table if v not in given]  # V4: to the last candidate
    ballots = {v: given.get(v, last) for v in table}
    totals = dict.fromkeys(candidates, 0)
    for c in ballots.values():
        totals[c] += 1
    s.vote_round += 1
    top_count = max(totals.values())
    top = [c for c in candidates if totals[c] == top_count]
    entry: dict[str, Any] = {
        "index": s.count,
        "day": s.day,
        "round": s.vote_round,
        "kind": "vote" if s.vote_round == 1 else "revote",
        "candidates": candidates.copy(),
        "ballots": ballots,
        "auto": auto,
        "totals": totals,
        "outcome": "",
        "leaving": [],
    }
    if len(top) == 1:
        entry["outcome"] = "leave"  # V7
        entry["leaving"] = top
        s.record.votes.append(entry)
        _vote_leave(s, top, "vote")
    elif s.day == 1 and len(top) >= s.regulations.day1_split_min:
        # V6 (INTERP: the highest count shared by 3+ candidates): no further
        # vote, no 30 s speeches, the Night begins.
        entry["outcome"] = "night"
        s.record.votes.append(entry)
        s.result_known = True
        _begin_night(s)
    elif s.vote_round >= 2 and len(top) == len(candidates):
        # V10: a revote tied again among the same candidates.
        if len(top) == len(table):
            # V11: no lift vote may remove every player at the table.
            entry["outcome"] = "no_elimination"
            s.record.votes.append(entry)
            s.result_known = True
            _begin_night(s)
        else:
            entry["outcome"] = "lift"
            s.record.votes.append(entry)
            s.step = "lift_vote"
            s.speaker = None
            s.speech_seconds = None
    else:
        # V8 / V9: 30 s speeches of the tied candidates in nomination order,
        # then a revote among them.
        entry["outcome"] = "tie"
        s.record.votes.append(entry)
        s.nominees = top
        s.queue = top[1:]
        _begin_speech(s, top[0], "tie_speech")


def _next_tie_speech(s: GameState) -> None:
    if s.queue:
        _begin_speech(s, s.queue.pop(0), "tie_speech")
    else:
        _start_vote(s)


def _do_lift_vote(s: GameState, a: Action) -> None:
    _require_step(s, "lift_vote", "lift_vote", "V10")
    yes = _seat_list(a, "yes")
    table = s.at_table
    seen: set[int] = set()
    for voter in yes:
        if voter not in table:
            raise RuleViolation("lift_voter_not_at_table", "V10", {"voter": voter})
        if voter in seen:
            raise RuleViolation("lift_double_voter", "V10", {"voter": voter})
        seen.add(voter)
    s.vote_round += 1
    no = [v for v in table if v not in seen]
    carried = s.regulations.lift_passes(len(seen), len(table))
    candidates = s.nominees.copy()
    entry: dict[str, Any] = {
        "index": s.count,
        "day": s.day,
        "round": s.vote_round,
        "kind": "lift",
        "candidates": candidates,
        "yes": sorted(seen),
        "no": no,
        "outcome": "leave" if carried else "no_elimination",
        "leaving": candidates.copy() if carried else [],
    }
    s.record.votes.append(entry)
    if carried:
        _vote_leave(s, candidates, "lift_vote")
    else:
        s.result_known = True
        _begin_night(s)


def _vote_leave(s: GameState, seats: list[int], how: str) -> None:
    """V12: they leave when the host closes the vote; last words in nomination order."""
    s.result_known = True
    _leave(s, seats, how)
    s.after_words = "night"
    s.queue = seats[1:]
    _begin_speech(s, seats[0], "last_word")


def _next_last_word(s: GameState) -> None:
    if s.queue:
        _begin_speech(s, s.queue.pop(0), "last_word")
    elif s.winner is not None:
        _finish(s)  # W2: the last word after the deciding moment is over
    elif s.after_words == "day":
        _start_day(s)
    else:
        _begin_night(s)


# --- Night (N1–N10) ------------------------------------------------------------------------------


def _begin_night(s: GameState) -> None:
    day = s.day or 0
    s.phase = "night"
    s.step = "mafia_shot"
    s.speaker = None
    s.speech_seconds = None
    s.nominees = []
    s.queue = []
    s.victim = None
    # W4: remember how many had left when Night `day` began.
    nl = s.night_leaves
    while len(nl) < day:
        nl.append(s.leaves)
    if len(nl) == day:
        nl.append(s.leaves)
    else:
        nl[day] = s.leaves


def _night_advance(s: GameState, done: str) -> None:
    """Go to the first Night step after ``done`` that applies (N1, N4, N6, N9)."""
    s.speaker = None
    s.speech_seconds = None
    roles = s.roles
    table = s.at_table
    if done == "mafia_shot":
        # N4: a captain no longer at the table checks nothing; the player shot
        # is still at the table until the morning and keeps his check.
        if any(roles.get(x) == "don" for x in table):
            s.step = "don_check"
            return
        done = "don_check"
    if done == "don_check":
        if any(roles.get(x) == "sheriff" for x in table):
            s.step = "sheriff_check"
            return
        done = "sheriff_check"
    if done == "sheriff_check" and _best_move_due(s):
        s.step = "best_move"
        return
    _morning(s)


def _best_move_due(s: GameState) -> bool:
    """N6/N9: only the player shot in N1, and not when 2+ left by the Day 1 vote."""
    victim = s.victim
    if s.day != 1 or victim is None or victim not in s.at_table:
        return False
    day1_leavers = sum(1 for e in s.left if e["day"] == 1 and e["how"] in ("vote", "lift_vote"))
    return day1_leavers < s.regulations.best_move_blocked_day1_leavers


def _do_shots(s: GameState, a: Action) -> None:
    _require_step(s, "mafia_shot", "shots", "N2")
    raw = a.get("by", _MISSING)
    if raw is _MISSING:
        raise RuleViolation("bad_field", "FORMAT", {"field": "by", "problem": "is missing"})
    if not isinstance(raw, dict):
        raise RuleViolation(
            "bad_field", "FORMAT", {"field": "by", "problem": "must be an object {black seat: target or null}"}
        )
    blacks = s.blacks_at_table()
    named: dict[int, int | None] = {}
    for key, target in raw.items():
        black = _key_seat("by", key)
        if black not in blacks:
            raise RuleViolation("shot_by_not_black", "N2", {"seat": black})
        if target is not None:
            _seat_value("by", target)
            # N2 INTERP: any player at the table, a black's own seat included.
            if target not in s.at_table:
                raise RuleViolation("shot_target_not_at_table", "N2", {"target": target})
        named[black] = target
    # N2: a hit only if every black at the table names the same seat; a black
    # not listed named nobody, which makes it a miss.
    by = {b: named.get(b) for b in blacks}
    targets = set(by.values())
    victim = targets.pop() if len(targets) == 1 else None
    _record_shot(s, by, victim)
    s.victim = victim
    if victim is not None and _check_winner(s):
        # W1: «Моментом вывода игрока является … вывод Командой «черных»
        # Игрока в Ночную Фазу»: checked right after the shot, counting him
        # out. A deciding shot skips the Night's remaining checks; the player
        # shot keeps his N1 best move where N6/N9 give one (a right of the
        # leaving player, like his last word); then the morning comes and he
        # leaves with his last word (W2).
        _event(s, "decided_by_shot", victim=victim)
        _decided_in_night(s)
        return
    _night_advance(s, "mafia_shot")


def _decided_in_night(s: GameState) -> None:
    """W1 INTERP: the game was decided in a Night with a player shot still at
    the table: no more checks; his best move (held or under way), then the
    morning."""
    s.speaker = None
    s.speech_seconds = None
    if s.step == "best_move" or _best_move_due(s):
        s.step = "best_move"
        return
    _morning(s)


def _record_shot(s: GameState, by: dict[int, int | None], victim: int | None) -> None:
    s.record.shots.append({"index": s.count, "night": s.day, "by": by, "victim": victim})


def _do_don_check(s: GameState, a: Action) -> None:
    _do_check(s, a, "don")


def _do_sheriff_check(s: GameState, a: Action) -> None:
    _do_check(s, a, "sheriff")


def _do_check(s: GameState, a: Action, by: str) -> None:
    step = f"{by}_check"
    _require_step(s, step, step, "N4")
    # N4 INTERP: any seat 1..10, one that has left included.
    target = _seat(a, "target")
    role = s.roles.get(target)
    result: bool | str = role == "sheriff" if by == "don" else ("black" if role in BLACK_ROLES else "red")
    check = {"night": s.day, "by": by, "target": target, "result": result}
    s.checks.append(check)
    s.record.checks.append({"index": s.count, **check})
    _night_advance(s, step)


def _do_best_move(s: GameState, a: Action) -> None:
    _require_step(s, "best_move", "best_move", "N6")
    passed = a.get("pass", False)
    accepted = a.get("accepted", _MISSING)
    if not isinstance(passed, bool):
        raise RuleViolation("bad_field", "FORMAT", {"field": "pass", "problem": "must be true or false"})
    if accepted is not _MISSING and not isinstance(accepted, bool):
        raise RuleViolation("bad_field", "FORMAT", {"field": "accepted", "problem": "must be true or false"})
    has_seats = "seats" in a
    seats = _seat_list(a, "seats", required=False)
    if passed:
        if seats or accepted is True:
            raise RuleViolation("bad_field", "FORMAT", {"field": "pass", "problem": "cannot come with accepted seats"})
        how = "pass"
    elif accepted is False:
        if seats:
            raise RuleViolation("bad_field", "FORMAT", {"field": "accepted", "problem": "is false but seats are given"})
        how = "not_accepted"
    elif has_seats:
        if len(seats) > s.regulations.best_move_seats:
            raise RuleViolation("best_move_too_many", "N6", {"count": len(seats)})
        # RULES N7: a best move naming nobody is not accepted (only «один или
        # два» named are accepted as named).
        how = "accepted" if seats else "not_accepted"
    else:
        raise RuleViolation(
            "bad_field", "FORMAT", {"field": "seats", "problem": "is missing (or give accepted: false, or pass: true)"}
        )
    victim = s.victim
    if how == "accepted":
        # N7/N8: exactly the seats named are accepted (1..3); a repeated seat
        # is accepted but counts once; his own seat is accepted.
        blacks = len({x for x in seats if s.roles.get(x) in BLACK_ROLES})
        s.best_move = {"seat": victim, "seats": list(seats), "blacks": blacks}
        _record_best_move(s, list(seats), accepted=True, passed=False, how=how, blacks=blacks)
    else:
        _record_best_move(s, [], accepted=False, passed=passed, how=how)
    _morning(s)


def _record_best_move(
    s: GameState, seats: list[int], *, accepted: bool, passed: bool, how: str, blacks: int = 0
) -> None:
    s.record.best_moves.append(
        {
            "index": s.count,
            "night": s.day,
            "seat": s.victim,
            "seats": seats,
            "accepted": accepted,
            "passed": passed,
            "how": how,
            "blacks": blacks,
        }
    )


def _morning(s: GameState) -> None:
    """End of the Night: the player shot leaves (N2, N5), W1 then W4, then his
    last word (phase still night), then the next Day."""
    victim = s.victim
    s.victim = None
    s.speaker = None
    s.speech_seconds = None
    if victim is not None and victim in s.at_table:
        _leave(s, [victim], "shot")
        s.after_words = "day"
        s.queue = []
        _begin_speech(s, victim, "last_word")
        return
    # W4: at the end of Night k (k ≥ 3), nobody left since Night k−2 began.
    k = s.day or 0
    n = s.regulations.draw_nights
    first = k - n + 1
    if first >= 1 and first < len(s.night_leaves) and s.night_leaves[first] == s.leaves:
        s.winner = "draw"
        s.record.result = {"index": s.count, "winner": "draw", "ppk": None, "annulled": False, "reason": "W4"}
        _event(s, "draw", nights=list(range(first, k + 1)))
        _finish(s)
        return
    _start_day(s)


# --- leaving, the result (W1–W6) ---------------------------------------------------------------------


def _leave(s: GameState, seats: list[int], how: str) -> None:
    for seat in seats:
        s.at_table.remove(seat)
        s.left.append({"seat": seat, "how": how, "day": s.day, "phase": s.phase})
        s.leaves += 1
        s.mute_pending.discard(seat)
    _check_winner(s)


def _check_winner(s: GameState) -> bool:
    """W1: True when this change decided the game (W3: never changes a result)."""
    if s.winner is not None:
        return False
    roles = s.roles
    # W1: the player shot this Night is out from the shot on, though he keeps
    # his seat until the morning.
    counted = [x for x in s.at_table if x != s.victim]
    blacks = sum(1 for x in counted if roles.get(x) in BLACK_ROLES)
    reds = len(counted) - blacks
    if blacks == 0:
        winner = "red"
    elif blacks >= reds:
        winner = "black"
    else:
        return False
    s.winner = winner
    s.record.result = {"index": s.count, "winner": winner, "ppk": None, "annulled": False, "reason": "W1"}
    return True


def _finish(s: GameState) -> None:
    s.status = "finished"
    s.step = "finished"
    s.speaker = None
    s.speech_seconds = None
    s.queue = []
    s.victim = None


def _event(s: GameState, kind: str, **params: Any) -> None:
    s.record.events.append({"index": s.count, "kind": kind, "day": s.day, **params})


# --- penalties and removals (F1–F18, X4, W5, W6) -------------------------------------------------------


# The penalties that may follow a player who has left (RULES F19).
AFTER_LEAVING_KINDS = ("warning", "grey_card")


def _penalty_seat(s: GameState, a: Action) -> tuple[int, bool]:
    """The penalised seat and whether he is at the table (else: he is giving
    his own last word, or — a warning or grey card, RULES F19 — he has left;
    FORMAT.md "Penalties, removals and the step in progress")."""
    seat = _seat(a, "seat")
    if seat in s.at_table:
        return seat, True
    if s.step == "last_word" and s.speaker == seat:
        return seat, False
    if a.get("do") in AFTER_LEAVING_KINDS and _has_left(s, seat):
        return seat, False
    if _has_left(s, seat):
        # RULES F19: fouls, disqualifying fouls and removals only at the table.
        raise RuleViolation("penalty_after_leaving", "F19", {"seat": seat, "kind": str(a.get("do"))})
    raise RuleViolation("penalty_not_at_table", "F1", {"seat": seat})


def _has_left(s: GameState, seat: int) -> bool:
    return any(e["seat"] == seat for e in s.left)


def _on_own_last_word(s: GameState, seat: int) -> bool:
    return s.step == "last_word" and s.speaker == seat and seat not in s.at_table


def f18_refusal(
    state: GameState, kind: str, seat: int, reason: str | None = None, reason_code: str | None = None
) -> RuleViolation | None:
    """RULES F18: a 4th foul or a disqualifying foul for vote retraction,
    delaying the speech or gestures during the vote is refused; the refusal
    names the grey card to give instead. None when F18 does not apply (a
    reason in the host's own words is his call)."""
    if kind not in ("foul", "disqualify"):
        return None
    code = catalogue_code(reason, reason_code)
    grey = F18_GREY_CARD.get(code) if code else None
    if grey is None:
        return None
    if kind == "foul" and state.fouls.get(seat, 0) + 1 < state.regulations.fouls_to_remove:
        return None  # a 1st–3rd foul for it is what the catalogue says
    entry = catalogue_reason(grey) or {}
    return RuleViolation(
        "f18_grey_card_instead",
        "F18",
        {
            "seat": seat,
            "kind": kind,
            "reason_code": code,
            "grey_card": grey,
            "grey_card_en": entry.get("text_en", grey),
            "grey_card_ru": entry.get("text_ru", grey),
        },
    )


def penalty_offer(state: GameState, seat: int) -> dict[str, Any]:
    """What the penalty dialog may offer for ``seat`` now (one predicate for
    the console and any other client).

    ``kinds``: the penalty kinds the engine accepts for him (F1, F3, F19:
    a player who has left gets a warning or a grey card only; X4 removal
    only at the table; ППК of his team from a seat at the table or in his
    own last word); ``withheld``:
    per kind, the F16 reason codes that kind must not be given for (F18:
    never a 4th or disqualifying foul for the three offences — the grey
    card instead)."""
    kinds: list[str] = []
    withheld: dict[str, list[str]] = {}
    if state.status != "running" or not 1 <= seat <= 10:
        return {"kinds": kinds, "withheld": withheld}
    at_table = seat in state.at_table
    if at_table or _on_own_last_word(state, seat):
        kinds.extend(PENALTY_KINDS)
    elif _has_left(state, seat):
        kinds.extend(AFTER_LEAVING_KINDS)
    if at_table:
        kinds.append("remove")
    if at_table or _on_own_last_word(state, seat):
        kinds.append("ppk")  # W5: his team's loss; after leaving, not from his seat's menu
    for kind in ("foul", "disqualify"):
        if kind in kinds:
            codes = [c for c in F18_GREY_CARD if f18_refusal(state, kind, seat, reason_code=c) is not None]
            if codes:
                withheld[kind] = codes
    return {"kinds": kinds, "withheld": withheld}


def _refuse_f18(s: GameState, a: Action, kind: str, seat: int, reason: str | None) -> None:
    code = a.get("reason_code")
    refusal = f18_refusal(s, kind, seat, reason, code if isinstance(code, str) else None)
    if refusal is not None:
        raise refusal


def _do_foul(s: GameState, a: Action) -> None:
    seat, at_table = _penalty_seat(s, a)
    reason = _reason(a)
    _refuse_f18(s, a, "foul", seat, reason)
    r = s.regulations
    count = s.fouls.get(seat, 0) + 1
    entry = _penalty_entry(s, "foul", seat, reason, count)
    s.fouls[seat] = count
    if count >= r.fouls_to_remove:
        # F3: the 4th foul removes at once, no last word.
        _removal(s, seat, at_table, "fouls", True, entry)
    else:
        if count == r.fouls_to_mute and at_table:
            s.mute_pending.add(seat)  # F2/D6: his nearest speech is lost
        s.record.penalties.append(entry)


def _do_warning(s: GameState, a: Action) -> None:
    seat, at_table = _penalty_seat(s, a)
    reason = _reason(a)
    count = s.warnings.get(seat, 0) + 1
    entry = _penalty_entry(s, "warning", seat, reason, count)
    s.warnings[seat] = count
    if not at_table and not _on_own_last_word(s, seat):
        # RULES F19: after leaving, a warning is recorded and changes nothing
        # at the table; his 2nd one still brings the 7-day ban (F4).
        entry["after_leaving"] = True
        entry["ban"] = count >= s.regulations.warnings_to_remove
        s.record.penalties.append(entry)
        return
    if count >= s.regulations.warnings_to_remove:
        # F4: the 2nd warning removes at once, like a disqualifying foul.
        _removal(s, seat, at_table, "warnings", True, entry)
    else:
        s.record.penalties.append(entry)


def _do_grey_card(s: GameState, a: Action) -> None:
    seat, at_table = _penalty_seat(s, a)
    reason = _reason(a)
    entry = _penalty_entry(s, "grey_card", seat, reason, None)
    if not at_table and not _on_own_last_word(s, seat):
        entry["after_leaving"] = True  # RULES F19
    s.grey_cards[seat] = s.grey_cards.get(seat, 0) + 1
    s.record.penalties.append(entry)  # F15: recorded only


def _do_disqualify(s: GameState, a: Action) -> None:
    seat, at_table = _penalty_seat(s, a)
    reason = _reason(a)
    _refuse_f18(s, a, "disqualify", seat, reason)
    entry = _penalty_entry(s, "disqualify", seat, reason, None)
    _removal(s, seat, at_table, "disqualified", True, entry)


def _do_remove(s: GameState, a: Action) -> None:
    seat = _seat(a, "seat")
    if seat not in s.at_table:
        raise RuleViolation("remove_not_at_table", "X4", {"seat": seat})
    reason = _reason(a)
    entry = _penalty_entry(s, "remove", seat, reason, None)
    # X4/S3: without replacement; a technical removal never cancels a vote (F10).
    _removal(s, seat, True, "removed", False, entry)


def _penalty_entry(s: GameState, kind: str, seat: int | None, reason: str | None, count: int | None) -> dict[str, Any]:
    return {
        "index": s.count,
        "kind": kind,
        "seat": seat,
        "team": s.team_of(seat) if seat is not None else None,
        "reason": reason,
        "day": s.day,
        "phase": s.phase,
        "step": s.step,
        "count": count,
        "removed": False,
        "how": None,
        "cancels_vote_day": None,
    }


def _removal(s: GameState, seat: int, at_table: bool, how: str, cancelling: bool, entry: dict[str, Any]) -> None:
    """A removing penalty (or X4 removal). ``entry`` is completed and recorded."""
    if not at_table:
        # The player giving his own last word: he keeps how he left; the
        # removing penalty ends that last word at once (F3). He is the player
        # leaving by the vote or the player shot, so it never cancels a vote.
        entry["ends_last_word"] = True
        s.record.penalties.append(entry)
        _next_last_word(s)
        return
    was_victim = seat == s.victim
    # F7–F10 INTERP: a 4th foul, a disqualifying foul or a 2nd warning of a
    # player at the table who is not the player shot this Night cancels a vote.
    cancels = cancelling and not was_victim
    if was_victim:
        # FORMAT.md: the player shot, removed before the morning, leaves with
        # the removal's `how`: no best move, no last word (the shot stays in
        # the record for N10 Ci).
        s.victim = None
    s.at_table.remove(seat)
    s.left.append({"seat": seat, "how": how, "day": s.day, "phase": s.phase})
    s.leaves += 1
    s.mute_pending.discard(seat)
    if seat in s.queue:
        s.queue.remove(seat)
    if seat in s.nominees:
        s.nominees.remove(seat)  # a removed nominee drops out
    entry["removed"] = True
    entry["how"] = how
    if _check_winner(s):
        # W1 INTERP: any removal is checked at once (the player shot this
        # Night counted out). The removed player has no last word (F3).
        s.record.penalties.append(entry)
        if s.step == "last_word":
            # W2 INTERP: a last word already granted is never cut short; the
            # winner is fixed now, the running and queued last words go on,
            # and `next` after the last one finishes the game.
            return
        if s.victim is not None and s.victim in s.at_table:
            # W1 (FORMAT "Penalties"): the Night's remaining checks are
            # skipped; the player shot keeps his best move (a best move under
            # way goes on), then the morning comes and he leaves with his
            # last word (W2), then the game is finished.
            _decided_in_night(s)
            return
        _finish(s)
        return
    stop_vote = False
    if cancels and s.winner is None:
        entry["cancels_vote_day"], stop_vote = _cancel_vote(s)
    s.record.penalties.append(entry)
    if stop_vote:
        # F10 INTERP: a vote under way (tie speeches, revote, lift vote) stops
        # and the Night begins.
        _event(s, "vote_stopped")
        _begin_night(s)
        return
    _after_removal(s, seat, was_victim)


def _cancel_vote(s: GameState) -> tuple[int | None, bool]:
    """F7–F10 INTERP. Returns (the Day newly cancelled or None, stop the vote now)."""
    day = s.day or 0
    before_result = s.phase == "day" and not s.result_known
    target = day if before_result else day + 1
    newly: int | None = None
    # A vote is cancelled once: a further removal does not move it later.
    already = target in s.cancelled
    if not already:
        s.cancelled.add(target)
        newly = target
    if before_result and day == 2:
        # F10: "several players removed before the result of the Day-2 vote":
        # the nearest vote and the next round's are cancelled. READING (the
        # F10 INTERP's "a second cancelling removal on Day 2 before its
        # result"): this removal is made on Day 2 before its result and
        # Day 2's vote was already cancelled by an earlier cancelling removal
        # (made on Day 2 itself, or after Day 1's result / in Night 1).
        s.day2_removals += 1
        if already and 3 not in s.cancelled:
            s.cancelled.add(3)
            newly = 3
    stop = before_result and s.step in ("voting", "tie_speech", "lift_vote")
    return newly, stop


def _after_removal(s: GameState, seat: int, was_victim: bool) -> None:
    """FORMAT.md: the step in progress after a player left the table."""
    step = s.step
    if step == "speech":
        if s.speaker == seat:
            _next_speech(s)  # the next speaker's step begins
    elif step == "tie_speech":
        if s.day == 1 and len(s.nominees) <= 1:
            # V5 (FORMAT "Penalties"): one candidate left on Day 1 — no
            # revote will be held, so the remaining tie speeches are not
            # given either; the Night begins.
            _start_vote(s)
        elif s.speaker == seat:
            _next_tie_speech(s)
    elif step == "voting":
        _start_vote(s)  # none left, or one left on Day 1: the Night begins
    elif step == "lift_vote":
        if not s.nominees:
            _begin_night(s)
        elif s.lone_candidate_on_day1():
            # V5: one candidate left on Day 1: no lift vote is held, nobody
            # leaves; the Night begins.
            _start_vote(s)
        elif len(s.nominees) == len(s.at_table):
            # V11: no lift vote may remove every player at the table.
            s.result_known = True
            _begin_night(s)
    elif step == "don_check" or step == "sheriff_check":
        if s.roles.get(seat) == step[:-6]:
            _night_advance(s, step)  # the captain's check step is skipped
    elif step == "best_move" and was_victim:
        _morning(s)


def _do_ppk(s: GameState, a: Action) -> None:
    team = a.get("team")
    if team not in TEAMS:
        raise RuleViolation("bad_field", "FORMAT", {"field": "team", "problem": "must be 'red' or 'black'"})
    seat = None
    if a.get("seat") is not None:
        seat = _seat(a, "seat")
        if s.team_of(seat) != team:
            raise RuleViolation("ppk_seat_not_of_team", "W5", {"seat": seat, "team": team})
    reason = _reason(a)
    entry = _penalty_entry(s, "ppk", seat, reason, None)
    entry["team"] = team
    s.record.penalties.append(entry)
    s.ppk = team
    if s.winner is None:
        # W5 INTERP: the other team is recorded as winner, flagged as ППК.
        s.winner = "black" if team == "red" else "red"
        s.record.result = {"index": s.count, "winner": s.winner, "ppk": team, "annulled": False, "reason": "W5"}
    else:
        # W3: after the deciding moment the result stands; the ППК is recorded.
        result = dict(s.record.result or {})
        result["ppk"] = team
        s.record.result = result
    _finish(s)


def _do_annul(s: GameState, a: Action) -> None:
    reason = _reason(a)
    # W6: a replay is ordered; the game is annulled, its protocol kept.
    s.status = "annulled"
    s.step = "finished"
    s.winner = None
    s.speaker = None
    s.speech_seconds = None
    s.queue = []
    s.victim = None
    s.record.result = {"index": s.count, "winner": None, "ppk": s.ppk, "annulled": True, "reason": reason}


# --- winks (N12) and technical pauses (D7) ----------------------------------------------------------------


def _winkers(s: GameState) -> list[int]:
    limit = s.regulations.winks_per_player
    roles = s.roles
    return [
        x
        for x in s.at_table
        if (roles.get(x) in BLACK_ROLES or roles.get(x) == "sheriff") and s.winks.get(x, 0) < limit
    ]


def _do_wink(s: GameState, a: Action) -> None:
    by = _seat(a, "by")
    target = _seat(a, "target")
    if by not in s.at_table:
        raise RuleViolation("wink_not_at_table", "N12", {"by": by})
    role = s.roles.get(by)
    if role not in BLACK_ROLES and role != "sheriff":
        raise RuleViolation("wink_not_allowed_role", "N12", {"by": by})
    limit = s.regulations.winks_per_player
    if s.winks.get(by, 0) >= limit:
        raise RuleViolation("wink_limit", "N12", {"by": by, "limit": limit})
    if target == by:
        raise RuleViolation("wink_self", "N12", {"by": by})
    if target not in s.at_table:
        raise RuleViolation("wink_target_not_at_table", "N12", {"target": target})
    s.winks[by] = s.winks.get(by, 0) + 1
    s.record.winks.append({"index": s.count, "by": by, "target": target, "day": s.day, "phase": s.phase})


def _tech_pause_refusal(s: GameState, seat: int) -> RuleViolation | None:
    r = s.regulations
    rnd = s.day or 0  # a round is Day k and Night k (N0 is round 0)
    if seat not in s.at_table:
        return RuleViolation("tech_pause_not_at_table", "D7", {"seat": seat})
    if s.tp_seat_round.get((rnd, seat), 0) >= r.tech_pauses_per_player_round:
        return RuleViolation("tech_pause_player_round", "D7", {"seat": seat, "limit": r.tech_pauses_per_player_round})
    if s.tp_seat_game.get(seat, 0) >= r.tech_pauses_per_player_game:
        return RuleViolation("tech_pause_player_game", "D7", {"seat": seat, "limit": r.tech_pauses_per_player_game})
    if s.tp_round.get(rnd, 0) >= r.tech_pauses_per_round:
        return RuleViolation("tech_pause_round_total", "D7", {"limit": r.tech_pauses_per_round})
    if s.tp_game >= r.tech_pauses_per_game:
        return RuleViolation("tech_pause_game_total", "D7", {"limit": r.tech_pauses_per_game})
    return None


def _do_tech_pause(s: GameState, a: Action) -> None:
    seat = _seat(a, "seat")
    refusal = _tech_pause_refusal(s, seat)
    if refusal is not None:
        raise refusal
    rnd = s.day or 0
    s.tp_seat_round[(rnd, seat)] = s.tp_seat_round.get((rnd, seat), 0) + 1
    s.tp_seat_game[seat] = s.tp_seat_game.get(seat, 0) + 1
    s.tp_round[rnd] = s.tp_round.get(rnd, 0) + 1
    s.tp_game += 1
    s.record.tech_pauses.append({"index": s.count, "seat": seat, "day": s.day, "phase": s.phase, "round": rnd})


# --- dispatch -------------------------------------------------------------------------------------------------

_HANDLERS: dict[str, Callable[[GameState, Action], None]] = {
    "seat": _do_seat,
    "roles": _do_roles,
    "start": _do_start,
    "next": _do_next,
    "nominate": _do_nominate,
    "votes": _do_votes,
    "lift_vote": _do_lift_vote,
    "shots": _do_shots,
    "don_check": _do_don_check,
    "sheriff_check": _do_sheriff_check,
    "best_move": _do_best_move,
    "foul": _do_foul,
    "warning": _do_warning,
    "grey_card": _do_grey_card,
    "disqualify": _do_disqualify,
    "remove": _do_remove,
    "ppk": _do_ppk,
    "wink": _do_wink,
    "tech_pause": _do_tech_pause,
    "annul": _do_annul,
}
_SETUP_ACTIONS = frozenset(("seat", "roles", "start"))
ACTION_KINDS = tuple(_HANDLERS)
