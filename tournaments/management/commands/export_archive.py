"""`python manage.py export_archive FILE`: every game and tournament in one JSON file.

The backup, and the first half of the move from SQLite to PostgreSQL
(tournaments/archive.py; README "Backups and moving to PostgreSQL").
`-` writes to standard output.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments import archive


class Command(BaseCommand):
    help = "Write every game (its whole protocol log), the users they name and every tournament to one JSON archive."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the .json file to write (- for standard output)")
        parser.add_argument("--with-passwords", action="store_true", help="include password hashes and staff/superuser flags (keep such a file private)")

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        try:
            if path == "-":
                counts = archive.write_archive(sys.stdout, with_passwords=options["with_passwords"])
            else:
                with open(path, "w", encoding="utf-8") as f:
                    counts = archive.write_archive(f, with_passwords=options["with_passwords"])
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc}") from exc
        if path != "-":
            self.stdout.write(f"{path}: {counts['games']} game(s), {counts['tournaments']} tournament(s), {counts['users']} user(s)")
