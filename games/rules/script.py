"""The host's script around the logged steps: pure, no Django.

A captain who has left still "wakes up" for 15 seconds in the host's script,
so that the table does not learn he is gone (V12, N5); the log has no step for
him (FORMAT.md), so the console plays it as a step of its own. While it plays,
the next logged step's clock waits: one clock runs at a time (issue 26-2).
A step the host opens with an announcement waits for his Space (issue 26-4).
"""

from __future__ import annotations

from games.rules.state import GameState

# The captains' Night steps in their order (N3, N4).
CAPTAIN_ORDER = (("don", "don_check"), ("sheriff", "sheriff_check"))


def ghost_captains(state: GameState) -> list[str]:
    """Roles whose check step this Night was skipped because they have left:
    the console plays their 15-second wake-up before the current step."""
    if state.status != "running" or not state.day:
        return []
    if state.phase == "night":
        if state.step == "mafia_shot" or not any(s.get("night") == state.day for s in state.record.shots):
            return []
        position = {"don_check": 1, "sheriff_check": 2}.get(state.step or "", 3)
    elif _morning_after_a_miss(state):
        # No victim, so no last word and no best move: the log goes from the
        # last captain's step straight to the Day. The departed captains still
        # wake before it, or the Day would start early and tell (N5, V12).
        position = 3
    else:
        return []
    out = []
    for n, (role, _step) in enumerate(CAPTAIN_ORDER, start=1):
        seat = state.seat_of(role)
        if n < position and seat is not None and seat not in state.at_table:
            out.append(role)
    return out


def _morning_after_a_miss(state: GameState) -> bool:
    """The Day's first speech opens the morning (host_speaks_first) after a Night whose shots missed."""
    if state.phase != "day" or state.day is None or not host_speaks_first(state):
        return False
    shots = [s for s in state.record.shots if s.get("night") == state.day - 1]
    return bool(shots) and shots[-1].get("victim") is None


def clock_waits_for_host(state: GameState) -> bool:
    """Whether a new step's clock is stored paused and full, started by the
    console when its turn comes: after the departed captains' wake-ups, or by
    the host's Space once he has said what opens the step (issue 26-4)."""
    return bool(ghost_captains(state)) or host_speaks_first(state)


def host_speaks_first(state: GameState) -> bool:
    """The step opens with the host's announcement, so its clock starts on his Space.

    «В городе ночь» opens each Night (N0.1, N1: its first step, the blacks'
    минута or their shot) and «Доброе утро» each morning (its first step: the
    player shot's last word, N5, or after a miss the Day's first speech; Day 1
    after N0). The players would lose those seconds to the host's voice, and
    in Discord he still has to mute or unmute the table. Any other step follows
    the host's «Спасибо» with no announcement: its clock runs at once.
    """
    if state.status != "running":
        return False
    step = state.step
    if state.phase == "night":
        # The only last word of a Night is the morning one of the player shot.
        return step in ("dogovorka", "mafia_shot", "last_word")
    if step != "speech":
        return False
    speeches = state.record.speeches
    if not speeches or speeches[-1].get("day") != state.day:
        return False
    earlier = speeches[-2] if len(speeches) > 1 else None
    if earlier is None:
        return True
    if earlier.get("day") == state.day and earlier.get("kind") == "speech":
        return False  # the Day's second speech or later
    # After the morning's last word the Day goes on: «Доброе утро» was said before it.
    return not (earlier.get("kind") == "last_word" and earlier.get("phase") == "night")
