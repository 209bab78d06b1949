"""Issue 11, finding 7: a refused request is logged as one line (method, path,
user, reason), never with a traceback; a real 500 keeps its traceback."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.urls import path

from games import services
from mafia_protocol import urls as project_urls

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]


def _request_records(caplog):
    return [r for r in caplog.records if r.name.startswith("django.request") or r.name.startswith("django.security")]


@pytest.mark.django_db
def test_secret_protocol_403_is_one_line_without_traceback(host, other_user, caplog):
    game = services.game_create(host=host, players=PLAYERS)
    client = Client()
    client.force_login(other_user)
    with caplog.at_level(logging.WARNING):
        response = client.get(f"/games/{game.pk}/log.json")
    assert response.status_code == 403
    [record] = _request_records(caplog)
    line = record.getMessage()
    assert record.exc_info is None and "\n" not in line
    assert line.startswith(f"403 GET /games/{game.pk}/log.json user=stranger reason=")
    assert "secret" in line


@pytest.mark.django_db
def test_404_is_one_line_with_its_reason(host, caplog):
    client = Client()
    client.force_login(host)
    with caplog.at_level(logging.WARNING):
        response = client.get("/games/999999/")
    assert response.status_code == 404
    [record] = _request_records(caplog)
    assert record.exc_info is None
    assert record.getMessage().startswith("404 GET /games/999999/ user=host reason=")


@pytest.mark.django_db
def test_refused_action_422_is_one_line(host, caplog):
    game = services.game_create(host=host, players=PLAYERS)
    client = Client()
    client.force_login(host)
    with caplog.at_level(logging.WARNING):
        client.post(
            f"/games/{game.pk}/act/",
            {"expected_seq": game.seq, "action": '{"do": "next", "junk": 1}'},
            HTTP_HX_REQUEST="true",
        )
    [record] = _request_records(caplog)
    assert (
        record.exc_info is None
        and record.getMessage() == f"422 POST /games/{game.pk}/act/ user=host reason=Unprocessable Content"
    )


def _boom(request):
    raise RuntimeError("a real bug")


urlpatterns = [*project_urls.urlpatterns, path("boom/", _boom)]


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_a_real_500_keeps_its_traceback(caplog):
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING):
        response = client.get("/boom/")
    assert response.status_code == 500
    [record] = [r for r in _request_records(caplog) if r.levelno >= logging.ERROR]
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError
