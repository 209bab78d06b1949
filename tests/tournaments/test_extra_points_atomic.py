"""Issue 11, finding 5: the extra points form is all or nothing, with one live push per submit."""

import pytest

from tests.tournaments.helpers import play_scripted, seated_tournament
from tournaments import live, services
from tournaments.models import ExtraPoints

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_table(host):
    t = seated_tournament(host, [host], players=20, rounds=1)
    rnd = t.stages.get().rounds.first()
    services.round_start_games(round=rnd, by=host)
    table = rnd.tables.get(number=1)
    play_scripted(table)
    table.refresh_from_db()
    assert table.game.status == "finished"
    return table


@pytest.fixture
def pushes(monkeypatch):
    calls = []
    monkeypatch.setattr(live, "push_standings", lambda tid: calls.append(tid))
    return calls


@pytest.fixture
def submit(client, host, finished_table, django_capture_on_commit_callbacks):
    """POST the form; the pushes scheduled after the commit run as a commit would run them."""
    client.force_login(host)
    url = f"/tournaments/games/{finished_table.game_id}/extra-points/"

    def post(body):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, body)

    return post


def test_one_refused_seat_refuses_the_whole_submit(submit, finished_table, pushes):
    r = submit({"points_1": "0.7", "points_2": "5"})
    assert r.status_code == 422
    assert not ExtraPoints.objects.exists()
    assert pushes == []
    body = r.content.decode()
    assert 'value="0.7"' in body  # the host's input is kept for correction


def test_a_valid_submit_stores_every_seat_and_pushes_once(submit, finished_table, pushes):
    r = submit({"points_1": "0.7", "points_2": "-0.5", "comment_2": "опоздал", "points_3": "0.25"})
    assert r.status_code == 302
    stored = {seat: float(points) for seat, points in ExtraPoints.objects.values_list("seat_no", "points")}
    assert stored == {1: 0.7, 2: -0.5, 3: 0.25}
    assert pushes == [finished_table.round.stage.tournament_id]


@pytest.mark.parametrize(
    "body",
    [
        {"points_1": "NaN"},
        {"points_1": "Infinity"},
        {"points_1": "9" * 5000},
        {"points_1": "0.5", "comment_1": "a\x00b"},
        {"points_1": "0.5", "comment_1": "c" * 301},
        {"points_1": "0.001"},
    ],
)
def test_malformed_extra_points_are_refused_without_a_500(submit, finished_table, pushes, body):
    r = submit(body)
    assert r.status_code == 422
    assert not ExtraPoints.objects.exists() and pushes == []
