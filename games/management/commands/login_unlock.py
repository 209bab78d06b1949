"""Lift a login lock (mafia_protocol/login_throttle.py) before it runs out."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mafia_protocol import login_throttle


class Command(BaseCommand):
    help = "Lift the login lock of an account (its username) and/or an address; --all lifts every lock."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", nargs="?", help="the account's username, as typed on the login page")
        parser.add_argument("--address", help="a client address (as in the access log)")
        parser.add_argument("--all", action="store_true", help="every account and address")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"]:
            login_throttle.unlock_all()
            self.stdout.write("unlocked: every account and address")
            return
        if not options["username"] and not options["address"]:
            raise CommandError("name an account (username), --address or --all")
        login_throttle.unlock(username=options["username"], address=options["address"])
        self.stdout.write("unlocked: " + ", ".join(x for x in (options["username"], options["address"]) if x))
