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
        host, created = User.objects.get_or_create(
            username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
        )
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
        services.game_record_action(
            game=live, action={"do": "roles", "sheriff": 3, "don": 7, "mafia": [2, 9]}, expected_seq=live.seq, by=host
        )
        self.stdout.write(f"demo games created: #{live.pk} (ready to start), #{finished.pk} (finished)")
        tournament = self._demo_tournament(host)
        self.stdout.write(f"demo tournament created: #{tournament.pk} «{tournament.name}»")

    def _demo_tournament(self, host: Any) -> Any:
        """Twenty participants, one stage of two seated rounds, round 1 played."""
        from games.rules import replay
        from games.rules.simulate import random_game
        from tournaments import services as tournament_services

        tournament = tournament_services.tournament_create(name="Демо-турнир", organizer=host)
        tournament_services.participants_add(tournament=tournament, entries=[f"Игрок_{n:02d}" for n in range(1, 21)])
        stage = tournament_services.stage_create(tournament=tournament)
        tournament_services.stage_generate_seating(stage=stage, rounds=2, seed="demo")
        for table_number in (1, 2):
            tournament_services.stage_set_host(stage=stage, table_number=table_number, host=host)
        first_round = stage.rounds.order_by("number").first()
        assert first_round is not None
        tournament_services.round_start_games(round=first_round, by=host)
        for number, table in enumerate(first_round.tables.select_related("game").order_by("number")):
            game = table.game
            if game is None:
                continue
            # A random legal game on the seated table: the seat action is the
            # table's own, the rest comes from the engine's legal actions.
            seated = replay(game.action_payloads())
            for action in random_game(100 + number, state=seated):
                services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
        return tournament
