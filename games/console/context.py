"""The console's view-model (issue 23): what the console's templates show, built
from one replay of the log — the counterpart of the board's games.board.view.

The views (games.console.views) parse a request, call the write path and
render; everything they render comes from here: `console_context(game)` for
the console fragment (the step, its panel, the seats, the side column),
`clock_context(game)` for the clock alone, `page_extras(request, game)` for
what only the full page needs. The state and the protocol's lines come from the
one state reader (games.reading), worded by games.console.protocol_text; the
game's words from games.vocabulary.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_noop

from games import clock, vocabulary
from games import reading as game_reading
from games.console import protocol_text as pt
from games.models import Game
from games.reading import running_tech_pause
from games.rules import legal_actions, penalty_offer, script
from games.rules.catalogue import PENALTY_REASONS

PENALTY_ORDER = (*vocabulary.SEAT_PENALTY_KINDS, "ppk")
# Texts console.js shows; handed to it translated (json_script "console-i18n").
JS_TEXTS = (
    gettext_noop("Нет связи с сервером: действие не записано."),
    gettext_noop("Нет прав на эту игру (403)."),
    gettext_noop("Ошибка сервера: действие не записано."),
    gettext_noop("→ покидают все"),
    gettext_noop("→ никто не покидает"),
    gettext_noop("→ выстрел в №"),
    gettext_noop("→ промах"),
    gettext_noop("Принято: "),
    gettext_noop("Фол: нажмите номер места"),
    gettext_noop("Звук: вкл"),
    gettext_noop("Звук: выкл"),
    gettext_noop("Страница не обновилась: перезагрузите её (F5)."),
    gettext_noop("Действие записано"),
    gettext_noop("Действие не записано: повторите его."),
    gettext_noop("Нет связи с сервером: проверяю, записано ли действие…"),
    gettext_noop("Нет связи: не удалось узнать, записано ли действие. Обновите страницу (F5), прежде чем повторять."),
    gettext_noop("Отметьте каждого чёрного: номер или «никого»."),
    gettext_noop("Ошибка сервера: проверяю, записано ли действие…"),
    gettext_noop("Правило D3: выставлять можно только во время своей речи."),
    gettext_noop("Правило D4: №{by} уже назвал №{seat} в этой речи."),
    gettext_noop("Правило N2: отметьте каждого чёрного — номер или «никого»."),
    gettext_noop("Правило N2: отметьте, кого назвал каждый чёрный, и Enter. Промах — только Shift+Пробел."),
    gettext_noop("Правило N2: №{seat} не за столом, в него не стреляют."),
    gettext_noop("Правило N4: нажмите номер проверяемого и Enter. Без проверки — только Shift+Пробел."),
    gettext_noop("Правило N4: сначала нажмите номер проверяемого, затем Enter."),
    gettext_noop("Проверка №{seat}: Enter — записать, другая цифра — другой номер."),
    gettext_noop("Правило N6: в лучшем ходе не больше трёх номеров."),
    gettext_noop("Правило N6: назовите хотя бы один номер."),
    gettext_noop("Правило N6: отметьте номера и Enter. Без лучшего хода — только Shift+Пробел."),
    gettext_noop("Правило N6: №{seat} не за столом."),
    gettext_noop("Правило S2: нужны Шериф, Дон и две Мафии."),
    gettext_noop("Правило V10: №{seat} не за столом и не голосует."),
    gettext_noop("Правило V3: №{seat} не за столом и не голосует."),
    gettext_noop("Сейчас нечего записывать."),
    gettext_noop("Сначала закончите этот шаг: Пробел."),
    gettext_noop("Шаг только что сменился: нажмите ещё раз, если нужно."),
    # Issue 26: every ignored key says why.
    gettext_noop("Enter: на этом шаге нечего записывать. Следующий шаг — Пробел."),
    gettext_noop("Клавиша зажата: повтор не считается. Отпустите и нажмите снова."),
    gettext_noop("Предыдущее действие ещё записывается: нажмите снова, когда появится ответ."),
    gettext_noop("Сейчас не разрешено правилами для №{seat}: {kinds}."),
    gettext_noop("Это снятие с игры №{seat}: Enter ещё раз — записать, Esc — отмена."),
    gettext_noop("Такой причины в списке нет: Enter запишет её своими словами."),
    gettext_noop("Enter без выбора — без причины из списка."),
    gettext_noop("Окно только что открылось: нажмите Enter ещё раз."),
    gettext_noop("Предупреждение: нажмите номер места"),
    gettext_noop("Серая карточка: нажмите номер места"),
    gettext_noop("Дисквалифицирующий фол: нажмите номер места"),
    gettext_noop("Снять с игры (X4): нажмите номер места"),
    gettext_noop("ППК команде игрока: нажмите номер места"),
    gettext_noop("3-й фол объявляется с причиной (F14): выберите её или Enter без неё."),
    gettext_noop("4-й фол удаляет игрока (F7)."),
)


def answer(state: Any, index: int) -> str:
    """What the host says aloud after this action: «Принято», «Шериф», …"""
    for n in state.record.nominations[-1:]:
        if n["index"] == index:
            return gettext("Принято") if n["result"] == "accepted" else gettext("Поддерживается")
    for c in state.record.checks[-1:]:
        if c["index"] == index:
            return pt.check_answer(c)
    for b in state.record.best_moves[-1:]:
        if b["index"] == index and b.get("accepted"):
            return gettext("Принято: %(list)s") % {"list": pt.seat_list(b.get("seats") or [])}
    return ""


def clock_signature(game: Game) -> str:
    # The technical pause's early end is clock state too: a second device must redraw.
    raw = f"{game.clock_key}|{game.clock_duration_ms}|{game.clock_started_at}|{game.clock_elapsed_ms}|{game.timeout_since}|{game.tech_pause_ended_at}"
    return hashlib.blake2s(raw.encode(), digest_size=6).hexdigest()


def clock_context(game: Game) -> dict[str, Any]:
    now = timezone.now()
    remaining = clock.remaining_ms(game, now)
    running = game.clock_started_at is not None and game.timeout_since is None
    deadline = clock.deadline(game, now)
    return {
        "remaining_ms": remaining,
        "duration_ms": game.clock_duration_ms,
        "running": running,
        "timeout": game.timeout_since is not None,
        "has_clock": game.clock_duration_ms > 0,
        "deadline_ms": int(deadline.timestamp() * 1000) if deadline else "",
        "text": _mmss(remaining),
        "sig": clock_signature(game),
        "key": game.clock_key,
    }


_mmss = vocabulary.clock_text


def _reverse_or(name: str, *args: Any, fallback: str) -> str:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return fallback


def page_extras(request: HttpRequest, game: Game) -> dict[str, Any]:
    """What only the full page needs: links, the overlay, the penalty catalogue."""
    board = _reverse_or("board:board", game.pk, fallback=f"/games/{game.pk}/board/")
    overlay = ""
    if game.overlay_token:
        overlay = _reverse_or(
            "board:overlay", game.pk, game.overlay_token, fallback=f"/games/{game.pk}/overlay/{game.overlay_token}/"
        )
        overlay = request.build_absolute_uri(overlay)
    lang_en = (getattr(request, "LANGUAGE_CODE", "ru") or "ru").startswith("en")
    reasons: dict[str, list[dict[str, str]]] = {k: [] for k in PENALTY_ORDER}
    for r in PENALTY_REASONS:
        reasons.setdefault(r["penalty"], []).append(
            {
                "code": r["code"],
                "text": r["text_en"] if lang_en else r["text_ru"],
                "rule": r["rule"],
                "penalty": r["penalty"],
            }
        )
    return {
        "board_url": board,
        "board_abs_url": request.build_absolute_uri(board),
        "overlay_url": overlay,
        "xlsx_url": _reverse_or("exports:protocol_xlsx", game.pk, fallback=f"/games/{game.pk}/protocol.xlsx"),
        "json_url": _reverse_or("exports:log_json", game.pk, fallback=f"/games/{game.pk}/log.json"),
        "js_i18n": {t: gettext(t) for t in JS_TEXTS},
        "reason_groups": [(kind, vocabulary.PENALTIES(kind), reasons.get(kind, [])) for kind in PENALTY_ORDER],
    }


def replayed(game: Game) -> tuple[game_reading.Replayed, list[int]]:
    """The game's state and protocol lines, from the one state reader (games.reading)."""
    rep = game_reading.game_protocol(game, pt.LINES)
    return rep, rep.seqs


def console_context(game: Game) -> dict[str, Any]:
    """Everything the console fragment shows, from one replay of the log."""
    rep, seqs = replayed(game)
    state = rep.state
    last_action = rep.lines[-1].action if rep.lines else None
    legal = legal_actions(state)
    by_do: dict[str, dict[str, Any]] = {}
    for a in legal:
        by_do.setdefault(a["do"], a)
    players = list(state.players or [])
    roles = {int(k): v for k, v in (state.roles or {}).items()}
    fouls = {int(k): v for k, v in state.fouls.items()}
    left = {e["seat"]: e for e in state.left}
    nominees = list(state.nominees)
    nominated_by = {t: b for b, t in state.nominated_by.items()} if state.phase == "day" else {}
    nominate = by_do.get("nominate")
    nominate_targets = set(nominate["targets"]) if nominate else set()
    foulable = set(by_do.get("foul", {}).get("seats", []))
    limits = state.regulations
    seats = []
    for no in range(1, 11):
        nick = players[no - 1] if len(players) >= no else ""
        role = roles.get(no, "")
        n_fouls = fouls.get(no, 0)
        entry = left.get(no)
        offer = penalty_offer(state, no)
        seats.append(
            {
                "no": no,
                "nick": nick,
                "role": role if role != "civilian" else "",
                "role_name": vocabulary.ROLES(role, default="") if role and role != "civilian" else "",
                "role_short": vocabulary.ROLE_BADGES(role, default=""),
                "team": "black" if role in ("don", "mafia") else "red",
                "at_table": no in state.at_table,
                "left": entry,
                "left_text": f"{vocabulary.HOW_LEFT(entry['how'])} · {vocabulary.when(entry['day'], entry['phase'])}"
                if entry
                else "",
                "fouls": n_fouls,
                "foul_pips": [i < n_fouls for i in range(limits.fouls_to_remove)],
                "warnings": state.warnings.get(no, 0),
                "grey_cards": state.grey_cards.get(no, 0),
                "speaker": state.speaker == no and state.status == "running",
                "nominee_order": nominees.index(no) + 1 if no in nominees else None,
                "nominated_by": nominated_by.get(no),
                "can_nominate": no in nominate_targets,
                "nominate_supported": no in nominees,
                "can_foul": no in foulable,
                "can_penalize": bool(offer["kinds"]),
                # The penalty dialog offers only these kinds for this seat, and
                # per kind never these F16 reasons (games.rules.penalty_offer:
                # F19 after leaving, F18 for a player with 3 fouls).
                "penalties": " ".join(k for k in PENALTY_ORDER if k in offer["kinds"]),
                "penalty_withheld": " ".join(f"{k}:{c}" for k, codes in offer["withheld"].items() for c in codes),
                "muted": no in state.mute_pending,
                "victim": state.victim == no and state.phase == "night",
            }
        )
    step = state.step if state.status == "running" else state.status
    pk = game.pk
    ctx: dict[str, Any] = {
        "game": game,
        # Reversed once here, not per tile in the template.
        "urls": {
            name: reverse(f"games:{view}", args=[pk])
            for name, view in (
                ("act", "act"),
                ("undo", "undo"),
                ("clock", "clock"),
                ("fragment", "console_fragment"),
                ("tech_pause_end", "tech_pause_end"),
            )
        },
        "running": state.status == "running",
        "state": state,
        "public": state.public_dict(),
        "seats": seats,
        "title": pt.step_title(state),
        "step": step,
        "legal": by_do,
        "can_next": "next" in by_do,
        "next_label": pt.next_label(state),
        "lines": rep.lines,
        # Built in Python: the template loop over a long protocol was the
        # slowest part of the fragment.
        "protocol_html": mark_safe("".join(line.html for line in reversed(rep.lines))),  # noqa: S308 - escaped in ProtocolLine.html
        "last_line": rep.lines[-1] if rep.lines else None,
        "chat": pt.chat_lines(state, last_action),
        "clock": clock_context(game),
        "speaker_nick": players[state.speaker - 1] if state.speaker and len(players) >= state.speaker else "",
        "nominate_by": nominate["by"] if nominate else None,
        "replay_error": pt.refused_summary(rep.refused, seqs),
        "decided_winner": pt.winner_text(state.winner) if state.winner and state.status == "running" else "",
        "step_key": pt.step_key(state),
        "deliberate_step": state.status == "running" and state.step in pt.DELIBERATE_NEXT_STEPS,
        "cancelled_votes": pt.cancelled_votes(state),
        # Played while the step's own clock waits for them (issue 26-2); once it
        # started (here or on the host's other device) the wake-ups are over.
        "ghost_captains": pt.ghost_captains(state)
        if game.clock_started_at is None and game.clock_elapsed_ms == 0
        else [],
        # Issue 26-4: the step's clock waits, full, for the host's Space after
        # his «В городе ночь» / «Доброе утро» (started, it is an ordinary step).
        "clock_waits": _clock_waits_for_host(game, state),
        "named_in_speech": pt.named_in_speech(state),
    }
    ctx.update(_panel_context(state, by_do, seats, roles))
    ctx.update(_side_context(game, state, by_do, last_action, seqs))
    return ctx


def _clock_waits_for_host(game: Game, state: Any) -> bool:
    full_and_paused = (
        game.clock_duration_ms > 0
        and game.clock_started_at is None
        and game.clock_elapsed_ms == 0
        and game.timeout_since is None
    )
    return full_and_paused and script.host_speaks_first(state)


def _panel_context(
    state: Any, by_do: dict[str, dict[str, Any]], seats: list[dict[str, Any]], roles: dict[int, str]
) -> dict[str, Any]:
    """The step panel: which one, and what it offers (only legal options)."""
    ctx: dict[str, Any] = {}
    step = state.step
    if state.status == "setup":
        ctx["panel"] = "setup"
        ctx["players_text"] = "\n".join(state.players or [])
        ctx["role_seats"] = {
            "sheriff": state.seat_of("sheriff") if roles else None,
            "don": state.seat_of("don") if roles else None,
            "mafia": sorted(s for s, r in roles.items() if r == "mafia"),
        }
        ctx["can_start"] = "start" in by_do
        return ctx
    if state.status != "running":
        ctx["panel"] = "over"
        return ctx
    ctx["panel"] = step
    if step in ("speech", "tie_speech"):
        ctx["queue"] = state.remaining_speakers()
    if step == "voting":
        v = by_do["votes"]
        kind = "revote" if state.vote_round else "vote"
        ctx["vote"] = {
            "candidates": v["candidates"],
            "voters": v["voters"],
            "last": v["candidates"][-1] if v["candidates"] else None,
            "kind": kind,
            "key": f"vote-{state.day}-{state.vote_round}-{'_'.join(map(str, v['candidates']))}-{'_'.join(map(str, v['voters']))}",
        }
    elif step == "lift_vote":
        v = by_do["lift_vote"]
        ctx["lift"] = {
            "candidates": v["candidates"],
            "voters": v["voters"],
            "needed": state.regulations.lift_votes_needed(len(v["voters"])),
            "key": f"lift-{state.day}-{state.vote_round}-{'_'.join(map(str, v['voters']))}",
        }
    elif step == "mafia_shot":
        v = by_do["shots"]
        ctx["shots"] = {
            "blacks": [{"seat": b, "role": vocabulary.ROLES(roles.get(b), default="")} for b in v["blacks"]],
            "targets": v["targets"],
            "key": f"shots-{state.day}-{'_'.join(map(str, v['blacks']))}-{'_'.join(map(str, v['targets']))}",
        }
    elif step in ("don_check", "sheriff_check"):
        v = by_do[step]
        ctx["check"] = {"by": step, "seat": v.get("seat"), "targets": v["targets"]}
    elif step == "best_move":
        v = by_do["best_move"]
        ctx["best"] = {
            "seat": v.get("seat"),
            "targets": v["targets"],
            "max": v.get("max", 3),
            "key": f"best-{state.day}-{v.get('seat')}",
        }
    if state.phase == "night" and state.day:
        night_checks = [c for c in state.record.checks if c.get("night") == state.day]
        ctx["night_checks"] = [
            {"by": c["by"], "target": c["target"], "answer": pt.check_answer(c), "captain": state.seat_of(c["by"])}
            for c in night_checks
        ]
        shots = [s for s in state.record.shots if s.get("night") == state.day]
        ctx["night_shot"] = shots[-1] if shots else None
    return ctx


def _side_context(
    game: Game, state: Any, by_do: dict[str, dict[str, Any]], last_action: dict[str, Any] | None, seqs: list[int]
) -> dict[str, Any]:
    """Winks (N12), technical pauses (D7), undo."""
    r = state.regulations
    wink = by_do.get("wink")
    winkers = []
    if state.status == "running":
        for seat, role in sorted((int(k), v) for k, v in (state.roles or {}).items()):
            if role in ("sheriff", "don", "mafia") and seat in state.at_table:
                used = state.winks.get(seat, 0)
                winkers.append(
                    {
                        "seat": seat,
                        "role": vocabulary.ROLES(role, default=""),
                        "used": used,
                        "left": max(0, r.winks_per_player - used),
                        "can": bool(wink and seat in wink["by"]),
                    }
                )
    pause = by_do.get("tech_pause")
    round_no = state.day if state.day is not None else 0
    tp = {
        "seats": pause["seats"] if pause else [],
        "round_used": state.tp_round.get(round_no, 0),
        "round_limit": r.tech_pauses_per_round,
        "game_used": state.tp_game,
        "game_limit": r.tech_pauses_per_game,
        "player_game_limit": r.tech_pauses_per_player_game,
    }
    # D7: the pause runs from when it was recorded (the server's time) until
    # its time is up or the host ends it early (games.reading).
    running_pause = running_tech_pause(game)
    undo = {"seq": seqs[-1]} if seqs else None
    counts = Counter(p.get("seat") for p in state.record.penalties if p.get("kind") == "warning")
    return {
        "winkers": winkers,
        "wink_targets": wink["targets"] if wink else [],
        "tp": tp,
        "running_pause": running_pause,
        "undo": undo,
        "warnings_by_seat": dict(counts),
        "can_ppk": "ppk" in by_do,
        "can_annul": "annul" in by_do,
    }
