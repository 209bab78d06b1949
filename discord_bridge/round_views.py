"""Chore 8 of issue 29: the organizer publishes a round's seating to its participants by DM.

A thin view over discord_bridge.round_notices; the round page shows its form and state through
`{% round_notices round user %}` (discord_bridge/templatetags/round_notices.py)."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from discord_bridge import round_notices
from tournaments.models import Round

FRAGMENT = "discord_bridge/round_notices.html"


def _starts_at(raw: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat((raw or "").strip()[:32])
    except ValueError:
        return None
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


@login_required
@require_POST
def publish(request: HttpRequest, rid: int) -> HttpResponse:
    rnd = get_object_or_404(Round.objects.select_related("stage__tournament"), pk=rid)
    tournament = rnd.stage.tournament
    if not tournament.is_organizer(request.user):
        return HttpResponse(status=403)
    starts_at = _starts_at(request.POST.get("starts_at", ""))
    if starts_at is None:
        context = {"round": rnd, "error": gettext("Укажите время начала тура."), **round_notices.summary(rnd)}
        return render(request, FRAGMENT, context, status=422)
    round_notices.publish(round=rnd, starts_at=starts_at)
    if request.headers.get("HX-Request"):
        return render(
            request,
            FRAGMENT,
            {
                "round": rnd,
                "notice": gettext("Рассадка тура отправлена участникам в Discord."),
                **round_notices.summary(rnd),
            },
        )
    return redirect("tournaments:round", pk=tournament.pk, rid=rnd.pk)
