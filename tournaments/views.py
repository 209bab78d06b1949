"""Organizer and public pages of tournaments: thin views over tournaments.services.

Organizer pages change things (403 for anyone else: organizers are the
tournament's `organizers` and superusers); the standings, a player's history
and the workbook are public (they hold only finished games: roles are revealed
once a game ends). HTMX posts are answered with the partial they change.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.models import Game
from games.permissions import user_can_edit_game
from games.rules.nicknames import nickname_sort_key
from games.rules.regulations import Regulations
from players import services as players_services
from tournaments import exports, services, standings, visibility
from tournaments.forms import (
    PRESET_LABELS,
    TIEBREAKER_LABELS,
    HostForm,
    ParticipantsForm,
    PolicyForm,
    RegulationsForm,
    SeatingForm,
    StageForm,
    TournamentCreateForm,
    TournamentSettingsForm,
)
from tournaments.models import (
    ExtraPoints,
    Participant,
    Round,
    Stage,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.scoring import PRESETS, ScoringPolicy, preset

# --- access ------------------------------------------------------------------------------------


def _tournament(pk: int) -> Tournament:
    return get_object_or_404(Tournament, pk=pk)


def _organized(request: HttpRequest, pk: int) -> Tournament:
    t = _tournament(pk)
    if not t.is_organizer(request.user):
        raise PermissionDenied(_("Это может делать только организатор турнира."))
    return t


def _is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


# --- list, create, dashboard -------------------------------------------------------------------


@login_required
def tournament_list(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
    mine = Tournament.objects.filter(Q(organizers=user) | Q(stages__rounds__tables__host=user)).distinct()
    others = Tournament.objects.exclude(pk__in=mine.values("pk"))[:50]
    return render(request, "tournaments/list.html", {"mine": mine, "others": others})


@login_required
@require_http_methods(["GET", "POST"])
def tournament_create(request: HttpRequest) -> HttpResponse:
    form = TournamentCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        t = services.tournament_create(
            name=d["name"], organizer=request.user, starts_on=d["starts_on"], ends_on=d["ends_on"], preset=d["preset"]
        )
        return redirect("tournaments:detail", pk=t.pk)
    return render(request, "tournaments/create.html", {"form": form})


PARTICIPANTS_PER_PAGE = 100


def _detail_context(request: HttpRequest, t: Tournament) -> dict[str, Any]:
    stages = list(t.stages.prefetch_related("rounds").order_by("order"))
    my_tables = []
    if request.user.is_authenticated:
        my_tables = list(
            Table.objects.filter(round__stage__tournament=t, host=request.user)
            .select_related("round__stage", "game")
            .order_by("round__stage__order", "round__number", "number")
        )
    is_organizer = t.is_organizer(request.user)
    participants = sorted(
        t.participants.select_related("user"), key=lambda p: nickname_sort_key(p.nickname)
    )  # Russian order, Ё beside Е
    # The list is shown a page at a time: a tournament may hold up to
    # services.MAX_PARTICIPANTS, and the page also carries the organizer's forms.
    page = Paginator(participants, PARTICIPANTS_PER_PAGE).get_page(request.GET.get("participants_page"))
    return {
        "tournament": t,
        "is_organizer": is_organizer,
        "participants": participants,
        "participants_page": page,
        # Participants whose player a person must choose (players app).
        # (the first PARTICIPANTS_PER_PAGE of them: the form is answered in batches)
        "unlinked": players_services.participants_link_known(participants=participants, link=False)[
            :PARTICIPANTS_PER_PAGE
        ]
        if is_organizer
        else [],
        "stages": stages,
        "participants_form": ParticipantsForm(),
        "stage_form": StageForm(),
        "my_tables": my_tables,
        "preset_label": PRESET_LABELS.get(t.scoring_preset, t.scoring_preset),
    }


@login_required
def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(pk)
    return render(request, "tournaments/detail.html", _detail_context(request, t))


@login_required
@require_http_methods(["GET", "POST"])
def tournament_settings(request: HttpRequest, pk: int) -> HttpResponse:
    t = _organized(request, pk)
    regs = Regulations.from_dict(t.regulations or {})
    if request.method == "POST":
        form = TournamentSettingsForm(request.POST)
        reg_form = RegulationsForm(request.POST, initial_regs=regs, prefix="reg")
        if form.is_valid() and reg_form.is_valid():
            d = form.cleaned_data
            with transaction.atomic():
                t.name, t.starts_on, t.ends_on = d["name"], d["starts_on"], d["ends_on"]
                t.save(update_fields=["name", "starts_on", "ends_on"])
                organizers = d["organizers"] or [request.user]
                t.organizers.set(organizers)
                services.tournament_set_regulations(tournament=t, regulations=reg_form.regulations())
            messages.success(request, _("Настройки сохранены."))
            return redirect("tournaments:detail", pk=t.pk)
    else:
        form = TournamentSettingsForm(
            initial={
                "name": t.name,
                "starts_on": t.starts_on,
                "ends_on": t.ends_on,
                "organizers": ", ".join(u.username for u in t.organizers.all()),
            }
        )
        reg_form = RegulationsForm(initial_regs=regs, prefix="reg")
    return render(request, "tournaments/settings.html", {"tournament": t, "form": form, "reg_form": reg_form})


# --- participants --------------------------------------------------------------------------------


@login_required
@require_POST
def participants_add(request: HttpRequest, pk: int) -> HttpResponse:
    t = _organized(request, pk)
    form = ParticipantsForm(request.POST, request.FILES)
    result = None
    error = ""
    if form.is_valid():
        entries: list[tuple[str, str]] = []
        try:
            if form.cleaned_data.get("text"):
                entries += services.parse_participants_text(form.cleaned_data["text"])
            upload = form.cleaned_data.get("file")
            if upload is not None:
                entries += services.parse_participants_file(upload.name, upload.read())
            result = services.participants_add(tournament=t, entries=entries)
            players_services.participants_link_known(participants=result.created)
            form = ParticipantsForm()
        except services.TournamentError as exc:
            error = exc.message
    ctx = _detail_context(request, t) | {"participants_form": form, "import_result": result, "import_error": error}
    if _is_htmx(request):
        return render(
            request, "tournaments/detail.html#participants", ctx, status=200 if not (form.errors or error) else 422
        )
    return render(request, "tournaments/detail.html", ctx)


@login_required
@require_POST
def participants_players(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer's choice of player for participants that matched nobody exactly."""
    t = _organized(request, pk)
    choices = {
        int(k.removeprefix("player-")): str(v)
        for k, v in request.POST.items()
        if k.startswith("player-") and k.removeprefix("player-").isdigit() and v
    }
    error = ""
    try:
        players_services.participants_confirm(tournament=t, choices=choices, by=request.user)
    except players_services.PlayerError as exc:
        error = exc.message
    ctx = _detail_context(request, t) | {"import_error": error}
    if _is_htmx(request):
        return render(request, "tournaments/detail.html#participants", ctx, status=422 if error else 200)
    return redirect("tournaments:detail", pk=t.pk)


@login_required
@require_POST
def participant_toggle(request: HttpRequest, pk: int, pid: int) -> HttpResponse:
    t = _organized(request, pk)
    p = get_object_or_404(Participant, pk=pid, tournament=t)
    services.participant_set_active(participant=p, active=not p.active)
    ctx = _detail_context(request, t)
    if _is_htmx(request):
        return render(request, "tournaments/detail.html#participants", ctx)
    return redirect("tournaments:detail", pk=t.pk)


# --- stages, rounds, tables ------------------------------------------------------------------------


@login_required
@require_POST
def stage_create(request: HttpRequest, pk: int) -> HttpResponse:
    t = _organized(request, pk)
    form = StageForm(request.POST)
    if form.is_valid():
        stage = services.stage_create(tournament=t, name=form.cleaned_data["name"])
        return redirect("tournaments:stage", pk=t.pk, sid=stage.pk)
    return redirect("tournaments:detail", pk=t.pk)


def _stage_context(request: HttpRequest, t: Tournament, stage: Stage, **extra: Any) -> dict[str, Any]:
    rounds = list(
        stage.rounds.order_by("number").prefetch_related("tables__seats__participant", "tables__host", "tables__game")
    )
    table_numbers = sorted({tb.number for r in rounds for tb in r.tables.all()})
    hosts: dict[int, Any] = {}
    for r in rounds:
        for tb in r.tables.all():
            if tb.host and tb.number not in hosts:
                hosts[tb.number] = tb.host
    started = any(tb.game_id for r in rounds for tb in r.tables.all())
    return {
        "tournament": t,
        "stage": stage,
        "rounds": rounds,
        "is_organizer": t.is_organizer(request.user),
        "table_numbers": table_numbers,
        "stage_hosts": [(n, hosts.get(n)) for n in table_numbers],
        "seating_form": SeatingForm(initial={"rounds": len(rounds) or 10}),
        "started": started,
        "quality": stage.seating_quality,
        "usernames": _usernames(),
        **extra,
    }


def _usernames() -> list[str]:
    return list(
        get_user_model().objects.filter(is_active=True).order_by("username").values_list("username", flat=True)[:500]
    )


@login_required
def stage_detail(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    t = _tournament(pk)
    stage = get_object_or_404(Stage, pk=sid, tournament=t)
    return render(request, "tournaments/stage.html", _stage_context(request, t, stage))


@login_required
@require_POST
def stage_seating(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    t = _organized(request, pk)
    stage = get_object_or_404(Stage, pk=sid, tournament=t)
    form = SeatingForm(request.POST)
    if form.is_valid():
        try:
            services.stage_generate_seating(
                stage=stage,
                rounds=form.cleaned_data["rounds"],
                seed=form.cleaned_data["seed"] or "",
                other_tournaments=form.cleaned_data["other_tournaments"],
            )
            messages.success(request, _("Рассадка построена (зерно %(seed)s).") % {"seed": stage.seating_seed})
        except services.TournamentError as exc:
            messages.error(request, exc.message)
    else:
        messages.error(request, _("Проверьте число туров."))
    return redirect("tournaments:stage", pk=t.pk, sid=stage.pk)


@login_required
@require_POST
def stage_host(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    t = _organized(request, pk)
    stage = get_object_or_404(Stage, pk=sid, tournament=t)
    form = HostForm(request.POST)
    try:
        number = int(request.POST.get("table_number", ""))
    except ValueError:
        number = 0
    if form.is_valid() and number > 0:
        n = services.stage_set_host(stage=stage, table_number=number, host=form.cleaned_data["host"])
        messages.success(request, _("Ведущий стола %(t)s назначен в %(n)s турах.") % {"t": number, "n": n})
    else:
        messages.error(
            request, "; ".join(str(e) for errs in form.errors.values() for e in errs) or _("Не указан стол.")
        )
    return redirect("tournaments:stage", pk=t.pk, sid=stage.pk)


@login_required
@require_POST
def round_create(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    t = _organized(request, pk)
    stage = get_object_or_404(Stage, pk=sid, tournament=t)
    try:
        tables = max(0, min(50, int(request.POST.get("tables", "0") or 0)))
    except ValueError:
        tables = 0
    rnd = services.round_create(stage=stage, tables=tables)
    return redirect("tournaments:round", pk=t.pk, rid=rnd.pk)


def _round_context(request: HttpRequest, t: Tournament, rnd: Round, **extra: Any) -> dict[str, Any]:
    tables = list(rnd.tables.order_by("number").select_related("host", "game").prefetch_related("seats__participant"))
    seated = {s.participant_id for tb in tables for s in tb.seats.all()}
    participants = sorted(
        t.participants.all(), key=lambda p: nickname_sort_key(p.nickname)
    )  # Russian order, Ё beside Е
    rows = []
    for tb in tables:
        by_seat = {s.seat_no: s.participant for s in tb.seats.all()}
        rows.append(
            {
                "table": tb,
                "seats": [(n, by_seat.get(n)) for n in range(1, 11)],
                "locked": tb.game is not None and tb.game.status != "setup",
            }
        )
    return {
        "tournament": t,
        "round": rnd,
        "stage": rnd.stage,
        "rows": rows,
        "participants": participants,
        "sitting_out": [p for p in participants if p.pk not in seated and p.active],
        "all_started": bool(tables) and all(tb.game is not None and tb.game.status != "annulled" for tb in tables),
        "is_organizer": t.is_organizer(request.user),
        "usernames": _usernames(),
        **extra,
    }


@login_required
def round_detail(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    t = _tournament(pk)
    rnd = get_object_or_404(Round, pk=rid, stage__tournament=t)
    return render(request, "tournaments/round.html", _round_context(request, t, rnd))


def _round_response(request: HttpRequest, t: Tournament, rnd: Round, status: int = 200, **extra: Any) -> HttpResponse:
    ctx = _round_context(request, t, rnd, **extra)
    if _is_htmx(request):
        return render(request, "tournaments/round.html#round-tables", ctx, status=status)
    for level, text in (("error", extra.get("error")), ("success", extra.get("notice"))):
        if text:
            getattr(messages, level)(request, text)
    return redirect("tournaments:round", pk=t.pk, rid=rnd.pk)


@login_required
@require_POST
def table_host(request: HttpRequest, pk: int, tid: int) -> HttpResponse:
    t = _organized(request, pk)
    table = get_object_or_404(Table, pk=tid, round__stage__tournament=t)
    form = HostForm(request.POST)
    if not form.is_valid():
        return _round_response(
            request, t, table.round, status=422, error="; ".join(str(e) for errs in form.errors.values() for e in errs)
        )
    services.table_set_host(table=table, host=form.cleaned_data["host"])
    return _round_response(request, t, table.round, notice=_("Ведущий стола %(n)s сохранён.") % {"n": table.number})


@login_required
@require_POST
def table_seat(request: HttpRequest, pk: int, tid: int) -> HttpResponse:
    t = _organized(request, pk)
    table = get_object_or_404(Table, pk=tid, round__stage__tournament=t)
    try:
        seat_no = int(request.POST.get("seat_no", ""))
        pid = request.POST.get("participant", "").strip()
        nickname = request.POST.get("nickname", "").strip()
        participant = None
        if pid:
            participant = get_object_or_404(Participant, pk=int(pid), tournament=t)
        elif nickname:
            participant = Participant.objects.filter(tournament=t, nickname__iexact=nickname).first()
            if participant is None:
                raise services.TournamentError(_("Нет участника «%(nick)s».") % {"nick": nickname}, "nickname")
        if participant is not None:
            services.table_seat_set(table=table, seat_no=seat_no, participant=participant, by=request.user)
        else:
            services.table_clear_seat(table=table, seat_no=seat_no, by=request.user)
    except ValueError as exc:
        message = (
            exc.message
            if isinstance(exc, services.TournamentError)
            else _("Поле «%(field)s»: нужно число.") % {"field": "seat_no"}
        )
        return _round_response(request, t, table.round, status=422, error=message)
    return _round_response(request, t, table.round, notice=_("Рассадка изменена."))


@login_required
@require_POST
def round_start(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    t = _organized(request, pk)
    rnd = get_object_or_404(Round, pk=rid, stage__tournament=t)
    result = services.round_start_games(
        round=rnd, by=request.user, ban_override_reason=str(request.POST.get("ban_override_reason", ""))[:300]
    )
    notice = _("Начато игр: %(n)s.") % {"n": len(result.started)}
    error = "; ".join(_("стол %(n)s: %(why)s") % {"n": tb.number, "why": why} for tb, why in result.skipped)
    return _round_response(request, t, rnd, notice=notice, error=error)


# --- scoring ---------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def scoring(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(pk)
    is_organizer = t.is_organizer(request.user)
    chosen = request.GET.get("preset", "")
    if request.method == "POST":
        if not is_organizer:
            raise PermissionDenied(_("Это может делать только организатор турнира."))
        form = PolicyForm(request.POST)
        if form.is_valid():
            try:
                policy = form.policy()
            except ValueError as exc:
                form.add_error(None, str(exc))
            else:
                label = request.POST.get("preset_name", "")
                kept = label if label in PRESETS and preset(label) == policy else ""
                services.tournament_set_policy(
                    tournament=t, policy=policy, by=request.user, preset=kept, note=form.cleaned_data.get("note", "")
                )
                messages.success(
                    request,
                    _("Система подсчёта сохранена (версия %(n)s); таблица пересчитана.") % {"n": t.scoring_revision},
                )
                return redirect("tournaments:scoring", pk=t.pk)
    elif chosen in PRESETS:
        form = PolicyForm(policy=preset(chosen))
    else:
        form = PolicyForm(policy=t.policy)
    return render(
        request,
        "tournaments/scoring.html",
        {
            "tournament": t,
            "form": form,
            "is_organizer": is_organizer,
            "presets": [(k, PRESET_LABELS.get(k, k)) for k in PRESETS],
            "chosen": chosen if chosen in PRESETS else t.scoring_preset,
            # Each revision with its preset's name (never the key, "cristalix").
            "revisions": [
                (rev, PRESET_LABELS.get(rev.preset, rev.preset))
                for rev in t.scoring_revisions.select_related("created_by")[:20]
            ],
            "policy": t.policy,
            "tiebreaker_labels": [TIEBREAKER_LABELS.get(k, k) for k in t.policy.tiebreakers],
        },
    )


# --- standings (public) -------------------------------------------------------------------------------


def standings_page(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(pk)
    stage = None
    sid = request.GET.get("stage", "")
    if sid.isdigit():
        stage = Stage.objects.filter(pk=int(sid), tournament=t).first()
    staff = visibility.sees_live_standings(t, request.user)
    data = standings.compute(t, stage=stage, public=not staff)
    is_organizer = t.is_organizer(request.user)
    ctx = {
        "tournament": t,
        "standings": data,
        "stage": stage,
        "stages": list(t.stages.order_by("order")),
        "live": stage is None,
        "is_organizer": is_organizer,
        "rounds": visibility.tournament_rounds(t) if is_organizer else [],
        "tiebreaker_labels": [TIEBREAKER_LABELS.get(k, k) for k in data.policy.tiebreakers],
    }
    if _is_htmx(request) or request.GET.get("fragment"):
        return render(request, "tournaments/standings.html#standings-table", ctx)
    return render(request, "tournaments/standings.html", ctx)


@login_required
@require_POST
def standings_visibility(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer hides the public standings after a round, or publishes them again."""
    t = _organized(request, pk)
    raw = request.POST.get("after_round", "")
    after_round = None
    if raw:
        after_round = Round.objects.filter(pk=int(raw), stage__tournament=t).first() if raw.isdigit() else None
        if after_round is None:
            messages.error(request, _("Выберите тур этого турнира."))
            return redirect("tournaments:standings", pk=t.pk)
    services.tournament_hide_standings(tournament=t, after_round=after_round, by=request.user)
    if after_round is None:
        messages.success(request, _("Таблица опубликована: все видят текущие результаты."))
    else:
        messages.success(request, _("Публичная таблица скрыта после тура: %(round)s.") % {"round": after_round})
    return redirect("tournaments:standings", pk=t.pk)


def player_page(request: HttpRequest, pk: int, pid: int) -> HttpResponse:
    t = _tournament(pk)
    p = get_object_or_404(Participant, pk=pid, tournament=t)
    public = not visibility.sees_live_standings(t, request.user)
    data = standings.compute(t, with_history=True, public=public)
    row = data.by_participant().get(p.pk)
    annulled = standings.annulled_history(t, p.pk, public=public)
    return render(
        request,
        "tournaments/player.html",
        {
            "tournament": t,
            "participant": p,
            "row": row,
            "annulled": annulled,
            "policy": data.policy,
            "standings": data,
            "is_organizer": t.is_organizer(request.user),
        },
    )


def standings_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(pk)
    content = exports.tournament_workbook_bytes(t, public=not visibility.sees_live_standings(t, request.user))
    response = HttpResponse(content, content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    response["Content-Disposition"] = f'attachment; filename="tournament-{t.pk}-standings.xlsx"'
    return response


# --- extra points (host of the game or organizer) -------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def game_extra_points(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    table = Table.objects.filter(game=game).select_related("round__stage__tournament").first()
    if table is None:
        raise PermissionDenied(_("Это не турнирная игра."))
    if not user_can_edit_game(request.user, game):
        raise PermissionDenied(_("Доп. баллы даёт ведущий этой игры или организатор турнира."))
    t = table.round.stage.tournament
    policy: ScoringPolicy = t.policy
    errors: dict[int, str] = {}
    if request.method == "POST":
        # One submit, one transaction: every seat is stored or none (and one live push).
        entries = {
            seat_no: (
                (request.POST.get(f"points_{seat_no}", "") or "0").strip(),
                request.POST.get(f"comment_{seat_no}", ""),
            )
            for seat_no in range(1, 11)
        }
        try:
            services.extra_points_set_many(game=game, entries=entries, by=request.user)
        except services.ExtraPointsRefused as exc:
            errors = exc.errors
        if not errors:
            messages.success(request, _("Доп. баллы сохранены."))
            return redirect(reverse("tournaments:game_extra_points", args=[game.pk]))
    existing = {e.seat_no: e for e in ExtraPoints.objects.filter(game=game)}
    nicknames = {s.seat_no: s.nickname for s in game.seats.all()}
    if not nicknames:
        nicknames = {
            s.seat_no: s.participant.nickname
            for s in TableSeat.objects.filter(table=table).select_related("participant")
        }
    rows = []
    for seat_no in range(1, 11):
        e = existing.get(seat_no)
        rows.append(
            {
                "seat_no": seat_no,
                "nickname": nicknames.get(seat_no, ""),
                "points": request.POST.get(f"points_{seat_no}") if errors else (e.points if e else ""),
                "comment": request.POST.get(f"comment_{seat_no}") if errors else (e.comment if e else ""),
                "error": errors.get(seat_no, ""),
            }
        )
    return render(
        request,
        "tournaments/extra_points.html",
        {"game": game, "table": table, "tournament": t, "rows": rows, "policy": policy},
        status=422 if errors else 200,
    )
