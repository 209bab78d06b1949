"""Public pages: player profiles, head-to-head, the leaderboard and the formula."""

from __future__ import annotations

import calendar
import functools
from collections.abc import Callable
from datetime import date
from io import BytesIO
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import vocabulary
from games.rules.nicknames import nickname_sort_key
from players import chart, decisions, discipline, leaderboard, page_rows, services, trust
from players.leaderboard import TABS, Filters
from players.models import (
    DisciplineRecord,
    LinkDecision,
    Player,
    PlayerGame,
    PlayerMerge,
    PlayerStats,
)
from players.rating import UNCERTAINTY, RatingSettings, uncertainty
from players.statistics import COUNTERS, Line, role_rows

# While a rebuild (manage.py recompute_ratings) rewrites the stored ratings
# tables, PostgreSQL holds them to its commit (their indexes are dropped and
# built again: ~10 s at 100,000 games). A page that reads them waits this long
# at most, then answers 503 "busy, again in a few seconds" (mafia_protocol.errors)
# instead of holding one of the worker's pooled connections to the end of the
# rebuild: a crowd of readers would hold all of them, and the host's next click
# would wait for a connection. (The games' and players' tables are never held.)
RATINGS_LOCK_WAIT = "2s"


def reads_ratings(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page that reads the stored ratings rows waits at most RATINGS_LOCK_WAIT for a lock."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if connection.vendor != "postgresql":
            return view(request, *args, **kwargs)  # SQLite: readers beside the writer (WAL), no table locks
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{RATINGS_LOCK_WAIT}'")
            return view(request, *args, **kwargs)

    return wrapped


def _player_or_redirect(pk: int) -> Player | HttpResponse:
    player = Player.objects.filter(pk=pk).first()
    if player is not None:
        return player
    merge = PlayerMerge.objects.filter(merged_player_id=pk).first()
    if merge is not None:
        return redirect("players:detail", pk=merge.kept_id)
    raise Http404


def rated_refusal() -> str:
    return _(
        "Рейтинговые игры ведут только ведущие, которым это разрешили администраторы клуба (право «может вести рейтинговые игры»); турнирные игры учитываются всегда."
    )


def _staff(request: HttpRequest) -> None:
    if not (request.user.is_authenticated and request.user.is_staff):
        raise PermissionDenied(_("Переименовывать и объединять игроков могут только администраторы."))


@require_POST
def player_rename(request: HttpRequest, pk: int) -> HttpResponse:
    _staff(request)
    player = get_object_or_404(Player, pk=pk)
    try:
        services.player_rename(player=player, nickname=request.POST.get("nickname", ""))
    except services.PlayerError as exc:
        messages.error(request, exc.message)
    return redirect("players:detail", pk=player.pk)


@require_POST
def player_merge(request: HttpRequest, pk: int) -> HttpResponse:
    """Join the chosen duplicate into this player (its games and participations move here)."""
    _staff(request)
    kept = get_object_or_404(Player, pk=pk)
    # The duplicate is picked from the suggestions (his id); a typed nickname or id still works.
    picked = str(request.POST.get("duplicate", "")).strip() or str(request.POST.get("duplicate_other", ""))
    duplicate = decisions.find_player(picked[:64]) if picked.strip() else None
    if duplicate is not None and duplicate.pk == kept.pk:
        duplicate = None
    if duplicate is None:
        messages.error(request, _("Выберите игрока, которого нужно присоединить."))
    else:
        try:
            services.player_merge(duplicate=duplicate, into=kept, by=request.user)
        except services.PlayerError as exc:
            messages.error(request, exc.message)
    return redirect("players:detail", pk=kept.pk)


@require_POST
def game_rated(request: HttpRequest, game_id: int) -> HttpResponse:
    """The host marks his game as counted for the rating (or not); a finished game's
    ratings follow at once (games.services.game_set_rated → players.book)."""
    from games import services as game_services
    from games.models import Game
    from games.permissions import user_can_edit_game

    game = get_object_or_404(Game, pk=game_id)
    if not user_can_edit_game(request.user, game):
        raise PermissionDenied(_("Эту игру может вести только её ведущий или организатор турнира."))
    rated = request.POST.get("rated") == "1"
    if rated and not trust.user_may_host_rated_games(request.user):
        # Unmarking stays open to every host: it can only take his game out.
        raise PermissionDenied(rated_refusal())
    game_services.game_set_rated(game=game, rated=rated)
    back = str(request.POST.get("next", ""))
    # Only a path on this site (never //elsewhere).
    return redirect(back if back.startswith("/") and not back.startswith("//") else "games:list")


@reads_ratings
def player_list(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()[:64]
    players = Player.objects.select_related("stats")
    if q:
        players = players.filter(Q(nickname__icontains=q) | Q(aliases__nickname__icontains=q)).distinct()
    return render(
        request,
        "players/list.html",
        {"players": sorted(players.order_by("nickname")[:200], key=lambda p: nickname_sort_key(p.nickname)), "q": q},
    )


def _totals(player: Player) -> tuple[Line, PlayerStats | None]:
    stats = PlayerStats.objects.filter(player=player).first()
    line = Line()
    if stats is not None:
        line.add({n: getattr(stats, n) for n in COUNTERS})
    return line, stats


@reads_ratings
def player_detail(request: HttpRequest, pk: int) -> HttpResponse:
    found = _player_or_redirect(pk)
    if isinstance(found, HttpResponse):
        return found
    player = found
    line, stats = _totals(player)
    history = list(
        PlayerGame.objects.filter(player=player, rated=True)
        .order_by("finished_at", "game_id")
        .values_list("finished_at", "rating_after", "game_id")
    )
    # The n-th counted game's point carries the typical error after n games.
    rated = [(n, at, float(r)) for n, (at, r, _g) in enumerate(history, start=1) if r is not None]
    shown = rated[-chart.MAX_POINTS :]  # the chart draws the latest points only: only those get a date label
    day = page_rows.short_dates(local=False)
    points = [chart.Point(day(at), r) for _n, at, r in shown]
    band = [uncertainty(n) for n, _at, _r in shown]
    svg = ""
    if points:
        desc = _("Рейтинг после каждой учтённой игры: от %(first)s до %(last)s, сейчас %(now)s; полоса — обычная погрешность после такого числа игр (сейчас ±%(err)s).") % {
            "first": f"{rated[0][2]:.0f}", "last": f"{points[-1].value:.0f}", "now": f"{points[-1].value:.0f}", "err": f"{band[-1]:.0f}",
        }  # fmt: skip
        svg = chart.rating_svg(
            points, title=_("История рейтинга: %(nick)s") % {"nick": player.nickname}, desc=desc, band=band
        )
    # The latest 100 as plain values (no model instances): the game's title and
    # whether the line is a draw are the two values read through a join.
    games = list(
        PlayerGame.objects.filter(player=player)
        .order_by("-finished_at", "-game_id")
        .values_list(*page_rows.GAME_ROW_VALUES)[:100]
    )
    per_game = line.fouls / line.games if line.games else None
    return render(
        request,
        "players/detail.html",
        {
            "player": player,
            "stats": stats,
            "provisional": stats is not None
            and stats.rating is not None
            and stats.rated_games < leaderboard.provisional_games(),
            "provisional_games": leaderboard.provisional_games(),
            "uncertainty": uncertainty(stats.rated_games) if stats is not None else None,
            "line": line,
            "roles": role_rows(line),
            "fouls_per_game": per_game,
            "chart": svg,
            "history": page_rows.history_rows([(day(at), r, g) for at, r, g in history[-50:]][::-1]),
            "games": page_rows.game_rows(games),
            "aliases": list(player.aliases.all()),
            "merges": list(player.merges.all()),
            "duplicates": decisions.duplicate_suggestions(player)
            if request.user.is_authenticated and request.user.is_staff
            else [],
            "discipline": list(
                DisciplineRecord.objects.filter(player=player)
                .select_related("game", "host", "lifted_by")
                .prefetch_related("overrides")
            ),
            "discipline_counts": discipline.counts_by_tournament(player),
            "now": timezone.now(),
        },
    )


def head_to_head_pick(request: HttpRequest, pk: int) -> HttpResponse:
    """The other player by nickname (exact, aliases, case and ё/е insensitive)."""
    other = services.player_by_nickname(str(request.GET.get("nick", ""))[:64])
    if other is None:
        messages.error(request, _("Игрок с таким ником не найден."))
        return redirect("players:detail", pk=pk)
    return redirect("players:head_to_head", pk=pk, other=other.pk)


@reads_ratings
def head_to_head(request: HttpRequest, pk: int, other: int) -> HttpResponse:
    a = get_object_or_404(Player, pk=pk)
    b = get_object_or_404(Player, pk=other)
    mine = {g.game_id: g for g in PlayerGame.objects.filter(player=a).select_related("game")}
    theirs = {g.game_id: g for g in PlayerGame.objects.filter(player=b, game_id__in=list(mine))}
    rows = []
    summary = {"together": 0, "teammates": 0, "teammates_won": 0, "opponents": 0, "a_won": 0, "b_won": 0, "draws": 0}
    for gid in sorted(theirs, key=lambda g: (mine[g].finished_at, g), reverse=True):
        ga, gb = mine[gid], theirs[gid]
        same = ga.team == gb.team
        summary["together"] += 1
        if same:
            summary["teammates"] += 1
            summary["teammates_won"] += int(ga.won)
        else:
            summary["opponents"] += 1
            summary["a_won"] += int(ga.won)
            summary["b_won"] += int(gb.won)
            summary["draws"] += int(not ga.won and not gb.won)
        rows.append({"game": ga.game, "a": ga, "b": gb, "same": same})
    return render(request, "players/head_to_head.html", {"a": a, "b": b, "rows": rows, "summary": summary})


def _date(value: str, *, end: bool = False) -> date | None:
    """A day (YYYY-MM-DD) or a month (YYYY-MM: its first day, or its last one for the
    season's end); anything else is no bound."""
    try:
        if len(value) == 7:
            first = date.fromisoformat(value + "-01")
            return first.replace(day=calendar.monthrange(first.year, first.month)[1]) if end else first
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _filters(request: HttpRequest) -> Filters:
    tab = request.GET.get("tab", "rating")
    try:
        min_games = max(0, min(10000, int(request.GET.get("min", "0") or 0)))
    except ValueError:
        min_games = 0
    try:
        page = max(1, min(100000, int(request.GET.get("page", "1") or 1)))
    except ValueError:
        page = 1
    return Filters(
        tab=tab if tab in TABS else "rating", start=_date(request.GET.get("from", "")), end=_date(request.GET.get("to", ""), end=True),
        min_games=min_games, page=page, show_provisional=request.GET.get("provisional") == "1",
    )  # fmt: skip


@reads_ratings
def ratings(request: HttpRequest) -> HttpResponse:
    f = _filters(request)
    rows, count = leaderboard.leaderboard(f)
    pages = max(1, (count + f.limit - 1) // f.limit)
    base = request.GET.copy()
    base.pop("page", None)
    base.pop("fragment", None)
    ctx: dict[str, Any] = {
        "rows": page_rows.leaderboard_rows(rows, tab=f.tab, season=f.season),
        "count": count,
        "f": f,
        "tabs": [(t, _tab_label(t)) for t in TABS],
        "query": request.GET.urlencode(),
        "base_query": base.urlencode(),
        "prev_page": f.page - 1 if f.page > 1 else None,
        "next_page": f.page + 1 if f.page < pages else None,
        "pages": pages,
        "provisional_games": leaderboard.provisional_games(),
        "month_season": f.whole_months is not None,
        "current_season": _current_season(),
        "toggle_provisional_query": _toggled(base, "provisional", "1"),
    }
    if request.GET.get("fragment") or getattr(request, "htmx", False):
        return render(request, "players/ratings.html#leaderboard", ctx)
    return render(request, "players/ratings.html", ctx)


def _current_season() -> dict[str, str]:
    """The current season's bounds for the form: this calendar year up to this month."""
    from django.utils import timezone

    today = timezone.localdate()
    return {"from": f"{today.year}-01", "to": f"{today:%Y-%m}"}


def _toggled(query: Any, key: str, value: str) -> str:
    q = query.copy()
    if q.get(key) == value:
        q.pop(key)
    else:
        q[key] = value
    return str(q.urlencode())


def _tab_label(tab: str) -> str:
    return str(_("Рейтинг")) if tab == "rating" else vocabulary.ROLES(tab)


@reads_ratings
def ratings_xlsx(request: HttpRequest) -> HttpResponse:
    from openpyxl import Workbook

    from players import xlsx

    f = _filters(request)
    f.page, f.limit = 1, 100000  # the whole ranking
    rows, _count = leaderboard.leaderboard(f)
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = _tab_label(f.tab)[:31]
    xlsx.write_row(
        ws,
        1,
        [
            "#",
            _("Игрок"),
            _("Рейтинг"),
            _("Учтено игр"),
            _("Игры"),
            _("Победы"),
            *(vocabulary.ROLES(r) for r in ("civilian", "sheriff", "mafia", "don")),
        ],
    )
    for i, r in enumerate(rows, start=2):
        roles = [f"{r.role(role)[0]}/{r.role(role)[1]}" for role in ("civilian", "sheriff", "mafia", "don")]
        xlsx.write_row(
            ws,
            i,
            [
                r.rank,
                r.nickname,
                round(r.rating, 1) if r.rating is not None else None,
                r.rated_games,
                r.games,
                r.wins,
                *roles,
            ],
        )
    out = BytesIO()
    wb.save(out)
    response = HttpResponse(
        out.getvalue(), content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    response["Content-Disposition"] = 'attachment; filename="ratings.xlsx"'
    return response


def untrusted_rated(request: HttpRequest) -> HttpResponse:
    """Staff: casual games marked rated by hosts without the right; they count for nobody."""
    if not (request.user.is_authenticated and request.user.is_staff):
        raise PermissionDenied(_("Этот список видят только администраторы."))
    return render(request, "players/untrusted.html", {"games": trust.untrusted_rated_games()[:500]})


def how_rating_works(request: HttpRequest) -> HttpResponse:
    from django.conf import settings

    conf = RatingSettings(
        k=float(getattr(settings, "PLAYERS_RATING_K", 20.0)),
        initial=float(getattr(settings, "PLAYERS_RATING_INITIAL", 1500.0)),
    )
    return render(
        request,
        "players/how.html",
        {"conf": conf, "provisional_games": leaderboard.provisional_games(), "uncertainty_table": UNCERTAINTY},
    )


def pending(request: HttpRequest) -> HttpResponse:
    """The decision queue: every seat and participant this user may decide, with its suggestions."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    rows = decisions.pending_rows(request.user)
    recent = LinkDecision.objects.select_related("player").filter(by=request.user)[:20]
    user: Any = request.user
    twins = services.duplicate_participants(tournaments=None if user.is_staff else user.organized_tournaments.all())
    return render(request, "players/pending.html", {"rows": rows, "recent": recent, "twins": twins})


@require_POST
def pending_fold(request: HttpRequest) -> HttpResponse:
    """The organizer keeps one of two participants who are one player (both played)."""
    from tournaments.models import Participant

    ids = []
    for name in ("keep", "drop"):
        try:
            ids.append(int(str(request.POST.get(name, ""))))
        except ValueError:
            ids.append(0)
    found = Participant.objects.select_related("tournament").in_bulk(ids)
    keep, drop = found.get(ids[0]), found.get(ids[1])
    user: Any = request.user
    if (
        keep is None
        or drop is None
        or not (user.is_authenticated and (user.is_staff or keep.tournament.is_organizer(user)))
    ):
        messages.error(request, _("Эту пару участников объединить нельзя: её уже решили, или турнир не ваш."))
        return redirect("players:pending")
    try:
        services.participants_fold(keep=keep, drop=drop)
    except services.PlayerError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Оставлен участник «%(nick)s»; игры второго теперь его.") % {"nick": keep.nickname})
    return redirect("players:pending")


@require_POST
def pending_decide(request: HttpRequest) -> HttpResponse:
    """One decision: `choice` is a player id (a suggestion), `new` (create one) or
    `search` (the player named in `nick`: his id or his nickname)."""
    kind = str(request.POST.get("kind", ""))
    try:
        pk = int(str(request.POST.get("pk", "")))
    except ValueError:
        pk = 0
    if kind not in (LinkDecision.SEAT, LinkDecision.PARTICIPANT) or not decisions.user_can_decide(
        request.user, kind, pk
    ):
        messages.error(request, _("Эту запись решать нельзя: её уже решили, или она не из ваших игр и турниров."))
        return redirect("players:pending")
    choice = str(request.POST.get("choice", ""))
    player = None
    if choice == "search":
        player = decisions.find_player(str(request.POST.get("nick", ""))[:64])
        if player is None:
            messages.error(request, _("Игрок не найден: укажите его точный ник или номер."))
            return redirect("players:pending")
    elif choice.isdigit():
        player = Player.objects.filter(pk=int(choice)).first()
    elif choice != services.NEW_CHOICE:
        messages.error(request, _("Выберите игрока или создайте нового."))
        return redirect("players:pending")
    try:
        decision = decisions.decide(
            kind=kind, pk=pk, player=player, create=choice == services.NEW_CHOICE, by=request.user
        )
    except services.PlayerError as exc:
        messages.error(request, exc.message)
        return redirect("players:pending")
    messages.success(
        request, _("«%(nick)s» — это %(player)s.") % {"nick": decision.nickname, "player": decision.player.nickname}
    )
    return redirect("players:pending")


def discipline_page(request: HttpRequest) -> HttpResponse:
    """The club's discipline: active bans (F4) first, then the latest records."""
    now = timezone.now()
    return render(
        request,
        "players/discipline.html",
        {
            "bans": discipline.active_bans(now=now),
            "records": DisciplineRecord.objects.select_related("player", "game", "host", "lifted_by")[:100],
            "may_lift": discipline.may_override(request.user),
            "now": now,
        },
    )


@require_POST
def discipline_lift(request: HttpRequest, pk: int) -> HttpResponse:
    """An organizer lifts a reprimand or a ban (e.g. of an annulled game, W6), with a reason."""
    record = get_object_or_404(DisciplineRecord.objects.select_related("game"), pk=pk)
    table = getattr(record.game, "tournament_table", None)
    tournament = table.round.stage.tournament if table is not None else None
    if not discipline.may_override(request.user, tournament):
        raise PermissionDenied(_("Снять выговор или запрет может только организатор."))
    reason = str(request.POST.get("reason", ""))[:300]
    if not reason.strip():
        messages.error(request, _("Укажите причину: она записывается."))
    elif record.lifted_at is None:
        discipline.record_lift(record=record, reason=reason, by=request.user)
    return redirect("players:discipline")
