#!/usr/bin/env python3
"""Refuse a translation catalogue that is broken, stale or has a message left untranslated.

Run by `.ci/run` after `make messages` (which must not have changed a catalogue). The UI's
messages are written in Russian or in English in the sources; a message needs a translation
in each catalogue whose language is not its own: an English msgid needs a Russian msgstr, a
Russian one (any Cyrillic letter) an English msgstr. Fuzzy entries count as untranslated.

Usage: scripts/check_catalogues.py [locale-dir]   (exit 1 and one line per problem)
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

CYRILLIC = re.compile(r"[А-Яа-яЁё]")


@dataclass
class Entry:
    context: str | None = None
    msgid: str = ""
    plural: str | None = None
    strings: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False
    line: int = 0


def parse(path: Path) -> list[Entry]:
    """The entries of a .po file (enough of the format for what makemessages writes)."""
    entries: list[Entry] = []
    current = Entry()
    target: tuple[str, int] | None = None

    def finish() -> None:
        nonlocal current
        if current.msgid or current.strings or current.context:
            entries.append(current)
        current = Entry()

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#~"):
            continue  # obsolete
        if line.startswith("#,"):
            if current.strings:
                finish()
            current.fuzzy = "fuzzy" in line
            continue
        if line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            value = ast.literal_eval(line)
        else:
            value = ast.literal_eval(rest)
            if keyword in ("msgctxt", "msgid") and current.strings:
                finish()
            if keyword == "msgctxt":
                current.context = ""
                current.line = number
                target = ("msgctxt", 0)
            elif keyword == "msgid":
                current.line = current.line or number
                target = ("msgid", 0)
            elif keyword == "msgid_plural":
                current.plural = ""
                target = ("plural", 0)
            elif keyword.startswith("msgstr"):
                index = int(keyword[7:-1]) if keyword.startswith("msgstr[") else 0
                current.strings.setdefault(index, "")
                target = ("msgstr", index)
            else:
                raise ValueError(f"{path}:{number}: cannot read {raw!r}")
        assert target is not None, f"{path}:{number}: a string outside an entry"
        kind, index = target
        if kind == "msgctxt":
            current.context = (current.context or "") + value
        elif kind == "msgid":
            current.msgid += value
        elif kind == "plural":
            current.plural = (current.plural or "") + value
        else:
            current.strings[index] += value
    finish()
    return entries


def problems(locale_dir: Path) -> list[str]:
    found: list[str] = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        language = po.parts[-3]
        check = subprocess.run(["msgfmt", "-c", "-o", "/dev/null", str(po)], capture_output=True, text=True)
        if check.returncode:
            found.append(f"{po}: msgfmt -c fails: {check.stderr.strip().splitlines()[0]}")
            continue
        for entry in parse(po):
            if not entry.msgid:
                continue  # the header
            source_is_russian = bool(CYRILLIC.search(entry.msgid))
            if (language == "ru") == source_is_russian:
                continue  # the message is written in this catalogue's own language
            if entry.fuzzy or not all(entry.strings.values()) or not entry.strings:
                context = f" [{entry.context}]" if entry.context is not None else ""
                found.append(f"{po}:{entry.line}: untranslated{context}: {entry.msgid[:80]!r}")
    return found


def main() -> int:
    locale_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "locale")
    found = problems(locale_dir)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} catalogue problem(s); translate them in locale/*/LC_MESSAGES/django.po")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
