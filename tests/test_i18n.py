"""Languages: Russian by default, English on request; complete, compiled catalogues.

The UI's source language is Russian (Russian msgids); locale/en holds the
English, locale/ru the Russian for the few English msgids (model choices,
verbose names). The compiled .mo files are committed (a fresh machine may lack
gettext), so a test checks that they match the .po files.
"""

from __future__ import annotations

import gettext as py_gettext
import re
import string
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import override

from games import services
from games.console import protocol_text as pt
from games.models import GameStatus, Role
from games.rules import RuleViolation
from games.rules.errors import MESSAGES

LOCALE = Path(settings.BASE_DIR) / "locale"
CYRILLIC = re.compile("[А-Яа-яЁё]")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*\}")
RU_PLURAL_FORMS = (
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"
)
PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _restore_language():
    # LocaleMiddleware activates the request's language in this thread; do not
    # let an English request leak into the next test.
    previous = translation.get_language()
    yield
    if previous:
        translation.activate(previous)
    else:
        translation.deactivate()


def lang(client, code):
    """The client with the language the switcher would set (cookie)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    return client


@pytest.fixture
def client_host(host):
    client = Client()
    client.force_login(host)
    return client


def running_game(host):
    """Day 1, seat 1 speaks (roles given, the Mafia's meeting and free seating over)."""
    game = services.game_create(host=host, title="i18n", players=PLAYERS)
    for action in (
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "next"},
    ):
        game.refresh_from_db()
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    assert game.public_state["day"] == 1 and game.public_state["speaker"] == 1
    return game


def act(client, game, data, **extra):
    game.refresh_from_db()
    return client.post(reverse("games:act", args=[game.pk]), {"expected_seq": game.seq, **data}, **HX, **extra)


# --- choosing the language ------------------------------------------------------------------------


@pytest.mark.django_db
def test_login_page_is_russian_by_default():
    html = Client().get(reverse("login")).content.decode()
    assert '<html lang="ru">' in html
    assert "Вход для ведущих" in html and "Имя пользователя" in html and "Пароль" in html


@pytest.mark.django_db
def test_login_page_in_english_by_the_language_cookie():
    # S4: an English browser alone still gets Russian (tests/test_language.py);
    # the switcher's cookie picks English.
    html = lang(Client(), "en").get(reverse("login")).content.decode()
    assert '<html lang="en">' in html
    assert "Sign in for hosts" in html and "Username" in html and "Password" in html
    assert "Вход для ведущих" not in html
    # A failed login answers in English too.
    html = lang(Client(), "en").post(reverse("login"), {"username": "nobody", "password": "x"}).content.decode()
    assert "Wrong username or password." in html


@pytest.mark.django_db
def test_language_cookie_beats_accept_language():
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Sign in for hosts" in html
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    html = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Вход для ведущих" in html


@pytest.mark.django_db
def test_set_language_view_switches_both_ways():
    client = Client()
    login = reverse("login")
    r = client.post(reverse("set_language"), {"language": "en", "next": login})
    assert r.status_code == 302 and r["Location"] == login
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert "Sign in for hosts" in client.get(login).content.decode()
    client.post(reverse("set_language"), {"language": "ru", "next": login})
    assert "Вход для ведущих" in client.get(login).content.decode()


# --- pages in English -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_game_list_in_english(client_host, host):
    services.game_create(host=host, title="i18n", players=PLAYERS)
    html = lang(client_host, "en").get(reverse("games:list")).content.decode()
    assert "My games" in html and "New game" in html and "Sign out" in html
    assert "Мои игры" not in html
    html = lang(client_host, "ru").get(reverse("games:list")).content.decode()
    assert "Мои игры" in html and "My games" not in html


@pytest.mark.django_db
def test_game_console_in_english_after_a_russian_request(client_host, host):
    game = running_game(host)
    url = reverse("games:console", args=[game.pk])
    # Russian first: the per-process protocol cache must not hand Russian lines to English.
    ru = lang(client_host, "ru").get(url).content.decode()
    assert "Пульт ведущего" in ru and "Роли: Шериф" in ru
    en = lang(client_host, "en").get(url).content.decode()
    assert '<html lang="en">' in en
    assert "Host console" in en and "Stream overlay and protocol" in en and "Undo" in en
    assert "Roles: Sheriff" in en and "Day 1" in en
    assert "Пульт ведущего" not in en and "Роли: Шериф" not in en


@pytest.mark.django_db
def test_setup_console_in_english(client_host, host):
    game = services.game_create(host=host, title="i18n")
    html = lang(client_host, "en").get(reverse("games:console", args=[game.pk])).content.decode()
    assert "1. Seating (S1)" in html and "2. Roles (S2)" in html and "Record the roles" in html


# --- refusals name the rule in both languages ------------------------------------------------------


@pytest.mark.django_db
def test_rule_violation_refusal_names_the_rule_in_russian_and_english(client_host, host):
    game = running_game(host)
    # D3: seat 5 may not nominate while seat 1 speaks.
    ru = act(lang(client_host, "ru"), game, {"do": "nominate", "by": 5, "target": 3})
    assert ru.status_code == 422
    assert "Правило D3: Выставлять может только говорящий (№1), а не №5." in ru.content.decode()
    en = act(lang(client_host, "en"), game, {"do": "nominate", "by": 5, "target": 3})
    assert en.status_code == 422
    text = en.content.decode()
    assert "Rule D3" in text and "only the current speaker (seat 1) may nominate; seat 5 may not" in text
    assert "Правило" not in text


@pytest.mark.django_db
def test_malformed_field_refusal_names_the_field_in_english(client_host, host):
    game = services.game_create(host=host, players=PLAYERS)
    r = act(lang(client_host, "en"), game, {"do": "roles", "sheriff": "11", "don": 2, "mafia": [3, 4]})
    assert r.status_code == 422
    html = r.content.decode()
    assert "sheriff" in html and "a seat number 1..10 is needed" in html


def _dummy_params(template: str) -> dict[str, object]:
    names = {f for _, f, _, _ in string.Formatter().parse(template) if f and f != "rule"}
    return {n: ("problem" if n in ("problem", "field", "do", "step", "action", "status", "team") else 3) for n in names}


@pytest.mark.parametrize("code", sorted(MESSAGES))
def test_every_engine_refusal_is_a_sentence_naming_the_rule_in_both_languages(code):
    template = MESSAGES[code]
    rule = "FORMAT" if template.startswith("Format") else "V2"
    exc = RuleViolation(code, rule, _dummy_params(template))
    with override("en"):
        en = pt.violation_text(exc)
    with override("ru"):
        ru = pt.violation_text(exc)
    assert not CYRILLIC.search(en), en
    if rule == "FORMAT":
        assert en.startswith("Format")
        return
    assert "Rule V2" in en, en
    assert ru.startswith("Правило V2: ") and CYRILLIC.search(ru[len("Правило V2: ") :]), ru
    assert ru.rstrip().endswith((".", "»", ")")), ru


@pytest.mark.django_db
def test_model_choices_in_both_languages():
    with override("ru"):
        assert str(GameStatus.SETUP.label) == "Подготовка" and str(Role.SHERIFF.label) == "Шериф"
    with override("en"):
        assert str(GameStatus.SETUP.label) == "Setup" and str(Role.SHERIFF.label) == "Sheriff"


# --- the catalogues --------------------------------------------------------------------------------


ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def _unquote(s: str) -> str:
    s = s.strip()
    assert s.startswith('"') and s.endswith('"'), s
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(0)), s[1:-1])


def parse_po(path: Path) -> list[dict]:
    """Entries of a .po file: {ctx, id, plural, strs {n: text}, flags}; obsolete ones skipped."""
    entries: list[dict] = []
    cur: dict | None = None
    field: tuple = ()

    def flush():
        if cur is not None and cur.get("id") is not None and not cur.get("obsolete"):
            entries.append(cur)

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            flush()
            cur, field = None, ()
            continue
        if cur is None:
            cur = {"ctx": None, "id": None, "plural": None, "strs": {}, "flags": set()}
        if line.startswith("#~"):
            cur["obsolete"] = True
            continue
        if line.startswith("#,"):
            cur["flags"] |= {f.strip() for f in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        m = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")$", line)
        if m:
            kw, value = m.group(1), _unquote(m.group(3))
            if kw == "msgctxt":
                cur["ctx"], field = value, ("ctx",)
            elif kw == "msgid":
                cur["id"], field = value, ("id",)
            elif kw == "msgid_plural":
                cur["plural"], field = value, ("plural",)
            else:
                n = int(m.group(2) or 0)
                cur["strs"][n], field = value, ("strs", n)
            continue
        assert line.startswith('"'), line
        value = _unquote(line)
        if field[0] == "strs":
            cur["strs"][field[1]] += value
        else:
            cur[field[0]] += value
    flush()
    return entries


def catalogue(lang: str) -> list[dict]:
    return parse_po(LOCALE / lang / "LC_MESSAGES" / "django.po")


def header(entries: list[dict]) -> dict[str, str]:
    head = next(e for e in entries if e["id"] == "")
    return dict(line.split(": ", 1) for line in head["strs"][0].splitlines() if ": " in line)


def test_english_catalogue_translates_every_russian_msgid():
    entries = catalogue("en")
    assert "fuzzy" not in next(e for e in entries if e["id"] == "")["flags"]
    russian = [e for e in entries if CYRILLIC.search(e["id"])]
    assert len(russian) > 300
    untranslated = [e["id"] for e in russian if not all(e["strs"].values()) or "fuzzy" in e["flags"]]
    assert untranslated == []
    still_russian = [(e["id"], e["strs"]) for e in russian if any(CYRILLIC.search(s) for s in e["strs"].values())]
    assert still_russian == []
    assert header(entries)["Language"] == "en"


def test_russian_catalogue_translates_every_english_msgid_and_has_three_plural_forms():
    entries = catalogue("ru")
    head = header(entries)
    assert head["Language"] == "ru" and head["Plural-Forms"] == RU_PLURAL_FORMS
    english = [e for e in entries if e["id"] and not CYRILLIC.search(e["id"])]
    assert english, "model choices and verbose names are English msgids"
    assert [e["id"] for e in english if not e["strs"].get(0) or "fuzzy" in e["flags"]] == []
    plurals = [e for e in entries if e["plural"]]
    for e in plurals:
        assert sorted(e["strs"]) == [0, 1, 2] and all(e["strs"].values()), e["id"]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_placeholders_are_kept(lang):
    for e in catalogue(lang):
        if not e["id"]:
            continue
        allowed = {
            tuple(sorted(PLACEHOLDER.findall(e["id"]))),
            tuple(sorted(PLACEHOLDER.findall(e["plural"] or e["id"]))),
        }
        for text in e["strs"].values():
            if text:
                assert tuple(sorted(PLACEHOLDER.findall(text))) in allowed, (e["id"], text)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_compiled_catalogue_matches_the_po(lang):
    mo = LOCALE / lang / "LC_MESSAGES" / "django.mo"
    assert mo.exists(), "run `make messages` (compilemessages) and commit the .mo"
    with mo.open("rb") as fh:
        compiled = py_gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
    stale = []
    for e in catalogue(lang):
        if not e["id"] or "fuzzy" in e["flags"]:
            continue
        key = e["id"] if e["ctx"] is None else f"{e['ctx']}\x04{e['id']}"
        if e["plural"] is None:
            if e["strs"].get(0) and compiled.get(key) != e["strs"][0]:
                stale.append(e["id"])
        elif all(e["strs"].values()) and any(compiled.get((key, n)) != text for n, text in e["strs"].items()):
            stale.append(e["id"])
    assert stale == [], "the .mo is older than the .po: run compilemessages"
