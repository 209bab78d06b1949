"""`make run` seeds a demo host, demo games and a demo tournament once."""

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from games.models import Game, GameStatus, SeatResult
from tournaments.models import Tournament


@pytest.mark.django_db
def test_demo_data_creates_a_host_games_and_a_tournament_once():
    call_command("demo_data")
    assert authenticate(username="demo", password="demo-pass") is not None
    assert Game.objects.filter(status=GameStatus.SETUP).count() == 1
    finished = Game.objects.filter(status=GameStatus.FINISHED)
    assert finished.count() == 3  # the red_win demo and the two tables of round 1
    assert SeatResult.objects.filter(game__in=finished).count() == 30
    assert Tournament.objects.get().participants.count() == 20
    call_command("demo_data")  # idempotent: nothing more on a second run
    assert Game.objects.count() == 4 and Tournament.objects.count() == 1
