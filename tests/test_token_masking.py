"""Overlay tokens never in a log (issue 22, finding 5).

The probe found them in daphne's access log, in both forms (the path
`/games/<id>/overlay/<token>/` and `?token=`), and in the one-line refusal log.
"""

from __future__ import annotations

import io
import logging

import pytest

from games import services
from games.models import new_overlay_token
from mafia_protocol.access_log import mask_tokens


def test_both_forms_are_masked_and_the_overlays_own_words_are_not():
    token = new_overlay_token()
    assert token not in mask_tokens(f"GET /games/7/overlay/{token}/")
    assert mask_tokens(f"GET /games/7/overlay/{token}/") == "GET /games/7/overlay/***/"
    assert (
        mask_tokens(f"GET /games/7/overlay/state/?token={token}&lang=ru")
        == "GET /games/7/overlay/state/?token=***&lang=ru"
    )
    assert (
        mask_tokens(f"WSCONNECTING /ws/games/7/overlay/?lang=en&token={token}")
        == "WSCONNECTING /ws/games/7/overlay/?lang=en&token=***"
    )
    assert mask_tokens("GET /games/7/overlay/settings/") == "GET /games/7/overlay/settings/"


def test_daphnes_access_log_masks_them():
    from daphne.access import AccessLogGenerator

    import mafia_protocol.asgi  # noqa: F401  (installs the masking, as daphne imports it)

    token = new_overlay_token()
    out = io.StringIO()
    log = AccessLogGenerator(out)
    log(
        "http",
        "complete",
        {"client": "127.0.0.1:5000", "method": "GET", "path": f"/games/7/overlay/{token}/", "status": 200, "size": 10},
    )
    log(
        "http",
        "complete",
        {
            "client": "127.0.0.1:5000",
            "method": "GET",
            "path": f"/games/7/overlay/state/?token={token}",
            "status": 403,
            "size": 10,
        },
    )
    log("websocket", "connecting", {"client": "127.0.0.1:5000", "path": f"/ws/games/7/overlay/?token={token}"})
    text = out.getvalue()
    assert token not in text and text.count("***") == 3 and len(text.splitlines()) == 3


@pytest.mark.django_db
def test_the_refusal_line_masks_a_wrong_token_in_the_path(client, host, caplog):
    game = services.game_create(host=host, title="Overlay", players=[f"P{i}" for i in range(1, 11)])
    guess = new_overlay_token()
    with caplog.at_level(logging.WARNING, logger="django.request"):
        r = client.get(f"/games/{game.pk}/overlay/{guess}/")
        client.get(f"/games/{game.pk}/overlay/state/?token={guess}")
    assert r.status_code in (403, 404)
    lines = [rec.getMessage() for rec in caplog.records if rec.name == "django.request"]
    assert lines and all(guess not in line for line in lines)
    assert any("/overlay/***/" in line for line in lines)
