from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from players.services import link_existing


class Command(BaseCommand):
    help = "Link game seats and tournament participants without a player by exact nickname match (aliases, case, ё/е); list ambiguous ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--create", action="store_true", help="Create a player for every nickname that matches nobody (and is not close to anybody).")

    def handle(self, *args: Any, **options: Any) -> None:
        report = link_existing(create_missing=options["create"])
        self.stdout.write(f"linked: {report.linked}; new players: {report.created}; to decide: {len(report.ambiguous)}")
        for where, nickname, candidates in report.ambiguous:
            self.stdout.write(f"  {where} «{nickname}»: {', '.join(candidates)}")
