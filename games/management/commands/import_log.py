"""`python manage.py import_log FILE [--host USERNAME] [--title T]`: store a
protocol log (FORMAT.md) as a game, action by action through the engine, and
print the new game's id.

The host must be an existing user: --host, else the first superuser, else
the "demo" user. `expect` checkpoints and `reject` actions of a test log are
not host actions and are skipped (services.game_import_log).
"""

from __future__ import annotations

import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from games.rules import MAX_LOG_BYTES, RuleViolation, parse_log_bytes
from games.services import game_import_log


class Command(BaseCommand):
    help = "Store a protocol log file as a game and print its id."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="a log file (JSON, FORMAT.md); - for the standard input")
        parser.add_argument("--host", metavar="USERNAME", help="the game's host (an existing user)")
        parser.add_argument("--title", default="", help="the game's title (default: the log's name)")

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        raw = self._read(path)
        # Every malformed file ends in one line (CommandError), never a
        # traceback: the input schema (games/rules/schema.py) checks the whole
        # file — size, JSON, nesting, every action's keys, types and limits —
        # before anything is stored (or the database is even asked).
        try:
            data, _actions = parse_log_bytes(raw)
        except RuleViolation as exc:
            raise CommandError(f"{path}: the log was refused (rule {exc.rule}): {_one_line(exc.message)}") from None
        host = self._host(options["host"])
        try:
            # All or nothing: a log refused halfway leaves no half-stored game.
            with transaction.atomic():
                game = game_import_log(host=host, data=data, title=options["title"])
        except RuleViolation as exc:
            raise CommandError(
                f"{path}: the log was refused (rule {exc.rule}){_where(exc)}: {_one_line(exc.message)}"
            ) from None
        self.stdout.write(str(game.pk))

    def _read(self, path: str) -> bytes:
        try:
            if path == "-":
                stream = getattr(sys.stdin, "buffer", None)
                if stream is None:  # a text stream (tests): its characters, encoded
                    return sys.stdin.read(MAX_LOG_BYTES + 1).encode("utf-8", "surrogatepass")
                data: bytes = stream.read(MAX_LOG_BYTES + 1)
                return data
            with open(path, "rb") as fh:
                return fh.read(MAX_LOG_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None

    def _host(self, username: str | None) -> Any:
        User = get_user_model()
        if username:
            try:
                return User.objects.get(**{User.USERNAME_FIELD: username})
            except User.DoesNotExist:
                raise CommandError(
                    f"no user {username!r}: create it first (manage.py createsuperuser) or name another with --host"
                ) from None
        user = (
            User.objects.filter(is_superuser=True).order_by("pk").first()
            or User.objects.filter(**{User.USERNAME_FIELD: "demo"}).first()
        )
        if user is None:
            raise CommandError(
                "no host: name an existing user with --host USERNAME (there is no superuser and no 'demo' user)"
            )
        return user


def _where(exc: RuleViolation) -> str:
    # The schema names the position in its message; an engine refusal got it from the import.
    index = exc.params.get("index")
    if exc.code != "bad_action" and index is not None:
        return f" at action {index}"
    return ""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
