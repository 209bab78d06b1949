"""Data for the accessibility audit (test_a11y_axe.py), run inside the live
server's database with `manage.py shell` so that every page of the app has
something to show: games stopped at each step of the console, a finished game,
an overlay, a tournament with a played round. Prints one JSON object of paths.
"""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model

from games import services
from games.demo import DEMO_FINISHED_ACTIONS
from games.rules import replay
from games.rules.simulate import random_game
from tournaments import services as tournament_services

HOST = "a11y-host"
PASSWORD = "a11y-pass-123"

User = get_user_model()
host = User.objects.filter(username=HOST).first() or User(username=HOST)
host.set_password(PASSWORD)
host.save()

# The index in DEMO_FINISHED_ACTIONS where each console step begins.
STEP_PREFIX = {
    "seating": 1,  # only the nicknames: the roles are next
    "day": 6,  # the first speech of Day 1, one nomination made
    "voting": 17,  # the vote of Day 1
    "last_word": 18,  # the farewell of the voted-out player
    "night": 19,  # the shots of Night 1
    "check": 20,  # the Don's check
    "best_move": 22,  # the best move of the player shot in Night 1
    "finished": len(DEMO_FINISHED_ACTIONS),
}
# Catalogue penalties recorded during Day 1 (F16): a foul, a warning.
PENALTIES = [
    {"do": "foul", "seat": 5, "reason": "Споры с Ведущим Игры", "reason_code": "arguing_with_host"},
    {"do": "warning", "seat": 6, "reason": "Пение, стихи, приветы и т. д.", "reason_code": "singing_poems_greetings"},
    {"do": "foul", "seat": 7, "reason": "опоздал к столу"},  # typed by the host: stays as typed
]


def played(title: str, upto: int) -> object:
    game = services.game_create(host=host, title=title)
    for n, action in enumerate(DEMO_FINISHED_ACTIONS[:upto]):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
        if n == 4:
            for penalty in PENALTIES:
                services.game_record_action(game=game, action=penalty, expected_seq=game.seq, by=host)
    return game


out: dict[str, object] = {"user": [HOST, PASSWORD]}
games = {step: played(f"a11y {step}", upto) for step, upto in STEP_PREFIX.items()}
for step, game in games.items():
    out[f"console_{step}"] = f"/games/{game.pk}/"
out["board_running"] = f"/games/{games['voting'].pk}/board/"
out["board_finished"] = f"/games/{games['finished'].pk}/board/"
overlay_game = services.game_set_overlay(
    game=games["voting"], by=host, enabled=True, delay_seconds=0, confirm_no_delay=True
)
out["overlay"] = f"/games/{overlay_game.pk}/overlay/{overlay_game.overlay_token}/"
out["overlay_settings"] = f"/games/{overlay_game.pk}/overlay/settings/"

tournament = tournament_services.tournament_create(name="a11y-турнир", organizer=host)
tournament_services.participants_add(tournament=tournament, entries=[f"Игрок_{n:02d}" for n in range(1, 21)])
stage = tournament_services.stage_create(tournament=tournament)
tournament_services.stage_generate_seating(stage=stage, rounds=2, seed="a11y")
for table_number in (1, 2):
    tournament_services.stage_set_host(stage=stage, table_number=table_number, host=host)
first_round = stage.rounds.order_by("number").first()
tournament_services.round_start_games(round=first_round, by=host)
table_game = None
for number, table in enumerate(first_round.tables.select_related("game").order_by("number")):
    game = table.game
    table_game = table_game or game
    seated = replay(game.action_payloads())
    for action in random_game(100 + number, state=seated):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
participant = tournament.participants.order_by("pk").first()
t = f"/tournaments/{tournament.pk}"
out.update(
    {
        "tournament_detail": f"{t}/",
        "tournament_settings": f"{t}/settings/",
        "stage": f"{t}/stages/{stage.pk}/",
        "round": f"{t}/rounds/{first_round.pk}/",
        "standings": f"{t}/standings/",
        "scoring": f"{t}/scoring/",
        "extra_points": f"/tournaments/games/{table_game.pk}/extra-points/",
        "player": f"{t}/players/{participant.pk}/",
    }
)
print("A11Y-DATA " + json.dumps(out))
