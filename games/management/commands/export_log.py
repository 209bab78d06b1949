"""`python manage.py export_log GAME_ID`: print the game's protocol log (FORMAT.md)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Game
from games.reading import game_export_log


class Command(BaseCommand):
    help = "Print a game's protocol log as JSON (shared/protocol-log/FORMAT.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id", type=int, metavar="GAME_ID")
        parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of the standard output")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            game = Game.objects.get(pk=options["game_id"])
        except Game.DoesNotExist as exc:
            raise CommandError(f"no such game: {options['game_id']}") from exc
        text = json.dumps(game_export_log(game=game), ensure_ascii=False, indent=1)
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        else:
            self.stdout.write(text)
