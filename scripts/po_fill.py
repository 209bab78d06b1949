#!/usr/bin/env python3
"""Fill empty translations of a catalogue from a JSON object {msgid: msgstr}.

    scripts/po_fill.py locale/en/LC_MESSAGES/django.po translations.json

An entry in a message context is keyed "context\x04msgid" (gettext's own key).
Only entries whose msgstr is empty are filled (a translation is never overwritten);
plural entries take a list. Run `make messages` first (it adds the new msgids) and again
after (it re-sorts and checks that nothing is left untranslated).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _string(lines: list[str]) -> str:
    return "".join(ast.literal_eval(line[line.index('"') :]) for line in lines if '"' in line)


def fill(po_text: str, translations: dict[str, str | list[str]]) -> tuple[str, int]:
    blocks = po_text.split("\n\n")
    filled = 0
    for i, block in enumerate(blocks):
        lines = block.split("\n")
        keys = [n for n, line in enumerate(lines) if line.startswith(("msgid ", "msgid_plural ", "msgstr", "msgctxt "))]
        if not keys:
            continue
        spans = {
            lines[k].split(" ", 1)[0]: (k, (keys[j + 1] if j + 1 < len(keys) else len(lines)))
            for j, k in enumerate(keys)
        }
        if "msgid" not in spans:
            continue
        a, b = spans["msgid"]
        msgid = _string(lines[a:b])
        if "msgctxt" in spans:
            # An entry in a message context is keyed "context\x04msgid", as gettext keys it.
            c, d = spans["msgctxt"]
            msgid = _string(lines[c:d]) + "\x04" + msgid
        if not msgid or msgid not in translations:
            continue
        value = translations[msgid]
        out = list(lines)
        targets = sorted((k for k in spans if k.startswith("msgstr")), key=lambda k: spans[k][0], reverse=True)
        for key in targets:
            a, b = spans[key]
            if _string(out[a:b]):
                continue
            index = int(key[7:-1]) if key.startswith("msgstr[") else 0
            text = value[min(index, len(value) - 1)] if isinstance(value, list) else value
            out[a:b] = [f"{key} {_quote(text)}"]
            filled += 1
        blocks[i] = "\n".join(out)
    return "\n\n".join(blocks), filled


def main() -> int:
    po, source = Path(sys.argv[1]), Path(sys.argv[2])
    text, filled = fill(po.read_text(encoding="utf-8"), json.loads(source.read_text(encoding="utf-8")))
    po.write_text(text, encoding="utf-8")
    print(f"{po}: {filled} translation(s) filled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
