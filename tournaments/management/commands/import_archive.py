"""`python manage.py import_archive FILE`: rebuild an archive into an empty database.

Every game's log is replayed through the engine (games.services), so a
damaged or tampered archive is refused with the reason and writes nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments import archive


class Command(BaseCommand):
    help = "Rebuild the games, users and tournaments of a JSON archive (export_archive) into an empty database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the .json archive")

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        try:
            with open(path, encoding="utf-8") as f:
                data = archive.read_archive(f)
            counts = archive.import_archive(data)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        except archive.ArchiveError as exc:
            raise CommandError(f"{path}: {exc}; nothing was imported") from exc
        self.stdout.write(f"{path}: {counts['games']} game(s), {counts['tournaments']} tournament(s), {counts['users']} user(s) imported")
