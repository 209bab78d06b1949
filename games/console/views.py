"""The host's pages: thin HTMX views that parse, call a service, render a partial.

The console is one page; every host action is a POST to `act` with the
action's fields and `expected_seq` (the revision the page shows, Game.seq),
answered with the console fragment (`console.html#console`). A refusal —
a rule (RuleViolation), a malformed field, a stale page — is answered with
the same fragment, an error naming the rule or the field, and a 4xx status
that the page's htmx config swaps; nothing is changed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import Counter
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, TextField
from django.db.models.functions import Cast
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods, require_POST

from games import services, vocabulary
from games.console import protocol_text as pt
from games.console.forms import (
    ActionFormError,
    GameCreateForm,
    parse_action,
    parse_expected_seq,
)
from games.models import Game, GameSeat
from games.permissions import user_can_edit_game, user_may_host_rated_games
from games.reading import running_tech_pause
from games.rules import RuleViolation, legal_actions, penalty_offer, script
from games.rules.catalogue import PENALTY_REASONS
from games.rules.nicknames import nickname_sort_key

CONSOLE = "games/console.html"
logger = logging.getLogger(__name__)
_SMALL_INT = re.compile(r"[+-]?[0-9]{1,6}")
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


# --- access ----------------------------------------------------------------------------


def host_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed-in users only; an htmx request is sent to the login page whole."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated and getattr(request, "htmx", False):
            response = HttpResponse(status=401)
            response["HX-Redirect"] = f"{reverse('login')}?next={request.path}"
            return response
        return login_required(view)(request, *args, **kwargs)

    return wrapper


def _editable_game(request: HttpRequest, pk: int) -> Game:
    game = get_object_or_404(Game, pk=pk)
    # The console shows roles and night checks: it is the host's alone.
    if not user_can_edit_game(request.user, game):
        raise PermissionDenied(gettext("Эту игру может вести только её ведущий или организатор турнира."))
    return game


# --- list and create -----------------------------------------------------------------------


@host_required
def game_list(request: HttpRequest) -> HttpResponse:
    # The table (if any) in the same query: a tournament game offers no «сделать рейтинговой».
    games = Game.objects.filter(host_id=request.user.pk).select_related("tournament_table").order_by("-created_at")[:200]
    # Only a host staff trust may mark a game rated (players/trust.py); others see no button.
    return render(request, "games/game_list.html", {"games": games, "may_host_rated": user_may_host_rated_games(request.user)})


@host_required
@require_http_methods(["GET", "POST"])
def game_create(request: HttpRequest) -> HttpResponse:
    # Imported here: players builds on games, not the other way round.
    from players import discipline
    from players import names as player_services

    form = GameCreateForm(request.POST or None)
    matching = None
    if request.method == "POST" and form.is_valid() and form.cleaned_data.get("rated") and not user_may_host_rated_games(request.user):
        # Refused before anything is stored: the host unticks it or asks staff (players/trust.py).
        form.add_error("rated", gettext("Рейтинговые игры ведут только ведущие, которым это разрешили администраторы клуба (право «может вести рейтинговые игры»); турнирные игры учитываются всегда."))
    ban_refused = False
    if request.method == "POST" and form.is_valid():
        players = form.cleaned_data["players"]
        # Typed nicknames are matched to players; close or unknown ones are
        # confirmed once by the host before the game is created.
        matching = player_services.seating_check(players, request.POST, by=request.user)
        # F4: a banned player is not seated unless an organizer overrides it with a reason.
        bans = discipline.seating_check(matching.player_ids) if not matching.pending else None
        override = " ".join(str(request.POST.get("ban_override_reason", "")).split())
        if bans and bans.bans and not (override and discipline.may_override(request.user)):
            for text in bans.refusals:
                form.add_error(None, text)
            ban_refused = True
            # The choices stay on the page for the next submit.
            matching.pending = [i for i, m in enumerate(matching.matches) if m.status != "known"]
        elif not matching.pending:
            typed = list(players)
            seed = ""
            if form.cleaned_data["seating"] == "random":
                # S1: a random seating, reproducible from the seed kept in the log.
                players, seed = services.draw_seating(players)
            try:
                game = services.game_create(host=request.user, title=form.cleaned_data["title"], players=players, seating_seed=seed)
            except RuleViolation as exc:  # the form checks the same rules; never a 500 if they drift apart
                form.add_error(None, pt.violation_text(exc))
            else:
                player_services.seat_players(game=game, nicknames=typed, resolution=matching, by=request.user)
                if bans and bans.bans:
                    discipline.record_overrides(check=bans, game=game, reason=override, by=request.user)
                if form.cleaned_data.get("rated"):
                    services.game_set_rated(game=game, rated=True)
                return redirect("games:console", pk=game.pk)
    known = (
        GameSeat.objects.filter(game__host_id=request.user.pk)
        .values("nickname")
        .annotate(n=Count("id"))
        .order_by("-n", "nickname")[:60]
    )
    pending = [(i, matching.matches[i]) for i in matching.pending] if matching else []
    # Russian order: Ё sorts with Е, case ignored (issue 12-9); the most used first.
    ordered = sorted(known, key=lambda k: (-k["n"], nickname_sort_key(k["nickname"])))
    return render(request, "games/game_create.html", {"form": form, "known_nicknames": [k["nickname"] for k in ordered], "pending_players": pending, "ban_refused": ban_refused, "may_override_ban": ban_refused and discipline.may_override(request.user)})


# --- the console ----------------------------------------------------------------------------


@host_required
def game_console(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    ctx = console_context(game)
    ctx["page"] = True
    ctx.update(_page_extras(request, game))
    return render(request, CONSOLE, ctx)


@host_required
def game_console_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The console fragment; 204 when the page is current (a second device polls this)."""
    game = _editable_game(request, pk)
    if request.GET.get("seq") == str(game.seq) and request.GET.get("ck") == clock_signature(game):
        return HttpResponse(status=204)
    return render(request, f"{CONSOLE}#console", console_context(game))


@host_required
@require_POST
def game_act(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    try:
        expected = parse_expected_seq(request.POST)
        # The position the action would take names it in a refusal (schema).
        action = parse_action(request.POST, index=game.active_actions().count())
        if action.get("do") == "seat" and getattr(game, "tournament_table", None) is not None:
            # Issue 26-6: a table's game is seated by its tournament (S1); a
            # second seating in its log would contradict the tournament's.
            raise ActionFormError("players", gettext("S1: рассадку турнирной игры задаёт турнир — её меняют на странице тура"))
        if action.get("do") == "seat":
            refusal = _seating_ban_refusal(request, game, action["players"])
            if refusal:
                return _console_response(request, game, error=refusal, status=422)
        if action.get("do") == "seat" and request.POST.get("seating") == "random":
            # S1: the seed goes into the log with the seating it produced.
            players, seed = services.draw_seating(action["players"])
            action = {"do": "seat", "players": players, "seed": seed}
        services.game_record_action(game=game, action=action, expected_seq=expected, by=request.user)
    except (RuleViolation, ActionFormError) as exc:
        game.refresh_from_db()
        return _console_response(request, game, error=pt.violation_text(exc), status=422)
    except services.StaleRevision as exc:
        game.refresh_from_db()
        return _console_response(request, game, error=pt.violation_text(exc), status=409)
    return _after_commit(request, game, lambda: _after_act(request, game, action))


def _seating_ban_refusal(request: HttpRequest, game: Game, nicknames: list[str]) -> str:
    """F4: a banned player typed into a table's seating is refused (the ban's end and
    game named), unless an organizer gives a reason (recorded with the game)."""
    from players import discipline
    from players import names as player_services

    ids = [m.player.player_id for m in player_services.players_match(nicknames=nicknames) if m.status == "known" and m.player is not None]
    check = discipline.seating_check(ids)
    if not check.bans:
        return ""
    table = getattr(game, "tournament_table", None)
    override = " ".join(str(request.POST.get("ban_override_reason", "")).split())
    if override and discipline.may_override(request.user, table.round.stage.tournament if table is not None else None):
        discipline.record_overrides(check=check, game=game, reason=override, by=request.user)
        return ""
    return " ".join(check.refusals)


def _after_act(request: HttpRequest, game: Game, action: dict[str, Any]) -> HttpResponse:
    if action.get("do") == "tech_pause" and game.clock_started_at is not None:
        # D7: the step's clock waits while the technical pause runs.
        services.game_clock_control(game=game, command="pause", by=request.user)
    return _console_response(request, game, just_done=True)


def _after_commit(request: HttpRequest, game: Game, respond: Callable[[], HttpResponse]) -> HttpResponse:
    """The answer to a change that is already committed: never a 500.

    If drawing the console fails (a bug, a lost connection), the host is
    still told the truth — the change is recorded, at this revision — and
    the page reloads itself (HX-Refresh) instead of showing «not recorded».
    """
    try:
        return respond()
    except Exception:
        logger.exception("game %s: the change was committed (revision %s) but the console could not be drawn", game.pk, game.seq)
        text = gettext("Записано (ревизия %(seq)s); страница обновляется.") % {"seq": game.seq}
        response = HttpResponse(f'<div id="console" role="status">{escape(text)}</div>', status=200)
        response["HX-Refresh"] = "true"
        response["X-Recorded-Revision"] = str(game.seq)
        return response


@host_required
@require_POST
def game_undo(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    try:
        expected = parse_expected_seq(request.POST)
        # Name what is undone, in the protocol's words, before it disappears.
        lines = replayed(game)[0].lines
        what = lines[-1].full if lines else ""
        services.game_undo_last_action(game=game, expected_seq=expected, by=request.user)
    except (ActionFormError, RuleViolation) as exc:
        return _console_response(request, game, error=pt.violation_text(exc), status=422)
    except services.StaleRevision as exc:
        game.refresh_from_db()
        return _console_response(request, game, error=pt.violation_text(exc), status=409)
    except services.NothingToUndo as exc:
        return _console_response(request, game, error=pt.violation_text(exc), status=422)
    return _after_commit(request, game, lambda: _console_response(request, game, notice=gettext("Отменено: %(what)s") % {"what": what}))


@host_required
@require_POST
def game_clock(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    command = request.POST.get("command", "")
    if command not in ("start", "pause", "resume", "adjust", "reset", "timeout", "end_timeout", "toggle"):
        return HttpResponse(gettext("Неизвестная команда часов."), status=422)
    seconds = _small_int(request.POST.get("seconds"), -600, 600, default=0)
    if seconds is None:
        return HttpResponse(gettext("Секунды: нужно целое число от -600 до 600."), status=422)
    if command == "toggle":
        command = "pause" if game.clock_started_at is not None else "resume"
    services.game_clock_control(game=game, command=command, by=request.user, seconds=seconds)
    return _after_commit(request, game, lambda: _clock_response(request, game, command))


@host_required
@require_POST
def game_tech_pause_end(request: HttpRequest, pk: int) -> HttpResponse:
    """D7: the host ends the running technical pause early (clock state, not a log action)."""
    game = _editable_game(request, pk)
    try:
        expected = parse_expected_seq(request.POST)
        services.game_end_tech_pause(game=game, expected_seq=expected, by=request.user)
    except (ActionFormError, services.NoTechPause) as exc:
        game.refresh_from_db()
        return _console_response(request, game, error=pt.violation_text(exc), status=422)
    except services.StaleRevision as exc:
        game.refresh_from_db()
        return _console_response(request, game, error=pt.violation_text(exc), status=409)
    return _after_commit(request, game, lambda: _console_response(request, game, notice=gettext("Технический перерыв окончен досрочно.")))


def _clock_response(request: HttpRequest, game: Game, command: str) -> HttpResponse:
    if command in ("timeout", "end_timeout", "start"):
        # D8 changes the banner and the controls as well as the clock; "start"
        # ends the script steps before a waiting clock (issue 26-2).
        return _console_response(request, game)
    urls = {"clock": reverse("games:clock", args=[game.pk]), "fragment": reverse("games:console_fragment", args=[game.pk])}
    ctx = {"game": game, "clock": clock_context(game), "urls": urls}
    # The clock, and (out of band) the poller with the clock's new signature,
    # so that the poll does not fetch the whole console for this change.
    clock_html = render_to_string(f"{CONSOLE}#clock", ctx, request)
    poller_html = render_to_string(f"{CONSOLE}#poller", {**ctx, "oob": True}, request)
    return HttpResponse(clock_html + poller_html)


@host_required
@require_POST
def game_overlay(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    # Malformed settings are refused (422), never guessed: a stray value must
    # not switch off the overlay a stream is showing.
    enabled_raw = request.POST.get("enabled", "")
    rotate_raw = request.POST.get("rotate", "")
    delay = _small_int(request.POST.get("delay"), 0, 600, default=game.overlay_delay_seconds)
    if enabled_raw not in ("0", "1") or rotate_raw not in ("", "0", "1") or delay is None:
        return HttpResponse(gettext("Настройки оверлея: enabled 0 или 1, задержка — целое число секунд от 0 до 600."), status=422)
    enabled = enabled_raw == "1"
    # Keep the link the stream already uses unless a new one is asked for.
    keep = rotate_raw != "1"
    confirm = request.POST.get("confirm_no_delay", "") in ("1", "on")
    try:
        services.game_set_overlay(game=game, by=request.user, enabled=enabled, delay_seconds=delay, keep_token=keep, confirm_no_delay=confirm)
    except services.OverlayDelayUnconfirmed:
        return HttpResponse(gettext("Оверлей показывает роли: без задержки их увидит каждый игрок, который смотрит трансляцию. Отметьте «Без задержки — я понимаю» или задайте задержку больше, чем время, за которое игрок может увидеть трансляцию. Ничего не изменено."), status=422)
    return render(request, f"{CONSOLE}#share", {"game": game, **_page_extras(request, game)})


def _small_int(raw: str | None, low: int, high: int, *, default: int) -> int | None:
    """A form integer in low..high; blank gives the default, anything else None."""
    text = (raw or "").strip()
    if not text:
        return default
    if not _SMALL_INT.fullmatch(text):
        return None
    value = int(text)
    return value if low <= value <= high else None


# --- rendering --------------------------------------------------------------------------------


def _console_response(request: HttpRequest, game: Game, *, error: str = "", notice: str = "", status: int = 200, just_done: bool = False) -> HttpResponse:
    ctx = console_context(game)
    if just_done and ctx["lines"]:
        notice = ctx["lines"][-1].full
        ctx["answer"] = _answer(ctx["state"], ctx["lines"][-1].index)
    ctx["error"] = error
    ctx["notice"] = notice
    response = render(request, f"{CONSOLE}#console", ctx, status=status)
    return response


def _answer(state: Any, index: int) -> str:
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
    remaining = services.clock_remaining_ms(game, now)
    running = game.clock_started_at is not None and game.timeout_since is None
    deadline = services.clock_deadline(game)
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


def _page_extras(request: HttpRequest, game: Game) -> dict[str, Any]:
    """What only the full page needs: links, the overlay, the penalty catalogue."""
    board = _reverse_or("board:board", game.pk, fallback=f"/games/{game.pk}/board/")
    overlay = ""
    if game.overlay_token:
        overlay = _reverse_or("board:overlay", game.pk, game.overlay_token, fallback=f"/games/{game.pk}/overlay/{game.overlay_token}/")
        overlay = request.build_absolute_uri(overlay)
    lang_en = (getattr(request, "LANGUAGE_CODE", "ru") or "ru").startswith("en")
    reasons: dict[str, list[dict[str, str]]] = {k: [] for k in PENALTY_ORDER}
    for r in PENALTY_REASONS:
        reasons.setdefault(r["penalty"], []).append({"code": r["code"], "text": r["text_en"] if lang_en else r["text_ru"], "rule": r["rule"], "penalty": r["penalty"]})
    return {
        "board_url": board,
        "board_abs_url": request.build_absolute_uri(board),
        "overlay_url": overlay,
        "xlsx_url": _reverse_or("exports:protocol_xlsx", game.pk, fallback=f"/games/{game.pk}/protocol.xlsx"),
        "json_url": _reverse_or("exports:log_json", game.pk, fallback=f"/games/{game.pk}/log.json"),
        "js_i18n": {t: gettext(t) for t in JS_TEXTS},
        "reason_groups": [(kind, pt.penalty_name(kind), reasons.get(kind, [])) for kind in PENALTY_ORDER],
    }


def replayed(game: Game) -> tuple[pt.Replayed, list[int]]:
    """The game's state and protocol lines, reusing what this process saw before.

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

    # created_at too: a test database that rolls back may give a new game an old pk.
    return pt.replay_lines(load, services.game_regulations(game), seqs, cache_key=(game.pk, game.created_at)), seqs


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
                "role_name": pt.role_name(role) if role and role != "civilian" else "",
                "role_short": pt.role_short(role),
                "team": "black" if role in ("don", "mafia") else "red",
                "at_table": no in state.at_table,
                "left": entry,
                "left_text": f"{pt.left_how_text(entry['how'])} · {pt.when_text(entry['day'], entry['phase'])}" if entry else "",
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
        "urls": {name: reverse(f"games:{view}", args=[pk]) for name, view in (("act", "act"), ("undo", "undo"), ("clock", "clock"), ("fragment", "console_fragment"), ("tech_pause_end", "tech_pause_end"))},
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
        "replay_error": pt.violation_text(rep.error) if rep.error else pt.refused_summary(rep.refused, seqs),
        "decided_winner": pt.winner_text(state.winner) if state.winner and state.status == "running" else "",
        "step_key": pt.step_key(state),
        "deliberate_step": state.status == "running" and state.step in pt.DELIBERATE_NEXT_STEPS,
        "cancelled_votes": pt.cancelled_votes(state),
        # Played while the step's own clock waits for them (issue 26-2); once it
        # started (here or on the host's other device) the wake-ups are over.
        "ghost_captains": pt.ghost_captains(state) if game.clock_started_at is None and game.clock_elapsed_ms == 0 else [],
        # Issue 26-4: the step's clock waits, full, for the host's Space after
        # his «В городе ночь» / «Доброе утро» (started, it is an ordinary step).
        "clock_waits": _clock_waits_for_host(game, state),
        "named_in_speech": pt.named_in_speech(state),
    }
    ctx.update(_panel_context(state, by_do, seats, roles))
    ctx.update(_side_context(game, state, by_do, last_action, seqs))
    return ctx


def _clock_waits_for_host(game: Game, state: Any) -> bool:
    full_and_paused = game.clock_duration_ms > 0 and game.clock_started_at is None and game.clock_elapsed_ms == 0 and game.timeout_since is None
    return full_and_paused and script.host_speaks_first(state)


def _panel_context(state: Any, by_do: dict[str, dict[str, Any]], seats: list[dict[str, Any]], roles: dict[int, str]) -> dict[str, Any]:
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
            "blacks": [{"seat": b, "role": pt.role_name(roles.get(b))} for b in v["blacks"]],
            "targets": v["targets"],
            "key": f"shots-{state.day}-{'_'.join(map(str, v['blacks']))}-{'_'.join(map(str, v['targets']))}",
        }
    elif step in ("don_check", "sheriff_check"):
        v = by_do[step]
        ctx["check"] = {"by": step, "seat": v.get("seat"), "targets": v["targets"]}
    elif step == "best_move":
        v = by_do["best_move"]
        ctx["best"] = {"seat": v.get("seat"), "targets": v["targets"], "max": v.get("max", 3), "key": f"best-{state.day}-{v.get('seat')}"}
    if state.phase == "night" and state.day:
        night_checks = [c for c in state.record.checks if c.get("night") == state.day]
        ctx["night_checks"] = [
            {"by": c["by"], "target": c["target"], "answer": pt.check_answer(c), "captain": state.seat_of(c["by"])} for c in night_checks
        ]
        shots = [s for s in state.record.shots if s.get("night") == state.day]
        ctx["night_shot"] = shots[-1] if shots else None
    return ctx


def _side_context(game: Game, state: Any, by_do: dict[str, dict[str, Any]], last_action: dict[str, Any] | None, seqs: list[int]) -> dict[str, Any]:
    """Winks (N12), technical pauses (D7), undo."""
    r = state.regulations
    wink = by_do.get("wink")
    winkers = []
    if state.status == "running":
        for seat, role in sorted((int(k), v) for k, v in (state.roles or {}).items()):
            if role in ("sheriff", "don", "mafia") and seat in state.at_table:
                used = state.winks.get(seat, 0)
                winkers.append({"seat": seat, "role": pt.role_name(role), "used": used, "left": max(0, r.winks_per_player - used), "can": bool(wink and seat in wink["by"])})
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
