"""`makemessages` made deterministic, so the catalogues can be generated and checked in CI.

Django's own command writes every source location of a message (they go stale when a module
moves, and a one-line change elsewhere rewrites thousands of lines), lets msgmerge guess fuzzy
translations for new messages (wrong guesses that look translated), keeps the order of first
appearance and stamps the header with the time of the run. Here: no locations, no fuzzy
matching, entries sorted by msgid, obsolete entries dropped, and the header's dates kept as
they were, so the same sources always give the same bytes and `git diff` shows only real
changes. `scripts/check_catalogues.py` then refuses a message left untranslated.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.core.management.commands import makemessages

_HEADER_DATES = re.compile(r'^"(POT-Creation-Date|PO-Revision-Date): [^"\\]*\\n"$', re.MULTILINE)


class Command(makemessages.Command):
    msgmerge_options = [*makemessages.Command.msgmerge_options, "--no-fuzzy-matching", "--sort-output", "--no-location"]
    xgettext_options = [*makemessages.Command.xgettext_options, "--sort-output"]

    def handle(self, *args: Any, **options: Any) -> None:
        options["add_location"] = "never"
        options["no_obsolete"] = True
        super().handle(*args, **options)

    def write_po_file(self, potfile: str, locale: str) -> None:
        pofile = Path(potfile).parent / locale / "LC_MESSAGES" / f"{self.domain}.po"
        before = pofile.read_text(encoding="utf-8") if pofile.exists() else ""
        super().write_po_file(potfile, locale)
        kept = {m.group(1): m.group(0) for m in _HEADER_DATES.finditer(before)}
        if kept:
            text = pofile.read_text(encoding="utf-8")
            text = _HEADER_DATES.sub(lambda m: kept.get(m.group(1), m.group(0)), text)
            pofile.write_text(text, encoding="utf-8")
