"""Issue 11: bad input never reaches a 500, a refusal changes nothing, and a
committed action is never reported as lost.

One test per finding of the issue, and the malformed-input corpus (log files
for import_log, POST bodies for the console's endpoints) whose counts are
printed: responses >= 500, tracebacks, malformed inputs accepted.
"""

from __future__ import annotations

import json
import logging

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from games import services
from games.models import (
    Game,
    GameAction,
    GameSeat,
    NightAction,
    Nomination,
    Penalty,
    SeatResult,
    Vote,
)

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def client_host(host):
    c = Client(raise_request_exception=False)
    c.force_login(host)
    return c


def running_game(host):
    """A game in its first Day's first speech, made through the services (no page drawn)."""
    game = services.game_create(host=host, title="Стол", players=PLAYERS)
    for action in (
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
        {"do": "start"},
        {"do": "next"},
        {"do": "next"},
    ):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    return game


def snapshot(game):
    """Everything a refusal must leave as it was: revision, log, projection and result rows."""
    game.refresh_from_db()
    return (
        game.seq,
        game.public_state,
        list(GameAction.objects.filter(game=game).order_by("seq").values_list("seq", "payload", "undone_at")),
        *(model.objects.filter(game=game).count() for model in (Nomination, Vote, Penalty, NightAction, SeatResult)),
        list(GameSeat.objects.filter(game=game).order_by("seat_no").values_list("seat_no", "nickname", "role")),
        game.overlay_token,
        game.overlay_delay_seconds,
        game.clock_duration_ms,
        game.clock_started_at,
        game.timeout_since,
    )


def post(client, game, name, data):
    game.refresh_from_db()
    body = {"expected_seq": game.seq, **data} if name in ("act", "undo") else dict(data)
    return client.post(reverse(f"games:{name}", args=[game.pk]), body, **HX)


# --- finding 1: the read race --------------------------------------------------------------------


def _commit_during_the_replay(monkeypatch, host, game, action):
    """Record `action` (another device) right after the page's view read the
    log and before it replays it: between the two reads of the old
    `replayed()` (seqs, then payloads), deterministically."""
    from games import reading

    real = reading.replay_lines
    fired = []

    def hooked(*args, **kwargs):
        if not fired:
            fired.append(True)
            fresh = Game.objects.get(pk=game.pk)
            services.game_record_action(game=fresh, action=action, expected_seq=fresh.seq, by=host)
        return real(*args, **kwargs)

    monkeypatch.setattr(reading, "replay_lines", hooked)
    return fired


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["console", "console_fragment"])
def test_finding1_an_action_committed_between_the_reads_never_breaks_the_page(monkeypatch, host, client_host, page):
    game = running_game(host)
    fired = _commit_during_the_replay(monkeypatch, host, game, {"do": "nominate", "by": 1, "target": 5})
    response = client_host.get(reverse(f"games:{page}", args=[game.pk]), **HX)
    assert fired and response.status_code == 200
    assert GameAction.objects.filter(game=game, payload__do="nominate").exists()


@pytest.mark.django_db
def test_finding1_a_committed_action_is_answered_as_recorded_even_when_another_lands_during_the_render(
    monkeypatch, host, client_host
):
    game = running_game(host)
    seq = game.seq
    # The host's own foul commits; while its answer is drawn, a second device nominates.
    fired = _commit_during_the_replay(monkeypatch, host, game, {"do": "nominate", "by": 1, "target": 5})
    response = post(client_host, game, "act", {"do": "foul", "seat": "7"})
    assert fired and response.status_code == 200
    assert GameAction.objects.filter(game=game, seq=seq + 1, payload__do="foul").exists()


@pytest.mark.django_db
def test_finding1_undo_with_an_action_committed_between_the_reads(monkeypatch, host, client_host):
    game = running_game(host)
    fired = _commit_during_the_replay(monkeypatch, host, game, {"do": "foul", "seat": 6})
    response = post(client_host, game, "undo", {})
    # The other device's foul moved the revision on: a clean 409, not a 500.
    assert fired and response.status_code == 409


@pytest.mark.django_db
def test_finding1_a_failing_render_after_the_commit_still_says_recorded(monkeypatch, host, client_host, caplog):
    from games.console import views

    game = running_game(host)
    monkeypatch.setattr(views, "console_context", lambda g: 1 / 0)
    response = post(client_host, game, "act", {"do": "foul", "seat": "7"})
    game.refresh_from_db()
    assert response.status_code == 200
    assert response["HX-Refresh"] == "true" and response["X-Recorded-Revision"] == str(game.seq)
    assert "Записано" in response.content.decode()
    assert GameAction.objects.filter(game=game, payload__do="foul").count() == 1


# --- finding 2: the JSON `action` field goes through the same checks --------------------------------


def _json(action: dict | str) -> dict:
    return {"action": action if isinstance(action, str) else json.dumps(action, ensure_ascii=False)}


FINDING2 = {
    "long_nickname": _json({"do": "seat", "players": [*PLAYERS[:9], "N" * 100]}),
    "long_reason": _json({"do": "foul", "seat": 3, "reason": "r" * 5000}),
    "ten_identical_nicknames": _json({"do": "seat", "players": ["Same"] * 10}),
    "unknown_key_1mb": _json({"do": "next", "junk": "x" * (1024 * 1024)}),
    "nan": _json('{"do": "foul", "seat": NaN}'),
    "nul": _json('{"do": "foul", "seat": 3, "reason": "a\\u0000b"}'),
    "deep_nesting": _json('{"do": "foul", "seat": 3, "reason": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    "int_5000_digits": _json('{"do": "foul", "seat": ' + "7" * 5000 + "}"),
    "form_reason_nul": {"do": "foul", "seat": "3", "reason_text": "a\x00b"},
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(FINDING2))
def test_finding2_malformed_actions_are_refused_and_change_nothing(host, client_host, name):
    game = (
        running_game(host)
        if name not in ("long_nickname", "ten_identical_nicknames")
        else services.game_create(host=host, players=PLAYERS)
    )
    before = snapshot(game)
    response = post(client_host, game, "act", FINDING2[name])
    assert response.status_code == 422, response.content[:300]
    assert snapshot(game) == before


@pytest.mark.django_db
def test_finding2_the_refusal_names_the_action_and_field_in_both_languages(host, client_host):
    game = running_game(host)
    body = _json({"do": "foul", "seat": 3, "reason": "r" * 301})
    ru = post(client_host, game, "act", body).content.decode()
    assert "Действие №" in ru and "«reason»" in ru and "длиннее 300" in ru
    client_host.cookies["django_language"] = "en"
    en = post(client_host, game, "act", body).content.decode()
    assert "field &#x27;reason&#x27;" in en and "longer than 300" in en


@pytest.mark.django_db
def test_finding2_penalty_may_carry_a_catalogue_reason_code(host, client_host):
    game = running_game(host)
    ok = post(client_host, game, "act", _json({"do": "foul", "seat": 3, "reason_code": "flood_spam"}))
    assert ok.status_code == 200
    bad = post(client_host, game, "act", _json({"do": "foul", "seat": 3, "reason_code": "made_up"}))
    assert bad.status_code == 422


# --- finding 3: import_log gives one line, stores nothing ------------------------------------------------


def _log(*actions, **top):
    return {"format": "mafia-protocol-log/1", **top, "actions": list(actions)}


SEAT = {"do": "seat", "players": PLAYERS}
ROLES = {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}


def malformed_log_files() -> dict[str, bytes]:
    """~30 malformed log files: each must end in one line and store nothing."""
    j = lambda value: json.dumps(value, ensure_ascii=False).encode()  # noqa: E731
    return {
        "actions_are_numbers": j(_log(1, 2, 3)),
        "action_is_null": j(_log(SEAT, None)),
        "action_is_a_string": j(_log("seat")),
        "not_utf8": json.dumps(
            _log({"do": "seat", "players": [f"Игрок{i}" for i in range(10)]}), ensure_ascii=False
        ).encode("cp1251"),
        "deep_nesting": b'{"actions": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "int_4300_digits": b'{"actions": [{"do": "foul", "seat": ' + b"9" * 4300 + b"}]}",
        "title_over_200": j(_log(SEAT, ROLES)),  # with --title below
        "nickname_over_64": j(_log({"do": "seat", "players": [*PLAYERS[:9], "N" * 65]})),
        "reason_over_300": j(_log(SEAT, ROLES, {"do": "start"}, {"do": "foul", "seat": 2, "reason": "r" * 301})),
        "duplicate_nicknames": j(_log({"do": "seat", "players": ["Same"] * 10})),
        "case_duplicate_nicknames": j(_log({"do": "seat", "players": [*PLAYERS[:9], "alpha"]})),
        "unknown_field": j(_log(SEAT, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4], "note": "x"})),
        "padding_10mb": j(_log(SEAT, {"do": "start", "pad": "x" * (10 * 1024 * 1024)})),
        "action_over_8kib": j(_log({"do": "annul", "reason": "ok", "x": "y" * 9000})),
        "nan": b'{"actions": [{"do": "foul", "seat": NaN}]}',
        "infinity": b'{"actions": [{"do": "foul", "seat": Infinity}]}',
        "nul_in_nickname": j(_log({"do": "seat", "players": [*PLAYERS[:9], "a\u0000b"]})),
        "control_char_in_reason": j(
            _log(SEAT, ROLES, {"do": "start"}, {"do": "foul", "seat": 2, "reason": "a\u001bb"})
        ),
        "lone_surrogate": b'{"actions": [{"do": "seat", "players": ["\\ud800", "B", "C", "D", "E", "F", "G", "H", "I", "J"]}]}',
        "seat_as_bool": j(_log(SEAT, {"do": "roles", "sheriff": True, "don": 2, "mafia": [3, 4]})),
        "seat_as_float": j(_log(SEAT, {"do": "roles", "sheriff": 1.0, "don": 2, "mafia": [3, 4]})),
        "seat_as_string": j(_log(SEAT, {"do": "roles", "sheriff": "1", "don": 2, "mafia": [3, 4]})),
        "seat_out_of_range": j(_log(SEAT, {"do": "roles", "sheriff": 11, "don": 2, "mafia": [3, 4]})),
        "unknown_do": j(_log({"do": "fly"})),
        "missing_do": j(_log({"players": PLAYERS})),
        "actions_not_a_list": j({"format": "mafia-protocol-log/1", "actions": {"0": SEAT}}),
        "top_level_list": j([SEAT]),
        "unknown_format": j({"format": "mafia-protocol-log/9", "actions": [SEAT]}),
        "truncated_json": j(_log(SEAT))[:-5],
        "empty_file": b"",
        "duplicate_key": b'{"actions": [{"do": "seat", "do": "start"}]}',
        "refused_by_the_rules": j(_log(SEAT, {"do": "votes", "for": {}})),
    }


def _import(tmp_path, name, raw, **options):
    path = tmp_path / f"{name}.json"
    path.write_bytes(raw)
    call_command("import_log", str(path), "--host", "host", **options)


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(malformed_log_files()))
def test_finding3_import_log_refuses_a_malformed_file_in_one_line(host, tmp_path, name):
    raw = malformed_log_files()[name]
    options = {"title": "T" * 201} if name == "title_over_200" else {}
    with pytest.raises(CommandError) as info:
        _import(tmp_path, name, raw, **options)
    assert "\n" not in str(info.value) and len(str(info.value)) < 600
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_finding3_unknown_top_level_keys_are_ignored(host, tmp_path, examples_dir):
    data = json.loads((examples_dir / "red_win.json").read_text())
    data["comment"] = {"any": ["thing", 1]}
    data["name"] = "N" * 500  # not a valid title: ignored like any other key
    _import(tmp_path, "ok", json.dumps(data).encode())
    game = Game.objects.get()
    assert game.winner == "red" and game.title == ""


def test_finding3_import_log_as_a_process_prints_one_line_and_no_traceback(tmp_path):
    import os
    import subprocess
    import sys

    # The file is refused before any database access: no migrated database needed.
    path = tmp_path / "deep.json"
    path.write_bytes(malformed_log_files()["deep_nesting"])
    env = {**os.environ, "SQLITE_PATH": str(tmp_path / "db.sqlite3")}
    env.pop("DATABASE_URL", None)
    run = subprocess.run(
        [sys.executable, "manage.py", "import_log", str(path)], env=env, capture_output=True, text=True
    )
    assert run.returncode != 0
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


# --- the corpus: counts -----------------------------------------------------------------------------------


def malformed_post_bodies() -> list[tuple[str, dict]]:
    """~50 malformed POST bodies for act / undo / clock / overlay on a running game."""
    bodies: list[tuple[str, dict]] = [("act", body) for body in FINDING2.values()]
    bodies += [
        ("act", {"do": "foul", "seat": "0"}),
        ("act", {"do": "foul", "seat": "11"}),
        ("act", {"do": "foul", "seat": "abc"}),
        ("act", {"do": "foul", "seat": "9" * 5000}),
        ("act", {"do": "foul", "seat": "١"}),
        ("act", {"do": "foul"}),
        ("act", {"do": "fly"}),
        ("act", {"do": ""}),
        ("act", {}),
        ("act", {"do": "foul", "seat": "3", "reason_text": "x" * 301}),
        ("act", {"do": "foul", "seat": "3", "reason_text": "tab\there"}),
        ("act", {"do": "nominate", "by": "1"}),
        ("act", {"do": "nominate", "by": "1", "target": "1.5"}),
        ("act", {"do": "votes", "vote-11": "2"}),
        ("act", {"do": "votes", "vote-x": "2"}),
        ("act", {"do": "shots", "shot-3": "99"}),
        ("act", {"do": "best_move", "mode": "maybe"}),
        ("act", {"do": "best_move", "mode": "seats", "seats": "1,2,3,4"}),
        ("act", {"do": "ppk", "team": "green"}),
        ("act", {"do": "seat", "players": "A\nB"}),
        ("act", {"do": "roles", "sheriff": "1", "don": "2", "mafia": "3"}),
        ("act", {"do": "foul", "seat": "3", "expected_seq": "x"}),
        ("act", _json("not json")),
        ("act", _json("[]")),
        ("act", _json("null")),
        ("act", _json('{"do": "expect", "step": "speech"}')),
        ("act", _json({"do": "foul", "seat": True})),
        ("act", _json({"do": "foul", "seat": 3.0})),
        ("act", _json({"do": "foul", "seat": "3"})),
        ("act", _json('{"do": "foul", "seat": 3, "reason": "\\ud800"}')),
        ("act", _json('{"do": "foul", "do": "next", "seat": 3}')),
        ("act", _json({"do": "votes", "for": {"1e3": [1]}})),
        ("act", _json({"do": "next", "reject": "yes"})),
        ("act", _json({"do": "annul", "reason_code": "beacons"})),
        ("undo", {"expected_seq": "abc"}),
        ("undo", {"expected_seq": "9" * 5000}),
        ("clock", {"command": "explode"}),
        ("clock", {"command": "adjust", "seconds": "1e9"}),
        ("clock", {"command": "adjust", "seconds": "9" * 5000}),
        ("clock", {"command": "adjust", "seconds": "+-5"}),
        ("overlay", {"enabled": "yes"}),
        ("overlay", {"enabled": "1", "delay": "-5"}),
        ("overlay", {"enabled": "1", "delay": "x"}),
        ("overlay", {"enabled": "0", "rotate": "2"}),
    ]
    return bodies


class _TracebackCatcher(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        if record.exc_info:
            self.records.append(record)


@pytest.mark.django_db
def test_corpus_of_malformed_post_bodies(host, client_host, capsys):
    bodies = malformed_post_bodies()
    catcher = _TracebackCatcher()
    logging.getLogger().addHandler(catcher)
    server_errors = 0
    accepted_bodies: list = []
    try:
        game = running_game(host)
        client_host.post(reverse("games:overlay", args=[game.pk]), {"enabled": "1", "delay": "30"}, **HX)
        for name, body in bodies:
            before = snapshot(game)
            if name == "undo":
                response = client_host.post(reverse("games:undo", args=[game.pk]), body, **HX)
            else:
                response = post(client_host, game, name, body)
            server_errors += response.status_code >= 500
            if snapshot(game) != before:
                accepted_bodies.append((name, body, response.status_code))
    finally:
        logging.getLogger().removeHandler(catcher)
    accepted = len(accepted_bodies)
    with capsys.disabled():
        print(
            f"\n[corpus] POST bodies: {len(bodies)}, responses >= 500: {server_errors}, tracebacks: {len(catcher.records)}, accepted: {accepted}"
        )
    assert len(bodies) >= 50
    assert (server_errors, len(catcher.records), accepted) == (0, 0, 0), accepted_bodies


@pytest.mark.django_db
def test_corpus_of_malformed_log_files(host, tmp_path, capsys):
    files = malformed_log_files()
    catcher = _TracebackCatcher()
    logging.getLogger().addHandler(catcher)
    refused_in_one_line = tracebacks = accepted = 0
    try:
        for name, raw in files.items():
            options = {"title": "T" * 201} if name == "title_over_200" else {}
            try:
                _import(tmp_path, name, raw, **options)
            except CommandError as exc:
                refused_in_one_line += "\n" not in str(exc)
            except Exception:  # a traceback: what the issue found
                tracebacks += 1
            else:
                accepted += 1
    finally:
        logging.getLogger().removeHandler(catcher)
    tracebacks += len(catcher.records)
    with capsys.disabled():
        print(
            f"\n[corpus] log files: {len(files)}, refused in one line: {refused_in_one_line}, tracebacks: {tracebacks}, accepted: {accepted}, games stored: {Game.objects.count()}"
        )
    assert len(files) >= 30
    assert (tracebacks, accepted, Game.objects.count(), refused_in_one_line) == (0, 0, 0, len(files))


# --- the other paths that make a seating ---------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {"title": "Стол\x1b1", "players": "\n".join(PLAYERS), "seating": "typed"},
        {"title": "Стол", "players": "\n".join([*PLAYERS[:9], "Ju\x07liett"]), "seating": "typed"},
        {"title": "Стол", "players": "\n".join([*PLAYERS[:9], "alpha"]), "seating": "random"},
        {"title": "T" * 201, "players": "\n".join(PLAYERS), "seating": "typed"},
    ],
)
def test_create_form_refuses_what_the_schema_refuses_without_a_500(client_host, data):
    response = client_host.post(reverse("games:create"), data)
    assert response.status_code == 200  # the form again, with its error
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_tournament_nicknames_lose_control_characters_before_they_reach_a_game(host):
    from tournaments import services as tournament_services

    t = tournament_services.tournament_create(name="Кубок", organizer=host)
    result = tournament_services.participants_add(tournament=t, entries=["Al\x00pha", "Bra\x1bvo", "\x07"])
    assert [p.nickname for p in result.created] == ["Alpha", "Bravo"]
