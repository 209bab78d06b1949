"""/healthz (readiness) and /healthz/live (liveness) (issues 15, 27-6).

Readiness is 503 only for the database (it must answer and accept a write);
a channel layer that fails is reported ("degraded", 200): nginx's failover
and the rolling update must not take every worker out because Redis is down.
"""

from __future__ import annotations

import concurrent.futures

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
def test_channel_layer_that_loses_the_message_is_reported_but_the_worker_stays_ready(client, monkeypatch):
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
    for path in ("/healthz", "/healthz/ready"):
        response = client.get(path)
        assert response.status_code == 200  # was 503: nginx then marked every worker down
        body = response.json()
        assert body["status"] == "degraded" and body["failed"] == ["channel_layer"] and body["database"] == "ok"


@pytest.mark.django_db
def test_a_database_that_refuses_writes_is_not_ready(client, monkeypatch):
    def read_only():
        raise connection.Database.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(health, "_database_accepts_a_write", read_only)
    response = client.get("/healthz")
    assert response.status_code == 503 and response.json()["failed"] == ["database"]


@pytest.mark.django_db
def test_the_write_probe_writes_one_row_again_and_again(client):
    for _ in range(3):
        assert client.get("/healthz").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {health._PROBE_TABLE}")
        assert cursor.fetchone()[0] == 1


def test_liveness_touches_neither_the_database_nor_the_channel_layer(client, monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("liveness must not check this")

    monkeypatch.setattr(health, "check_database", boom)
    monkeypatch.setattr(health, "check_channel_layer", boom)
    # In a thread of its own: the browser tests' Playwright (sync API) keeps an event
    # loop marked running in the main thread, and the request path may use async_to_sync.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        response = pool.submit(client.get, "/healthz/live").result(timeout=60)
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_healthz_stays_on_plain_http_when_https_redirects_everything_else(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    for path in ("/healthz", "/healthz/ready", "/healthz/live"):
        assert client.get(path).status_code == 200
    assert client.get("/accounts/login/").status_code == 301
