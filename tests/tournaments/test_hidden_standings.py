"""Hidden results (issue 31): the organizer hides the public standings after a round.

Every public surface — the page and its fragment, the live socket (snapshot and frames),
the workbook, a participant's tournament page — must be the same, byte for byte or cell
for cell, before and after a later round is played; organizers and table hosts see the
live table; publishing again shows everything at once.
"""

from __future__ import annotations

import io

import openpyxl
import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from mafia_protocol.asgi import application
from tests.tournaments.helpers import play_scripted, seated_tournament
from tournaments import services
from tournaments.models import Participant, Table

ORIGIN = [(b"origin", b"http://testserver")]


def two_round_tournament(organizer, host):
    t = seated_tournament(organizer, [host], players=10, rounds=2)
    for rnd in t.stages.get().rounds.all():
        services.round_start_games(round=rnd, by=organizer)
    tables = list(Table.objects.filter(round__stage__tournament=t).order_by("round__number"))
    return t, tables


def public_surfaces(client: Client, t) -> dict[str, object]:
    p = Participant.objects.filter(tournament=t).order_by("pk").first()
    fragment = client.get(f"/tournaments/{t.pk}/standings/?fragment=1").content.decode()
    player = client.get(f"/tournaments/{t.pk}/players/{p.pk}/").content.decode()
    book = openpyxl.load_workbook(io.BytesIO(client.get(f"/tournaments/{t.pk}/standings.xlsx").content))
    cells = {ws.title: [[c.value for c in row] for row in ws.iter_rows()] for ws in book.worksheets}
    # The player page's <main> (the top bar carries a per-request CSP nonce).
    main = player[player.index("<main") : player.index("</main>")]
    return {"fragment": fragment, "player": main, "workbook": cells}


@pytest.fixture
def organizer(django_user_model):
    return django_user_model.objects.create_user(username="org", password="org-pass-123")


@pytest.mark.django_db
def test_public_surfaces_do_not_change_when_a_later_round_is_played(organizer, host, django_user_model):
    t, (r1, r2) = two_round_tournament(organizer, host)
    play_scripted(r1, by=organizer)
    services.tournament_hide_standings(tournament=t, after_round=r1.round, by=organizer)
    anonymous, stranger = Client(), Client()
    stranger.force_login(django_user_model.objects.create_user(username="x", password="x-pass-123"))
    before = public_surfaces(anonymous, t)
    assert 'data-games="1"' in before["fragment"] and "скрыты организатором" in before["fragment"]
    play_scripted(r2, by=organizer, n1_victim=5, best_move=[2, 3, 4])
    assert public_surfaces(anonymous, t) == before
    assert public_surfaces(stranger, t) == before
    # The workbook carries the protocols of the rounds the public sees, no more.
    assert len(before["workbook"]) == 2  # the standings sheet and round 1's protocol


@pytest.mark.django_db
def test_organizers_and_table_hosts_see_the_live_table(organizer, host):
    t, (r1, r2) = two_round_tournament(organizer, host)
    play_scripted(r1, by=organizer)
    services.tournament_hide_standings(tournament=t, after_round=r1.round, by=organizer)
    play_scripted(r2, by=organizer)
    for user in (organizer, host):
        c = Client()
        c.force_login(user)
        fragment = c.get(f"/tournaments/{t.pk}/standings/?fragment=1").content.decode()
        assert 'data-games="2"' in fragment and "публично она скрыта" in fragment
        book = openpyxl.load_workbook(io.BytesIO(c.get(f"/tournaments/{t.pk}/standings.xlsx").content))
        assert len(book.worksheets) == 3


@pytest.mark.django_db
def test_publishing_again_shows_every_round_and_only_organizers_may_hide(organizer, host, client):
    t, (r1, r2) = two_round_tournament(organizer, host)
    play_scripted(r1, by=organizer)
    play_scripted(r2, by=organizer)
    client.force_login(host)  # a table host, not an organizer
    assert client.post(f"/tournaments/{t.pk}/standings/visibility/", {"after_round": r1.round_id}).status_code == 403
    client.force_login(organizer)
    assert client.post(f"/tournaments/{t.pk}/standings/visibility/", {"after_round": "x"}).status_code == 302
    t.refresh_from_db()
    assert t.standings_frozen_after_id is None  # refused, nothing changed
    client.post(f"/tournaments/{t.pk}/standings/visibility/", {"after_round": r1.round_id})
    assert 'data-games="1"' in Client().get(f"/tournaments/{t.pk}/standings/?fragment=1").content.decode()
    client.post(f"/tournaments/{t.pk}/standings/visibility/", {"after_round": ""})
    assert 'data-games="2"' in Client().get(f"/tournaments/{t.pk}/standings/?fragment=1").content.decode()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_public_socket_sends_nothing_while_hidden_and_everything_when_published(organizer, host):
    t, (r1, r2) = await database_sync_to_async(two_round_tournament)(organizer, host)
    await database_sync_to_async(play_scripted)(r1, by=organizer)
    await database_sync_to_async(
        lambda: services.tournament_hide_standings(
            tournament=t, after_round=Table.objects.get(pk=r1.pk).round, by=organizer
        )
    )()
    comm = WebsocketCommunicator(application, f"/ws/tournaments/{t.pk}/standings/?lang=ru", headers=ORIGIN)
    assert (await comm.connect(timeout=5))[0]
    snapshot = await comm.receive_from(timeout=5)
    assert 'data-games="1"' in snapshot
    await database_sync_to_async(play_scripted)(r2, by=organizer)
    # A later game finished: not a frame, not even an identical one (the socket's rhythm).
    assert await comm.receive_nothing(timeout=0.5)
    await database_sync_to_async(services.tournament_hide_standings)(tournament=t, after_round=None, by=organizer)
    frame = await comm.receive_from(timeout=5)
    assert 'data-games="2"' in frame
    await comm.disconnect()
