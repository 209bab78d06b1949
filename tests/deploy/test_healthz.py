"""/healthz answers 200 when the database and the channel layer work, 503 naming what failed (issue 15)."""

from __future__ import annotations

import pytest
from django.db import connection

from mafia_protocol import health


@pytest.mark.django_db
def test_healthy_worker_answers_200_with_json_without_signing_in(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["channel_layer"] == "ok"
    assert "failed" not in body
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


@pytest.mark.django_db
def test_database_failure_is_a_503_naming_the_database(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise connection.Database.OperationalError("connection refused: password=secret")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["database"] and body["database"] == "failed: OperationalError"
    assert body["channel_layer"] == "ok"
    assert "secret" not in response.content.decode()  # never the error's text


@pytest.mark.django_db
def test_channel_layer_that_loses_the_message_is_a_503_naming_it(client, monkeypatch):
    class DroppingLayer:
        async def new_channel(self, prefix="specific."):
            return prefix + "x"

        async def send(self, channel, message):
            pass  # dropped, as by an unreachable Redis

        async def receive(self, channel):
            import asyncio

            await asyncio.sleep(3600)

    monkeypatch.setattr(health, "get_channel_layer", lambda: DroppingLayer())
    monkeypatch.setattr(health, "CHANNEL_LAYER_TIMEOUT_S", 0.05)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failed"] == ["channel_layer"] and response.json()["database"] == "ok"


@pytest.mark.django_db
def test_healthz_stays_on_plain_http_when_https_redirects_everything_else(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/accounts/login/").status_code == 301
