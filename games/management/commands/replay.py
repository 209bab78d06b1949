"""`python manage.py replay FILE_OR_DIR... [--json]` (FORMAT.md "The replay command").

Runs each protocol log through the rules engine, checking every `expect` and
`"reject": true`; one line per file (`ok PATH` or `FAIL PATH: …`), then the
final state as JSON with --json. Exits non-zero if any file fails. A thin
wrapper: the work is games.rules.logfile.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.rules.logfile import log_files, run_file


class Command(BaseCommand):
    help = "Replay protocol logs (files, or every *.json below a directory) and check their expect/reject entries."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
        parser.add_argument("--json", action="store_true", help="print the final state of each log as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        files = log_files(options["paths"])
        if not files:
            raise CommandError("no log files found")
        failed = 0
        for path in files:
            result = run_file(path)
            if result.ok:
                self.stdout.write(f"ok {path}")
            else:
                failed += 1
                self.stdout.write(f"FAIL {path}: {result.failure}")
            if options["json"]:
                self.stdout.write(json.dumps(result.state.public_dict(), ensure_ascii=False, indent=1))
        if failed:
            raise CommandError(f"{failed} of {len(files)} log(s) failed", returncode=1)
