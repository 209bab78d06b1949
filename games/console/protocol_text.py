"""Readable texts of a game for its host: protocol lines, step titles, chat lines.

Terms:
- *protocol line*: one readable Russian sentence per stored host action
  («День 2: №5 выставил №3», «Ночь 1: промах»), built from the action, the
  engine state before it and the state after it (the engine's ``record``
  entries carry the action's ``index``, so a line can name what the action
  caused: who left, a cancelled vote, the result).
- *chat line*: a text the regulations make the host post in the game chat
  (V1 «--------------», V2 the candidates, N12 «Вам мигнул N», N6 «Принято:
  2, 7, 9», X3 foul counts). The host copies it with one click, so it must be
  exactly the text to post.
- *step title*: the phase and step in the regulations' own words, for the
  console banner (and the host's phrase to say, when the regulations give one).

Every user-visible text goes through gettext with the Russian text as msgid
(S4: Russian is the official language and the source language).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from html import escape
from typing import Any

from django.utils.translation import get_language, gettext, override

from games import reading, vocabulary
from games.console.forms import FIELD_LABELS, field_label
from games.rules import (
    GameState,
    Regulations,
    RuleViolation,
    script,
)
from games.rules.catalogue import reason_text
from games.rules.state import vote_still_ahead

# The separator line of V1, exactly as the regulations print it.
VOTE_LINE = "--------------"


# --- small helpers ---------------------------------------------------------------


def seat_list(seats: Iterable[Any]) -> str:
    return ", ".join(str(s) for s in seats)


def _seat(n: Any) -> str:
    return f"№{n}"


def _seats(seats: Iterable[Any]) -> str:
    return ", ".join(_seat(s) for s in seats)


def _entries(state: GameState, name: str, index: int) -> list[dict[str, Any]]:
    """Record entries of the list `name` produced by the action at `index`."""
    out = []
    # Entries are appended in action order, so scan from the end.
    for entry in reversed(getattr(state.record, name)):
        i = entry.get("index")
        if i == index:
            out.append(entry)
        elif i is not None and i < index:
            break
    out.reverse()
    return out


def winner_text(winner: str | None, ppk: str | None = None) -> str:
    text = vocabulary.WINNERS(winner, default="")
    if ppk:
        text += " " + gettext("(ППК команде %(team)s)") % {"team": vocabulary.TEAMS_OF(ppk)}
    return text


def _prefix(state: GameState) -> str:
    return vocabulary.when(state.day, state.phase)


# --- step titles (console banner) ------------------------------------------------------


@dataclass
class StepTitle:
    phase: str  # «День 2», «Ночь 1», «Подготовка»
    title: str  # «Голосование», «Речь №4 · Delta»
    say: str = ""  # the host's phrase, when the regulations give one
    tone: str = "day"  # day | night | setup | over


def step_title(state: GameState) -> StepTitle:
    step, day = state.step, state.day
    players = list(state.players or [])

    def nick(seat: int | None) -> str:
        if seat and len(players) >= seat:
            return f"{_seat(seat)} · {players[seat - 1]}"
        return _seat(seat) if seat else ""

    if state.status == "setup":
        return StepTitle(
            gettext("Подготовка"),
            gettext("Рассадка и роли"),
            gettext("Игроки присылают в ЛС роль и номер (S2)."),
            "setup",
        )
    if state.status == "annulled":
        return StepTitle(gettext("Игра окончена"), gettext("Игра аннулирована: переигровка"), "", "over")
    if state.status == "finished":
        return StepTitle(gettext("Игра окончена"), winner_text(state.winner, state.ppk), "", "over")
    night = state.phase == "night"
    phase = gettext("Ночь %(n)s") % {"n": day} if night else gettext("День %(n)s") % {"n": day}
    tone = "night" if night else "day"
    r = state.regulations
    if step == "dogovorka":
        return StepTitle(
            gettext("В городе ночь"),
            gettext("Договорка"),
            gettext("«В городе более глубокая ночь, у Мафии минута на договорку»"),
            tone,
        )
    if step == "free_seating":
        return StepTitle(gettext("В городе ночь"), gettext("Свободная посадка"), gettext("«Свободная посадка»"), tone)
    if step == "speech":
        title = gettext("Речь %(who)s") % {"who": nick(state.speaker)}
        say = ""
        if state.speech_seconds == 0:
            say = gettext("3 фола: без речи, только выставление (D6)")
        elif state.speech_seconds and state.speech_seconds < r.speech:
            say = gettext("3 фола: %(s)s секунд (F6)") % {"s": state.speech_seconds}
        return StepTitle(phase, title, say, tone)
    if step == "tie_speech":
        return StepTitle(
            phase,
            gettext("Речь 30 секунд %(who)s") % {"who": nick(state.speaker)},
            gettext("Оправдательные речи в порядке выставления (V8)"),
            tone,
        )
    if step == "voting" and state.vote_round:
        # Issue 26-9: the revote (V7) is announced as one, after the tie speeches.
        return StepTitle(
            phase,
            gettext("Переголосование"),
            gettext(
                "«Оправдательные речи окончены, проводится переголосование, даю 5 секунд закончить жестикуляцию в чате»"
            ),
            tone,
        )
    if step == "voting":
        return StepTitle(
            phase,
            gettext("Голосование"),
            gettext(
                "«В городе все высказались, в городе проводится голосование, даю 5 секунд закончить жестикуляцию в чате»"
            ),
            tone,
        )
    if step == "lift_vote":
        return StepTitle(
            phase,
            gettext("Голосование за подъём"),
            gettext("«Кто за то, чтобы все голосуемые Игроки покинули Игру?»"),
            tone,
        )
    if step == "last_word":
        title = gettext("Последнее слово %(who)s") % {"who": nick(state.speaker)}
        if night:
            return StepTitle(gettext("Утро"), title, gettext("Утро: убитый говорит последнее слово (N5)"), "day")
        return StepTitle(phase, title, "", tone)
    if step == "mafia_shot":
        return StepTitle(phase, gettext("Мафия стреляет"), gettext("«У Мафии 15 секунд сделать выбор»"), tone)
    if step == "don_check":
        return StepTitle(
            phase, gettext("Дон ищет Шерифа"), gettext("«Просыпается Дон Игры, ищет Шерифа — 15 секунд»"), tone
        )
    if step == "sheriff_check":
        return StepTitle(
            phase, gettext("Шериф ищет мафию"), gettext("«Просыпается Шериф, ищет мафию — 15 секунд»"), tone
        )
    if step == "best_move":
        victim = state.victim
        return StepTitle(
            phase,
            gettext("Лучший ход %(who)s") % {"who": nick(victim)},
            gettext("«Ночь продолжается, игрок №%(n)s, Вы выведены из игры. У вас есть 20 секунд на лучший ход»")
            % {"n": victim or "?"},
            tone,
        )
    return StepTitle(phase, vocabulary.STEPS(step), "", tone)


# Steps whose `next` records a choice the host has not entered (a miss, no
# check, no best move): never the primary key (issue 12, item 1).
DELIBERATE_NEXT_STEPS = frozenset(("mafia_shot", "don_check", "sheriff_check", "best_move"))


def step_key(state: GameState) -> str:
    """Changes whenever the step the host acts on changes (console.js guards
    the first ~400 ms of a new step against a key meant for the old one)."""
    return f"{state.status}:{state.day}:{state.phase}:{state.step}:{state.speaker}:{state.vote_round}"


def named_in_speech(state: GameState) -> list[int]:
    """Seats the current speaker has already named in this speech (D3/D4):
    console.js ignores a repeat of the same digit (issue 13, item 4)."""
    if state.status != "running" or state.step != "speech" or not state.speaker:
        return []
    return sorted({n["target"] for n in state.record.nominations if n["day"] == state.day and n["by"] == state.speaker})


@dataclass
class CancelledVote:
    day: int
    rule: str
    text: str


def cancelled_votes(state: GameState) -> list[CancelledVote]:
    """F7–F10: the votes still ahead that a removal has cancelled, shown as
    soon as the removal is recorded (issue 12, item 5)."""
    if state.status != "running" or not state.day:
        return []
    out = []
    for d in sorted(state.cancelled):
        ahead = vote_still_ahead(d, state.day, state.phase, state.step)
        if not ahead:
            continue
        rule = "F7"
        for p in state.record.penalties:
            if p.get("cancels_vote_day") == d:
                rule = (
                    "F7"
                    if p.get("day") == d
                    else ("F10" if d >= 3 and p.get("day") == d - 1 and p.get("phase") == "day" else "F8")
                )
                break
        out.append(
            CancelledVote(d, rule, gettext("Голосование дня %(n)s не проводится (%(rule)s)") % {"n": d, "rule": rule})
        )
    return out


# A captain who has left keeps his 15 seconds in the host's script (V12, N5):
# games/rules/script.py, shared with the write path (his step's clock waits).
ghost_captains = script.ghost_captains
CAPTAIN_ORDER = script.CAPTAIN_ORDER


def next_label(state: GameState) -> str:
    """What the big button does on this step, in the host's words."""
    step = state.step
    if step == "dogovorka":
        return gettext("Договорка окончена")
    if step == "free_seating":
        return gettext("День 1")
    if step == "speech":
        return gettext("Пас — следующий")
    if step == "tie_speech":
        return gettext("Речь окончена")
    if step == "last_word":
        return gettext("Слово окончено")
    if step == "mafia_shot":
        return gettext("Никто не назван: промах")
    if step in ("don_check", "sheriff_check"):
        return gettext("Без проверки")
    if step == "best_move":
        return gettext("Без лучшего хода")
    return gettext("Дальше")


# --- protocol lines --------------------------------------------------------------------------


@dataclass
class ProtocolLine:
    index: int
    seq: int | None
    when: str
    text: str
    kind: str  # the action's `do`
    minor: bool = False  # a plain `next`: shown muted
    action: dict[str, Any] | None = None
    # A stored action today's rules refuse (a log recorded under an earlier
    # reading, issue 21): skipped by the replay, shown as such.
    refused: bool = False

    @property
    def full(self) -> str:
        return f"{self.when}: {self.text}" if self.when else self.text

    @cached_property
    def html(self) -> str:
        """The line as an <li> of the console's protocol (built once; lines are cached)."""
        cls = f"pl pl-{self.kind}" + (" is-minor" if self.minor else "") + (" is-refused" if self.refused else "")
        return f'<li class="{cls}"><span class="pl-when">{escape(self.when)}:</span> {escape(self.text)}</li>'


class _Before:
    """What `describe` reads of the state before an action (cheaper than a copy)."""

    __slots__ = ("status", "day", "phase", "step", "speaker", "speech_seconds", "left", "winner", "victim", "players")

    def __init__(self, s: GameState) -> None:
        self.status, self.day, self.phase, self.step = s.status, s.day, s.phase, s.step
        self.speaker, self.speech_seconds, self.winner, self.victim = s.speaker, s.speech_seconds, s.winner, s.victim
        self.left = list(s.left)
        self.players = s.players


class ConsoleLines:
    """The console's words for the protocol's lines: games.reading replays the
    log and keeps the lines in its cache; this says what each line reads."""

    def before(self, state: GameState) -> _Before:
        return _Before(state)

    def line(self, index: int, seq: int | None, action: dict[str, Any], before: Any, after: GameState) -> ProtocolLine:
        when, text, minor = describe(action, before, after, index)
        return ProtocolLine(index, seq, when, text, str(action.get("do", "")), minor, action)

    def refused(
        self, index: int, seq: int | None, action: dict[str, Any], before: Any, exc: RuleViolation
    ) -> ProtocolLine:
        # Issue 21: a log recorded under an earlier reading; skipped, shown as such.
        text = refused_text(action, exc)
        return ProtocolLine(index, seq, _prefix(before), text, str(action.get("do", "")), False, action, refused=True)


LINES = ConsoleLines()


def replay_lines(actions: list[dict[str, Any]], regulations: Regulations | None = None) -> reading.Replayed:
    """The console's lines of a log that is not a stored game (an import, a test): no cache."""
    return reading.replay_lines(actions, LINES, regulations)


def refused_summary(refused: list[tuple[int, RuleViolation]], seqs: list[int] | None = None) -> str:
    """One notice for the console: which stored actions today's rules refuse."""
    if not refused:
        return ""
    items = ", ".join(f"№{seqs[i] if seqs and i < len(seqs) else i + 1} ({exc.rule})" for i, exc in refused)
    return gettext(
        "Игра записана по прежнему прочтению правил: по нынешним правилам не принимаются и пропущены действия %(list)s (см. протокол)."
    ) % {"list": items}


def refused_text(action: dict[str, Any], exc: RuleViolation) -> str:
    """The protocol line of a stored action today's rules refuse."""
    do = str(action.get("do", ""))
    what = vocabulary.PENALTIES(do)
    seat = action.get("seat")
    if isinstance(seat, int):
        what = f"{what} {_seat(seat)}"
    return gettext("Записано: %(action)s — по нынешним правилам не принимается и пропущено (%(why)s)") % {
        "action": what,
        "why": violation_text(exc),
    }


def describe(action: dict[str, Any], before: GameState, after: GameState, index: int) -> tuple[str, str, bool]:
    """(when, text, minor) of one action."""
    do = action.get("do")
    when = _prefix(before)
    minor = False
    parts: list[str] = []
    if do == "seat":
        players = list(action.get("players") or [])
        parts.append(gettext("Рассадка: %(list)s") % {"list": ", ".join(f"{i} {p}" for i, p in enumerate(players, 1))})
        if action.get("seed"):
            parts.append(gettext("(жеребьёвка, ключ %(seed)s)") % {"seed": action["seed"]})
    elif do == "roles":
        mafia = action.get("mafia") or []
        parts.append(
            gettext("Роли: Шериф %(s)s, Дон %(d)s, Мафия %(m)s")
            % {"s": _seat(action.get("sheriff")), "d": _seat(action.get("don")), "m": _seats(mafia)}
        )
    elif do == "start":
        when = _prefix(after)
        parts.append(gettext("«В городе ночь» — договорка"))
    elif do == "next":
        minor = True
        parts.append(_describe_next(before, after))
    elif do == "nominate":
        noms = _entries(after, "nominations", index)
        supported = bool(noms and noms[0].get("result") == "supported")
        text = gettext("%(by)s выставил %(t)s") % {"by": _seat(action.get("by")), "t": _seat(action.get("target"))}
        if supported:
            text += " — " + gettext("поддерживается")
        parts.append(text)
    elif do == "votes" or do == "lift_vote":
        parts.extend(_describe_votes(after, index))
    elif do == "shots":
        parts.append(_describe_shots(action, after, index))
    elif do in ("don_check", "sheriff_check"):
        parts.append(_describe_check(do, action, after, index))
    elif do == "best_move":
        parts.append(_describe_best_move(before, after, index))
    elif do in ("foul", "warning", "grey_card", "disqualify", "remove", "ppk"):
        parts.append(_describe_penalty(do, action, after, index))
    elif do == "wink":
        parts.append(
            gettext("%(by)s подмигнул %(t)s") % {"by": _seat(action.get("by")), "t": _seat(action.get("target"))}
        )
    elif do == "tech_pause":
        parts.append(gettext("технический перерыв %(s)s") % {"s": _seat(action.get("seat"))})
    elif do == "annul":
        text = gettext("игра аннулирована: переигровка (W6)")
        reason = _reason_for_reader(action.get("reason"), action.get("reason_code"))
        if reason:
            text += f" — {reason}"
        parts.append(text)
    else:
        parts.append(str(do))
    parts.extend(_consequences(before, after, index, do))
    return when, " ".join(p for p in parts if p), minor


def _describe_next(before: GameState, after: GameState) -> str:
    step = before.step
    if step == "dogovorka":
        return gettext("договорка окончена")
    if step == "free_seating":
        return gettext("свободная посадка окончена")
    if step == "speech":
        if before.speech_seconds == 0:
            return gettext("%(s)s без речи (3 фола)") % {"s": _seat(before.speaker)}
        return gettext("речь %(s)s окончена") % {"s": _seat(before.speaker)}
    if step == "tie_speech":
        return gettext("речь 30 секунд %(s)s окончена") % {"s": _seat(before.speaker)}
    if step == "last_word":
        return gettext("последнее слово %(s)s") % {"s": _seat(before.speaker)}
    if step == "mafia_shot":
        return gettext("промах: никто не назван")
    if step == "don_check":
        return gettext("Дон не проверял")
    if step == "sheriff_check":
        return gettext("Шериф не проверял")
    if step == "best_move":
        return gettext("лучший ход не оставлен")
    return gettext("дальше")


def _describe_votes(after: GameState, index: int) -> list[str]:
    out = []
    for v in _entries(after, "votes", index):
        if v.get("kind") == "lift":
            yes = list(v.get("yes") or [])
            out.append(
                gettext("голосование за подъём %(c)s: за — %(n)s (%(yes)s)")
                % {"c": _seats(v.get("candidates") or []), "n": len(yes), "yes": seat_list(yes) or "—"}
            )
        else:
            ballots = {int(k): int(c) for k, c in (v.get("ballots") or {}).items()}
            auto = {int(a) for a in (v.get("auto") or [])}
            totals = {int(k): n for k, n in (v.get("totals") or {}).items()}
            pieces = []
            for cand in v.get("candidates") or []:
                voters = sorted(s for s, c in ballots.items() if c == int(cand))
                named = [str(s) + ("*" if s in auto else "") for s in voters]
                pieces.append(
                    f"{_seat(cand)} — {totals.get(int(cand), len(voters))}"
                    + (f" ({', '.join(named)})" if named else "")
                )
            label = gettext("переголосование") if v.get("kind") == "revote" else gettext("голосование")
            text = f"{label}: " + "; ".join(pieces)
            if auto:
                text += " " + gettext("(* не голосовал — голос последнему, V4)")
            out.append(text)
        outcome = v.get("outcome")
        leaving = list(v.get("leaving") or [])
        if outcome == "leave" and leaving:
            out.append(
                "→ " + gettext("покидает %(s)s") % {"s": _seats(leaving)}
                if len(leaving) == 1
                else "→ " + gettext("покидают %(s)s") % {"s": _seats(leaving)}
            )
        elif outcome == "tie":
            out.append("→ " + gettext("поровну: речи по 30 секунд и переголосование (V8)"))
        elif outcome == "lift":
            out.append("→ " + gettext("снова поровну: голосование за подъём (V10)"))
        elif outcome == "night":
            out.append("→ " + gettext("голоса поделились между тремя и более: ночь (V6)"))
        elif outcome == "no_elimination":
            out.append("→ " + gettext("никто не покидает"))
    return out


def _describe_shots(action: dict[str, Any], after: GameState, index: int) -> str:
    entries = _entries(after, "shots", index)
    by = entries[0].get("by") if entries else action.get("by")
    victim = entries[0].get("victim") if entries else None
    detail = ", ".join(f"{_seat(b)} → {t if t is not None else '—'}" for b, t in (by or {}).items())
    text = gettext("выстрел в %(s)s") % {"s": _seat(victim)} if victim is not None else gettext("промах")
    return f"{text} ({detail})" if detail else text


def _describe_check(do: str, action: dict[str, Any], after: GameState, index: int) -> str:
    entries = _entries(after, "checks", index)
    result = entries[0].get("result") if entries else None
    target = _seat(action.get("target"))
    if do == "don_check":
        answer = gettext("Шериф") if result else gettext("не Шериф")
        return gettext("Дон проверил %(t)s — %(a)s") % {"t": target, "a": answer}
    answer = gettext("чёрный") if result == "black" else gettext("красный")
    return gettext("Шериф проверил %(t)s — %(a)s") % {"t": target, "a": answer}


def _describe_best_move(before: GameState, after: GameState, index: int) -> str:
    entries = _entries(after, "best_moves", index)
    e = entries[0] if entries else {}
    who = _seat(e.get("seat") or before.victim)
    if e.get("passed"):
        return gettext("лучший ход %(s)s: пас") % {"s": who}
    if not e.get("accepted"):
        return gettext("лучший ход %(s)s не принят") % {"s": who}
    return gettext("лучший ход %(s)s: %(list)s (чёрных: %(n)s)") % {
        "s": who,
        "list": seat_list(e.get("seats") or []) or "—",
        "n": e.get("blacks", 0),
    }


def _describe_penalty(do: str, action: dict[str, Any], after: GameState, index: int) -> str:
    entries = _entries(after, "penalties", index)
    e = entries[0] if entries else {}
    seat = e.get("seat", action.get("seat"))
    count = e.get("count")
    if do == "ppk":
        team = e.get("team") or action.get("team")
        text = gettext("ППК команде %(team)s") % {"team": vocabulary.TEAMS_OF(team)}
        if seat:
            text += f" ({_seat(seat)})"
    elif do == "foul":
        text = gettext("%(s)s — фол") % {"s": _seat(seat)}
        if count:
            text += " " + gettext("(%(n)s-й)") % {"n": count}
    elif do == "warning":
        text = gettext("%(s)s — предупреждение") % {"s": _seat(seat)}
        if count:
            text += " " + gettext("(%(n)s-е)") % {"n": count}
    elif do == "grey_card":
        text = gettext("%(s)s — серая карточка") % {"s": _seat(seat)}
    elif do == "disqualify":
        text = gettext("%(s)s — дисквалифицирующий фол") % {"s": _seat(seat)}
    else:
        text = gettext("%(s)s снят с игры (X4)") % {"s": _seat(seat)}
    reason = _reason_for_reader(e.get("reason") or action.get("reason"), action.get("reason_code"))
    if reason:
        text += f": {reason}"
    if e.get("after_leaving"):
        # RULES F19: recorded after he left; nothing changes at the table.
        text += " — " + gettext("после ухода из игры (F19): за столом ничего не меняет")
    if do == "warning" and e.get("ban"):
        text += "; " + gettext("ЧС на 7 дней (F4)")
    return text


def _reason_for_reader(reason: Any, code: Any) -> str:
    """A catalogue reason in the reader's language; a typed one as typed (F16)."""
    return reason_text(
        reason if isinstance(reason, str) else None, code if isinstance(code, str) else None, get_language() or "ru"
    )


def _consequences(before: GameState, after: GameState, index: int, do: Any) -> list[str]:
    """What the action caused beyond itself: who left, cancelled votes, the result."""
    out: list[str] = []
    known = {e["seat"] for e in before.left}
    for entry in after.left:
        if entry["seat"] in known:
            continue
        # Votes already say who leaves.
        if do in ("votes", "lift_vote") and entry.get("how") in ("vote", "lift_vote"):
            continue
        out.append(
            "→ "
            + gettext("%(s)s покидает игру (%(how)s)")
            % {"s": _seat(entry["seat"]), "how": vocabulary.HOW_LEFT(entry.get("how"))}
        )
    for ev in _entries(after, "events", index):
        kind = ev.get("kind")
        if kind == "vote_cancelled":
            out.append("→ " + gettext("голосование дня %(d)s не проводится (F7–F10)") % {"d": ev.get("day", "?")})
        elif kind == "vote_stopped":
            out.append("→ " + gettext("голосование остановлено (F10)"))
        elif kind == "no_nominees":
            out.append("→ " + gettext("никто не выставлен: ночь"))
        elif kind == "single_candidate_day1":
            out.append("→ " + gettext("одна кандидатура в первый день: голосования нет (V5)"))
        elif kind == "draw":
            out.append("→ " + gettext("три ночи без выбываний: ничья (W4)"))
        elif kind == "decided_by_shot":
            if after.step == "best_move":
                # RULES W1 INTERP (issue 21): the checks are skipped, his N1 best move is not.
                out.append(
                    "→ " + gettext("выстрел решил игру (W1): проверок этой ночью нет; лучший ход за убитым (N6)")
                )
            else:
                out.append("→ " + gettext("выстрел решил игру (W1): проверок и лучшего хода этой ночью нет"))
    if after.winner and not before.winner and do != "ppk":
        out.append("→ " + winner_text(after.winner))
    if after.status == "finished" and before.status != "finished" and do == "next" and after.winner:
        out.append("→ " + gettext("игра окончена"))
    return out


# --- chat lines ----------------------------------------------------------------------------------


@dataclass
class ChatLine:
    key: str
    label: str
    text: str


def _ru(text: str) -> str:
    with override("ru"):
        return gettext(text)


def chat_lines(state: GameState, last_action: dict[str, Any] | None = None) -> list[ChatLine]:
    """The texts the host has to post now, exactly as to post them.

    The texts are Russian whatever the host's UI language: the game's chat
    is in the official language (S4); only the labels follow the UI."""
    out: list[ChatLine] = []
    step = state.step
    if state.status == "running" and step in ("voting", "lift_vote") and state.nominees:
        out.append(
            ChatLine(
                "candidates",
                gettext("Кандидатуры (V2)"),
                _ru("Кандидатуры: %(list)s") % {"list": seat_list(state.nominees)},
            )
        )
    if state.status == "running" and step == "voting":
        out.append(ChatLine("line", gettext("Черта после 5 секунд (V1)"), VOTE_LINE))
    if state.status == "running" and step == "speech" and not state.remaining_speakers() and state.vote_follows():
        # The last speech: the vote comes next, have the candidates ready.
        out.append(
            ChatLine(
                "candidates",
                gettext("Кандидатуры (V2)"),
                _ru("Кандидатуры: %(list)s") % {"list": seat_list(state.nominees)},
            )
        )
    winks = state.record.winks
    if winks and last_action and last_action.get("do") == "wink":
        w = winks[-1]
        out.append(
            ChatLine(
                "wink",
                gettext("В ЛС игроку №%(t)s (N12)") % {"t": w["target"]},
                _ru("Вам мигнул %(n)s") % {"n": w["by"]},
            )
        )
    best = state.record.best_moves
    if best and (step in ("last_word",) and state.phase == "night" or (last_action or {}).get("do") == "best_move"):
        b = best[-1]
        if b.get("accepted") and not b.get("passed"):
            out.append(
                ChatLine(
                    "best_move",
                    gettext("Лучший ход (N6)"),
                    _ru("Принято: %(list)s") % {"list": seat_list(b.get("seats") or [])},
                )
            )
    # Only players at the table (issue 12-9): a removed player's fouls are history.
    fouls = {int(k): v for k, v in (state.fouls or {}).items() if v and int(k) in state.at_table}
    if fouls:
        text = _ru("Фолы: %(list)s") % {"list": ", ".join(f"{s} — {n}" for s, n in sorted(fouls.items()))}
        out.append(ChatLine("fouls", gettext("Фолы (X3)"), text))
    return out


def check_answer(entry: dict[str, Any]) -> str:
    """What the host answers a captain (N4)."""
    if entry.get("by") == "don":
        return gettext("Шериф") if entry.get("result") else gettext("не Шериф")
    return gettext("чёрный") if entry.get("result") == "black" else gettext("красный")


# --- refusals -----------------------------------------------------------------------------------

# Russian texts of the engine's refusals, by stable code (games.rules.errors).
# The English ones are the engine's own messages.
_RU: dict[str, str] = {
    "bad_action": "Неверное действие: %(problem)s",
    "unknown_action": "Неизвестное действие %(do)s.",
    "bad_field": "%(field)s: %(problem)s.",
    "bad_seat": "%(field)s: нужен номер места 1..10, получено %(value)s.",
    "expect_not_applied": "Формат: «expect» — контрольная точка лога, а не действие ведущего.",
    "game_over": "Игра окончена; записывать больше нечего.",
    "game_not_started": "Игра ещё не началась: рассадка, роли, затем «Начать».",
    "not_in_setup": "Рассадку и роли можно менять только до начала игры.",
    "not_seated": "Сначала рассадите десять игроков.",
    "no_roles": "Сначала раздайте роли.",
    "roles_not_distinct": "Шериф, Дон и две Мафии должны сидеть на четырёх разных местах.",
    "bad_players": "Нужно ровно десять никнеймов в порядке мест.",
    "next_not_allowed": "Этот шаг заканчивается своим действием, а не кнопкой «Дальше».",
    "wrong_step": "Сейчас это действие невозможно.",
    "not_current_speaker": "Выставлять может только говорящий (№%(speaker)s), а не №%(by)s.",
    "target_not_at_table": "№%(target)s не за столом, его нельзя выставить.",
    "self_nomination_not_allowed": "По этому регламенту нельзя выставить себя.",
    "already_nominated_by": "№%(by)s уже выставил сегодня №%(first)s: одна кандидатура в день.",
    "repeated_nomination": "№%(by)s уже назвал №%(target)s в этой речи: повтор ничего не меняет.",
    "vote_not_candidate": "№%(seat)s не кандидат этого голосования.",
    "vote_voter_not_at_table": "№%(voter)s не за столом и не голосует.",
    "vote_double_voter": "№%(voter)s отмечен дважды: голос только за одну кандидатуру.",
    "lift_voter_not_at_table": "№%(voter)s не за столом и не голосует.",
    "lift_double_voter": "№%(voter)s отмечен дважды.",
    "shot_by_not_black": "№%(seat)s не чёрный за столом и не стреляет.",
    "shot_target_not_at_table": "№%(target)s не за столом.",
    "best_move_too_many": "В лучшем ходе не больше трёх номеров (названо %(count)s).",
    "penalty_not_at_table": "№%(seat)s не за столом и не говорит последнее слово: наказание невозможно.",
    "penalty_after_leaving": "№%(seat)s покинул игру: после ухода возможны только предупреждение или серая карточка.",
    "f18_grey_card_instead": "за это нарушение 4-й и дисквалифицирующий фол не ставится: дайте №%(seat)s серую карточку (то же нарушение «при трёх фолах»).",
    "remove_not_at_table": "№%(seat)s не за столом.",
    "ppk_seat_not_of_team": "№%(seat)s не из этой команды.",
    "wink_not_at_table": "№%(by)s не за столом.",
    "wink_not_allowed_role": "Подмигивать могут только чёрные и Шериф; №%(by)s не может.",
    "wink_limit": "№%(by)s уже подмигнул %(limit)s раза.",
    "wink_self": "Нельзя подмигнуть самому себе.",
    "wink_target_not_at_table": "№%(target)s не за столом.",
    "tech_pause_not_at_table": "№%(seat)s не за столом.",
    "tech_pause_player_round": "№%(seat)s уже брал технический перерыв в этом круге.",
    "tech_pause_player_game": "№%(seat)s уже брал %(limit)s технических перерыва за игру.",
    "tech_pause_round_total": "В этом круге уже было %(limit)s технических перерыва.",
    "tech_pause_game_total": "За игру уже было %(limit)s технических перерыва.",
    "stale_revision": "Игра изменилась с момента отрисовки страницы (ревизия %(actual)s, на странице %(expected)s). Ничего не применено — проверьте и повторите.",
    "nothing_to_undo": "Отменять нечего.",
    "no_tech_pause": "Технический перерыв сейчас не идёт; ничего не изменено.",
}


def violation_text(exc: Any) -> str:
    """The refusal in the page's language, always naming the rule (or the field)."""
    code = getattr(exc, "code", "")
    rule = getattr(exc, "rule", "")
    params = dict(getattr(exc, "params", {}) or {})
    field = params.get("field")
    if (
        code in ("bad_field", "bad_seat")
        and isinstance(field, str)
        and (field in FIELD_LABELS or field.startswith(("shot-", "vote-")))
    ):
        params["field"] = field_label(field)
    lang = (get_language() or "ru").lower()
    text = ""
    if lang.startswith("ru") and code == "bad_action" and "problem_ru" in params:
        # The input schema (games.rules.schema) gives its own Russian text.
        where = f"Действие №{params['index']}" if params.get("index") is not None else "Действие"
        return f"{where}, поле «{params.get('field')}»: {params['problem_ru']}."
    if lang.startswith("ru") and code in _RU:
        try:
            text = _RU[code] % params
        except (KeyError, TypeError, ValueError):
            text = ""
    if not text:
        text = str(getattr(exc, "message", "") or exc)
        # The engine's English message names the rule already.
        return text
    if rule and rule not in ("FORMAT",):
        return gettext("Правило %(rule)s: %(text)s") % {"rule": rule, "text": text}
    return text
