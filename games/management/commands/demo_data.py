"""Create the demo host account and demo games on an empty database (`make run`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from games import services
from games.demo import DEMO_FINISHED_ACTIONS, DEMO_PLAYERS
from games.models import Game

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-pass"


class Command(BaseCommand):
    help = "Create a demo host (demo / demo-pass) and demo games if there are no games yet."

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        host, created = User.objects.get_or_create(username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True})
        if created:
            host.set_password(DEMO_PASSWORD)
            host.save()
            self.stdout.write(f"demo host created: {DEMO_USERNAME} / {DEMO_PASSWORD}")
        if Game.objects.exists():
            return
        finished = services.game_create(host=host, title="Демо: сыгранная игра")
        for action in DEMO_FINISHED_ACTIONS:
            services.game_record_action(game=finished, action=action, expected_seq=finished.seq, by=host)
        live = services.game_create(host=host, title="Демо: новая игра", players=DEMO_PLAYERS)
        services.game_record_action(game=live, action={"do": "roles", "sheriff": 3, "don": 7, "mafia": [2, 9]}, expected_seq=live.seq, by=host)
        self.stdout.write(f"demo games created: #{live.pk} (ready to start), #{finished.pk} (finished)")
