"""`python manage.py export_xlsx GAME_ID... -o FILE`: the Excel protocol.

One game: «Протокол», «Ночи», «Дисциплина», «Журнал». Several games: one
«Протокол» sheet per game (add --details for the shared detail sheets).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import exports
from games.models import Game


class Command(BaseCommand):
    help = "Write the Excel protocol of one or more games to a workbook."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="+", type=int, metavar="GAME_ID")
        parser.add_argument("-o", "--output", required=True, metavar="FILE", help="the .xlsx file to write")
        parser.add_argument("--lang", default="ru", choices=["ru", "en"], help="headings language (default ru)")
        details = parser.add_mutually_exclusive_group()
        details.add_argument(
            "--details",
            dest="details",
            action="store_true",
            default=None,
            help="add «Ночи», «Дисциплина», «Журнал» (default for one game)",
        )
        details.add_argument("--no-details", dest="details", action="store_false", help="only the «Протокол» sheet(s)")

    def handle(self, *args: Any, **options: Any) -> None:
        ids: list[int] = list(dict.fromkeys(options["game_ids"]))  # a game once, in the order given
        missing = sorted(set(ids) - set(Game.objects.filter(pk__in=ids).values_list("pk", flat=True)))
        if missing:
            raise CommandError(f"no such game: {', '.join(map(str, missing))}")
        workbook = exports.build_games_workbook(ids, options["lang"], details=options["details"])
        path = options["output"]
        try:
            exports.save_workbook(workbook, path)
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc}") from exc
        self.stdout.write(f"{path}: {len(ids)} game(s)")
