"""The voice channel's chores as pure functions (issue 29): no Django, no discord.py.

The bot never reads the rules by itself: the game's state (status, phase, step, speaker,
who is at the table, whether a D7 tech pause runs) is mapped here to the seats whose
players should be server-muted, and a voice state change of a seated member to the
alerts the host sees in the console's Discord strip.

Regulations (../shared/regulations/cristalix-mafia-rules.ru.txt): «В городе ночь» and the
host mutes all players (lines 31, 45); by day «снимается Мут» (line 97); the player shot
speaks his last word at the morning; a player who has left may no longer speak at the
table; at night no player may mute his headphones or leave the channel (lines 35, 55).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# The Night's steps before the morning: everyone is muted (N0's договорка and free seating,
# then each Night's shot and checks). The morning (best move, the victim's last word) is
# still phase "night" in the engine, but the table speaks again.
NIGHT_STEPS = frozenset(("dogovorka", "free_seating", "mafia_shot", "don_check", "sheriff_check"))
MORNING_STEPS = frozenset(("best_move", "last_word"))


@dataclass(frozen=True)
class VoiceView:
    """What the voice chores need to know of a game's state (games.rules.GameState's public part)."""

    status: str
    phase: str | None
    step: str | None
    speaker: int | None
    at_table: frozenset[int]
    tech_pause: bool = False


def muted_seats(view: VoiceView, seats: Iterable[int], *, unmute_on_tech_pause: bool = True) -> frozenset[int]:
    """The linked seats whose players the bot should keep server-muted now.

    - not running (setup, finished, annulled): nobody — the game's end unmutes everyone;
    - a D7 tech pause, if the link says so: the table talks (the departed stay muted);
    - a Night before its morning: every seat;
    - otherwise (day, morning): the seats that have left the table, except the speaker of
      a last word (the player shot at night or voted out), who is unmuted for it.
    """
    linked = frozenset(seats)
    if view.status != "running":
        return frozenset()
    departed = linked - view.at_table
    if view.tech_pause and unmute_on_tech_pause:
        return departed
    if view.phase == "night" and view.step in NIGHT_STEPS:
        return linked
    if view.step in MORNING_STEPS and view.speaker is not None:
        return departed - {view.speaker}
    return departed


# --- voice state alerts (chore 4) ---------------------------------------------------------

DEAFENED = "deafened"
UNDEAFENED = "undeafened"
LEFT = "left"
RETURNED = "returned"


@dataclass(frozen=True)
class VoicePresence:
    """One side of a voice state update, as far as the game's channel is concerned."""

    channel_id: int | None
    deaf: bool  # self-deafened or server-deafened: he hears nothing


def presence_changes(before: VoicePresence, after: VoicePresence, game_channel_id: int) -> list[str]:
    """What the host should hear about a seated player's voice state update, in order."""
    was_in = before.channel_id == game_channel_id
    is_in = after.channel_id == game_channel_id
    changes: list[str] = []
    if was_in and not is_in:
        changes.append(LEFT)
    elif is_in and not was_in:
        changes.append(RETURNED)
    if is_in and after.deaf and not (was_in and before.deaf):
        changes.append(DEAFENED)
    elif is_in and was_in and before.deaf and not after.deaf:
        changes.append(UNDEAFENED)
    return changes


# --- the seat draw (chore 1) ----------------------------------------------------------------


def draw_line(seed: str, players: list[str]) -> str:
    """The game's text channel: the drawn seating with its seed (line 29: numbers are drawn by the
    bot), so anyone can check it (games.services.draw_seating: random.Random(seed).shuffle)."""
    seats = ", ".join(f"{seat} — {name}" for seat, name in enumerate(players, start=1))
    return f"Рассадка (S1, жребий, сид {seed}): {seats}"[:2000]


def seat_dm(seat: int) -> str:
    return f"Ваш номер: {seat}"


# --- the questions a player may ask by DM (chore 6) -------------------------------------------------

FOULS = "fouls"
TECH = "tech"
_QUESTIONS = {
    # Line 327: the one question a player may ask the host: his own fouls.
    "фолы": FOULS,
    "фол": FOULS,
    "мои фолы": FOULS,
    "сколько фолов": FOULS,
    "сколько у меня фолов": FOULS,
    # Lines 27, 351: a technical pause is asked for.
    "тех": TECH,
    "техпауза": TECH,
    "тех пауза": TECH,
    "тех. пауза": TECH,
    "пауза": TECH,
    "тп": TECH,
}


def question_of(text: str) -> str | None:
    """«фолы» or «тех» / «пауза», and nothing else (a shot or a check is never taken for one)."""
    key = " ".join((text or "").lower().replace("ё", "е").strip(" .!?").split())
    return _QUESTIONS.get(key)


def fouls_answer(count: int) -> str:
    """His own count only: never anything about the nominees or the others (line 325)."""
    word = (
        "фол"
        if count % 10 == 1 and count % 100 != 11
        else ("фола" if count % 10 in (2, 3, 4) and count % 100 not in (12, 13, 14) else "фолов")
    )
    return f"У вас {count} {word}."


TECH_RECEIPT = "Запрос техпаузы передан ведущему (D7); решает ведущий."


# --- chat and profile silence (chore 5) -------------------------------------------------------------

CHAT = "chat"
REACTION = "reaction"
NICK = "nick"
AVATAR = "avatar"
SILENCE_KINDS = (CHAT, REACTION, NICK, AVATAR)
# What the foul is recorded with, if the host presses its key (the protocol's reason; line 13).
FOUL_REASONS = {
    CHAT: "Сообщение в чате во время игровой фазы",
    REACTION: "Реакция в чате во время игровой фазы",
    NICK: "Смена никнейма во время игры",
    AVATAR: "Смена аватарки во время игры",
}


def chat_is_silence(status: str, step: str | None) -> bool:
    """A seated player's message in the game's text channel is a possible violation while the game
    runs (line 13), except in the vote, whose chat the V1 marks judge («+» is the vote; after the
    line, every message is already shown as a possible violation, line 59)."""
    return status == "running" and step != "voting"


def reaction_is_silence(status: str) -> bool:
    """A reaction is a possible violation in any phase of the game, the vote's too (line 13)."""
    return status == "running"


def profile_changes(before_name: str, before_avatar: str, name: str, avatar: str) -> list[str]:
    """Which of his profile a seated member changed since the bot last saw him (line 25)."""
    changes = []
    if before_name != name:
        changes.append(NICK)
    if before_avatar != avatar:
        changes.append(AVATAR)
    return changes


def seat_nickname(seat: int, name: str) -> str:
    """Chore 1: «3. Бриз», within Discord's 32 characters."""
    prefix = f"{seat}. "
    base = name
    if base.startswith(prefix):  # already numbered (a restart mid-game)
        base = base[len(prefix) :]
    return (prefix + base)[:32]
