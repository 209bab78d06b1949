"""Issue 11: property-based tests of bad input (hypothesis).

Random form bodies and random JSON actions posted to a running game's
endpoints (act, undo, clock, overlay settings), and random or malformed log
files given to import_log: never a 5xx, never a traceback; a refusal leaves
the log, the revision and the projection rows unchanged. The example counts
are moderate so the suite stays fast on SQLite (`make test`) and PostgreSQL
(`.ci/run`).
"""

from __future__ import annotations

import json
import logging

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Game
from games.rules.schema import SCHEMA
from tests.test_bad_input import HX, PLAYERS, running_game, snapshot

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Text a client can send in a form: anything but lone surrogates (not encodable).
form_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
digits = st.integers(min_value=-20, max_value=30).map(str)
form_value = st.one_of(
    form_text,
    digits,
    st.sampled_from(
        ["", " ", "1", "10", "3,4", "red", "black", "pass", "seats", "not_accepted", "\x00", "١", "1e3", "NaN"]
    ),
)
FIELD_NAMES = [
    "do",
    "seat",
    "by",
    "target",
    "reason",
    "reason_text",
    "reason_code",
    "team",
    "mode",
    "seats",
    "yes",
    "players",
    "sheriff",
    "don",
    "mafia",
    "seating",
    *(f"vote-{i}" for i in range(0, 12)),
    *(f"shot-{i}" for i in range(0, 12)),
]
KINDS = [*SCHEMA, "fly", "", "DO"]

form_bodies = st.fixed_dictionaries(
    {"do": st.sampled_from(KINDS)}, optional={name: form_value for name in FIELD_NAMES if name != "do"}
).flatmap(
    lambda base: st.dictionaries(
        form_text.filter(lambda k: k not in ("action", "expected_seq")), form_value, max_size=3
    ).map(lambda extra: {**extra, **base})
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=80),
    st.text(max_size=400),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=20,
)
json_actions = st.one_of(
    st.fixed_dictionaries(
        {"do": st.sampled_from(KINDS)},
        optional=dict.fromkeys(
            (
                "seat",
                "by",
                "target",
                "reason",
                "reason_code",
                "for",
                "yes",
                "seats",
                "accepted",
                "pass",
                "team",
                "players",
                "reject",
                "seed",
                "junk",
            ),
            json_values,
        ),
    ),
    json_values,
)


def _encode(value) -> str:
    # allow_nan: NaN / Infinity reach the server as the literals a hostile client would send.
    return json.dumps(value, allow_nan=True)


raw_json_text = st.one_of(
    json_actions.map(_encode),
    form_text,
    st.just("[" * 5000),
    st.builds(lambda n: '{"do": "foul", "seat": ' + "9" * n + "}", st.integers(1, 6000)),
)


class _Tracebacks(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        if record.exc_info:
            self.records.append(record)


@pytest.fixture
def tracebacks():
    handler = _Tracebacks()
    logging.getLogger().addHandler(handler)
    yield handler.records
    logging.getLogger().removeHandler(handler)


@pytest.fixture
def client_host(host):
    c = Client(raise_request_exception=False)
    c.force_login(host)
    return c


def _check(response, game, before, tracebacks):
    assert response.status_code < 500, response.content[:300]
    assert not tracebacks, tracebacks[0].getMessage()
    if response.status_code >= 400:
        assert snapshot(game) == before


@pytest.mark.django_db
@SETTINGS
@given(body=form_bodies)
def test_random_form_bodies_never_5xx_and_refusals_change_nothing(host, client_host, tracebacks, body):
    game = running_game(host)
    before = snapshot(game)
    response = client_host.post(reverse("games:act", args=[game.pk]), {"expected_seq": game.seq, **body}, **HX)
    _check(response, game, before, tracebacks)


@pytest.mark.django_db
@SETTINGS
@given(raw=raw_json_text)
def test_random_json_actions_never_5xx_and_refusals_change_nothing(host, client_host, tracebacks, raw):
    game = running_game(host)
    before = snapshot(game)
    response = client_host.post(reverse("games:act", args=[game.pk]), {"expected_seq": game.seq, "action": raw}, **HX)
    _check(response, game, before, tracebacks)


@pytest.mark.django_db
@SETTINGS
@given(
    endpoint=st.sampled_from(["undo", "clock", "overlay"]),
    body=st.dictionaries(
        st.sampled_from(["expected_seq", "command", "seconds", "enabled", "delay", "rotate"]) | form_text,
        form_value,
        max_size=4,
    ),
)
def test_random_undo_clock_overlay_bodies_never_5xx(host, client_host, tracebacks, endpoint, body):
    game = running_game(host)
    before = snapshot(game)
    response = client_host.post(reverse(f"games:{endpoint}", args=[game.pk]), body, **HX)
    _check(response, game, before, tracebacks)


log_structures = st.one_of(
    st.fixed_dictionaries(
        {
            "format": st.sampled_from(["mafia-protocol-log/1", "x"]) | json_values,
            "actions": st.lists(json_actions, max_size=6),
        }
    ),
    st.fixed_dictionaries(
        {
            "actions": st.lists(st.just({"do": "seat", "players": PLAYERS}), max_size=1).flatmap(
                lambda head: st.lists(json_actions, max_size=4).map(lambda tail: head + tail)
            )
        }
    ),
    json_values,
)
log_bytes = st.one_of(
    log_structures.map(lambda v: json.dumps(v, allow_nan=True).encode("utf-8", "surrogatepass")),
    st.binary(max_size=200),
)


@pytest.mark.django_db
@SETTINGS
@given(raw=log_bytes)
def test_random_log_files_end_in_one_line_or_a_game(host, tmp_path_factory, tracebacks, raw):
    path = tmp_path_factory.mktemp("logs") / "log.json"
    path.write_bytes(raw)
    games_before = Game.objects.count()
    try:
        call_command("import_log", str(path), "--host", "host", stdout=open("/dev/null", "w"))  # noqa: SIM115
    except CommandError as exc:
        assert "\n" not in str(exc)
        assert Game.objects.count() == games_before  # nothing stored half-way
    assert not tracebacks
