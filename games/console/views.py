"""The host's pages: thin HTMX views that parse, call a service, render a partial.

The console is one page; every host action is a POST to `act` with the
action's fields and `expected_seq` (the revision the page shows, Game.seq),
answered with the console fragment (`console.html#console`). A refusal —
a rule (RuleViolation), a malformed field, a stale page — is answered with
the same fragment, an error naming the rule or the field, and a 4xx status
that the page's htmx config swaps; nothing is changed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from games import services
from games.console import protocol_text as pt
from games.console.context import (
    answer,
    clock_context,
    clock_signature,
    console_context,
    page_extras,
    replayed,
)
from games.console.forms import (
    ActionFormError,
    GameCreateForm,
    parse_action,
    parse_expected_seq,
)
from games.models import Game, GameSeat
from games.permissions import user_can_edit_game, user_may_host_rated_games
from games.rules import RuleViolation
from games.rules.nicknames import nickname_sort_key

CONSOLE = "games/console.html"
logger = logging.getLogger(__name__)
_SMALL_INT = re.compile(r"[+-]?[0-9]{1,6}")
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
    games = (
        Game.objects.filter(host_id=request.user.pk).select_related("tournament_table").order_by("-created_at")[:200]
    )
    # Only a host staff trust may mark a game rated (players/trust.py); others see no button.
    return render(
        request, "games/game_list.html", {"games": games, "may_host_rated": user_may_host_rated_games(request.user)}
    )


@host_required
@require_http_methods(["GET", "POST"])
def game_create(request: HttpRequest) -> HttpResponse:
    # Imported here: players builds on games, not the other way round.
    from players import discipline
    from players import names as player_services

    form = GameCreateForm(request.POST or None)
    matching = None
    if (
        request.method == "POST"
        and form.is_valid()
        and form.cleaned_data.get("rated")
        and not user_may_host_rated_games(request.user)
    ):
        # Refused before anything is stored: the host unticks it or asks staff (players/trust.py).
        form.add_error(
            "rated",
            gettext(
                "Рейтинговые игры ведут только ведущие, которым это разрешили администраторы клуба (право «может вести рейтинговые игры»); турнирные игры учитываются всегда."
            ),
        )
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
                game = services.game_create(
                    host=request.user, title=form.cleaned_data["title"], players=players, seating_seed=seed
                )
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
    return render(
        request,
        "games/game_create.html",
        {
            "form": form,
            "known_nicknames": [k["nickname"] for k in ordered],
            "pending_players": pending,
            "ban_refused": ban_refused,
            "may_override_ban": ban_refused and discipline.may_override(request.user),
        },
    )


# --- the console ----------------------------------------------------------------------------


@host_required
def game_console(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    ctx = console_context(game)
    ctx["page"] = True
    ctx.update(page_extras(request, game))
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
            raise ActionFormError(
                "players", gettext("S1: рассадку турнирной игры задаёт турнир — её меняют на странице тура")
            )
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

    ids = [
        m.player.player_id
        for m in player_services.players_match(nicknames=nicknames)
        if m.status == "known" and m.player is not None
    ]
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
        logger.exception(
            "game %s: the change was committed (revision %s) but the console could not be drawn", game.pk, game.seq
        )
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
    return _after_commit(
        request, game, lambda: _console_response(request, game, notice=gettext("Отменено: %(what)s") % {"what": what})
    )


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
    return _after_commit(
        request, game, lambda: _console_response(request, game, notice=gettext("Технический перерыв окончен досрочно."))
    )


def _clock_response(request: HttpRequest, game: Game, command: str) -> HttpResponse:
    if command in ("timeout", "end_timeout", "start"):
        # D8 changes the banner and the controls as well as the clock; "start"
        # ends the script steps before a waiting clock (issue 26-2).
        return _console_response(request, game)
    urls = {
        "clock": reverse("games:clock", args=[game.pk]),
        "fragment": reverse("games:console_fragment", args=[game.pk]),
    }
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
        return HttpResponse(
            gettext("Настройки оверлея: enabled 0 или 1, задержка — целое число секунд от 0 до 600."), status=422
        )
    enabled = enabled_raw == "1"
    # Keep the link the stream already uses unless a new one is asked for.
    keep = rotate_raw != "1"
    confirm = request.POST.get("confirm_no_delay", "") in ("1", "on")
    try:
        services.game_set_overlay(
            game=game, by=request.user, enabled=enabled, delay_seconds=delay, keep_token=keep, confirm_no_delay=confirm
        )
    except services.OverlayDelayUnconfirmed:
        return HttpResponse(
            gettext(
                "Оверлей показывает роли: без задержки их увидит каждый игрок, который смотрит трансляцию. Отметьте «Без задержки — я понимаю» или задайте задержку больше, чем время, за которое игрок может увидеть трансляцию. Ничего не изменено."
            ),
            status=422,
        )
    return render(request, f"{CONSOLE}#share", {"game": game, **page_extras(request, game)})


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


def _console_response(
    request: HttpRequest, game: Game, *, error: str = "", notice: str = "", status: int = 200, just_done: bool = False
) -> HttpResponse:
    ctx = console_context(game)
    if just_done and ctx["lines"]:
        notice = ctx["lines"][-1].full
        ctx["answer"] = answer(ctx["state"], ctx["lines"][-1].index)
    ctx["error"] = error
    ctx["notice"] = notice
    response = render(request, f"{CONSOLE}#console", ctx, status=status)
    return response
