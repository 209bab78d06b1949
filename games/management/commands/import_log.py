"""`python manage.py import_log FILE [--host USERNAME] [--title T]`: store a
protocol log (FORMAT.md) as a game, action by action through the engine, and
print the new game's id.

The host must be an existing user: --host, else the first superuser, else
the "demo" user. `expect` checkpoints and `reject` actions of a test log are
not host actions and are skipped (services.game_import_log).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from games.rules import RuleViolation
from games.services import game_import_log


class Command(BaseCommand):
    help = "Store a protocol log file as a game and print its id."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="a log file (JSON, FORMAT.md); - for the standard input")
        parser.add_argument("--host", metavar="USERNAME", help="the game's host (an existing user)")
        parser.add_argument("--title", default="", help="the game's title (default: the log's name)")

    def handle(self, *args: Any, **options: Any) -> None:
        host = self._host(options["host"])
        data = self._read(options["file"])
        try:
            # All or nothing: a log refused halfway leaves no half-stored game.
            with transaction.atomic():
                game = game_import_log(host=host, data=data, title=options["title"])
        except RuleViolation as exc:
            raise CommandError(f"the log was refused (rule {exc.rule}): {exc.message}") from exc
        self.stdout.write(str(game.pk))

    def _read(self, path: str) -> dict[str, Any]:
        import sys

        try:
            if path == "-":
                data = json.load(sys.stdin)
            else:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise CommandError(f"{path} is not JSON: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
            raise CommandError(f'{path} is not a protocol log: expected {{"format": "mafia-protocol-log/1", "actions": [...]}}')
        fmt = data.get("format")
        if fmt is not None and fmt != "mafia-protocol-log/1":
            raise CommandError(f"{path}: unknown format {fmt!r} (expected mafia-protocol-log/1)")
        return data

    def _host(self, username: str | None) -> Any:
        User = get_user_model()
        if username:
            try:
                return User.objects.get(**{User.USERNAME_FIELD: username})
            except User.DoesNotExist as exc:
                raise CommandError(f"no user {username!r}: create it first (manage.py createsuperuser) or name another with --host") from exc
        user = User.objects.filter(is_superuser=True).order_by("pk").first() or User.objects.filter(**{User.USERNAME_FIELD: "demo"}).first()
        if user is None:
            raise CommandError("no host: name an existing user with --host USERNAME (there is no superuser and no 'demo' user)")
        return user
