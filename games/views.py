"""Thin HTMX views: parse the request, call a service, render a partial."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.models import Game


@login_required
def game_list(request: HttpRequest) -> HttpResponse:
    games = Game.objects.filter(host=request.user).order_by("-created_at")
    return render(request, "games/game_list.html", {"games": games})
