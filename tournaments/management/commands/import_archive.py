"""`python manage.py import_archive FILE`: restore an archive into an empty database, with the same ids.

The stored rows come back as recorded (tournaments/archive.py); a game whose
log today's rules read differently is imported and named in the answer.
A damaged archive is refused in one line and writes nothing; `--check` only
verifies (everything is done, then rolled back).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments import archive


class Command(BaseCommand):
    help = "Restore the users, players, games, tournaments and Discord links of a JSON archive (export_archive) into an empty database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the .json archive")
        parser.add_argument("--check", action="store_true", help="verify that the archive imports here, write nothing")
        parser.add_argument(
            "--allow-superusers",
            action="store_true",
            help="create the staff and superuser accounts the archive holds (refused otherwise)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        try:
            with open(path, "rb") as f:
                data = archive.read_archive(f)
            report = archive.import_archive(
                data, check_only=options["check"], allow_superusers=options["allow_superusers"]
            )
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
        except archive.ArchiveError as exc:
            raise CommandError(f"{path}: {exc}; nothing was imported") from None
        except RecursionError:
            raise CommandError(f"{path}: nested too deep; nothing was imported") from None
        for line in report.lines():
            self.stdout.write(f"{path}: {line}")
        c = report.counts
        done = "would import" if options["check"] else "imported"
        self.stdout.write(
            f"{path}: {done} {c.get('games.game', 0)} game(s) ({c.get('games.gameaction', 0)} actions), {c.get('tournaments.tournament', 0)} tournament(s), "
            f"{c.get('players.player', 0)} player(s), {len(report.created_users)} new user(s); archive {report.format} of {report.app_version}"
            + ("; nothing was written" if options["check"] else "; ratings and statistics rebuilt")
        )
