"""The catalogue check that CI runs after `make messages` (issue 23): it must catch what a
union merge does to a .po file (a dropped msgstr line) and a message left untranslated."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_catalogues", ROOT / "scripts" / "check_catalogues.py")
assert _spec and _spec.loader
check_catalogues = importlib.util.module_from_spec(_spec)
sys.modules["check_catalogues"] = check_catalogues  # dataclasses look their module up
_spec.loader.exec_module(check_catalogues)

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'


def write(tmp_path: Path, language: str, body: str) -> Path:
    po = tmp_path / language / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_text(HEADER + body, encoding="utf-8")
    return po


def test_the_committed_catalogues_are_complete() -> None:
    assert check_catalogues.problems(ROOT / "locale") == []


def test_a_russian_message_needs_an_english_translation_not_a_russian_one(tmp_path: Path) -> None:
    write(tmp_path, "ru", 'msgid "Ночь"\nmsgstr ""\n\nmsgid "Games"\nmsgstr "Игры"\n')
    write(tmp_path, "en", 'msgid "Ночь"\nmsgstr ""\n\nmsgid "Games"\nmsgstr ""\n')
    found = check_catalogues.problems(tmp_path)
    assert len(found) == 1 and "en" in found[0] and "Ночь" in found[0]


def test_a_fuzzy_guess_counts_as_untranslated(tmp_path: Path) -> None:
    write(tmp_path, "en", '#, fuzzy\nmsgid "Утро"\nmsgstr "Night"\n')
    assert len(check_catalogues.problems(tmp_path)) == 1


def test_a_union_merge_that_drops_a_msgstr_line_is_caught(tmp_path: Path) -> None:
    # What git's union driver leaves when both sides add an entry after the same line.
    write(tmp_path, "en", 'msgid "Утро"\nmsgid "День"\nmsgstr "Day"\n')
    found = check_catalogues.problems(tmp_path)
    assert found and "msgfmt -c fails" in found[0]


@pytest.mark.parametrize("plural_done", [True, False])
def test_plural_forms_need_every_form(tmp_path: Path, plural_done: bool) -> None:
    second = "%d fouls" if plural_done else ""
    write(tmp_path, "en", f'msgid "%d фол"\nmsgid_plural "%d фола"\nmsgstr[0] "%d foul"\nmsgstr[1] "{second}"\n')
    assert (check_catalogues.problems(tmp_path) == []) is plural_done
