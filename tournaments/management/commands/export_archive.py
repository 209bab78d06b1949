"""`python manage.py export_archive FILE`: everything the app owns in one JSON file.

The backup, and the first half of the move from SQLite to PostgreSQL
(tournaments/archive.py; README "Backups and moving to PostgreSQL").
One consistent snapshot even while hosts play. `-` writes to standard output.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments import archive


class Command(BaseCommand):
    help = "Write every game (its whole protocol log), player, tournament, Discord link and the users they name to one JSON archive, with their ids."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the .json file to write (- for standard output)")
        parser.add_argument(
            "--with-passwords",
            action="store_true",
            help="include password hashes and staff/superuser flags (keep such a file private)",
        )
        parser.add_argument(
            "--with-secrets",
            action="store_true",
            help="include overlay tokens and Discord webhook URLs (keep such a file private)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        flags = {"with_passwords": options["with_passwords"], "with_secrets": options["with_secrets"]}
        try:
            if path == "-":
                counts = archive.write_archive(sys.stdout, **flags)
            else:
                # Written beside and renamed: a backup interrupted halfway never replaces a whole one.
                partial = f"{path}.partial"
                try:
                    with open(partial, "w", encoding="utf-8") as f:
                        counts = archive.write_archive(f, **flags)
                    os.replace(partial, path)
                finally:
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(partial)  # left only by a failure
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc}") from exc
        if path != "-":
            self.stdout.write(
                f"{path}: {counts['games']} game(s) ({counts['actions']} actions), {counts['tournaments']} tournament(s), {counts['users']} user(s)"
            )
