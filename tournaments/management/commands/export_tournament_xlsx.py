"""python manage.py export_tournament_xlsx ID -o FILE [--lang ru|en]: the tournament workbook."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.exports import save_tournament_workbook
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Write a tournament's workbook: the standings sheet first, then every finished game's protocol."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament_id", type=int)
        parser.add_argument("-o", "--output", required=True, help="the .xlsx file to write")
        parser.add_argument("--lang", default="ru", choices=["ru", "en"])

    def handle(self, *args: Any, **options: Any) -> None:
        t = Tournament.objects.filter(pk=options["tournament_id"]).first()
        if t is None:
            raise CommandError(f"tournament {options['tournament_id']} does not exist")
        save_tournament_workbook(t, options["output"], options["lang"])
        self.stdout.write(f"wrote {options['output']}")
