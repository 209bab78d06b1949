"""Organizer pages: HTMX fragments, refusals naming the field, permissions."""

import pytest

from games.models import Game
from tests.tournaments.helpers import play_scripted, seated_tournament
from tournaments import services
from tournaments.models import ExtraPoints, TableSeat

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def t(host):
    return seated_tournament(host, [host], players=20, rounds=2)


def test_dashboard_stage_round_pages_render(client, host, t):
    client.force_login(host)
    stage = t.stages.get()
    rnd = stage.rounds.first()
    for url in (
        "/tournaments/",
        f"/tournaments/{t.pk}/",
        f"/tournaments/{t.pk}/stages/{stage.pk}/",
        f"/tournaments/{t.pk}/rounds/{rnd.pk}/",
        f"/tournaments/{t.pk}/scoring/",
        f"/tournaments/{t.pk}/settings/",
        "/tournaments/new/",
    ):
        r = client.get(url)
        assert r.status_code == 200, url


def test_swap_by_nickname_returns_the_round_fragment(client, host, t):
    client.force_login(host)
    rnd = t.stages.get().rounds.first()
    t1, t2 = rnd.tables.order_by("number")
    other = TableSeat.objects.get(table=t2, seat_no=4).participant
    r = client.post(f"/tournaments/{t.pk}/tables/{t1.pk}/seat/", {"seat_no": 1, "nickname": other.nickname}, **HX)
    assert r.status_code == 200
    body = r.content.decode()
    assert body.startswith('\n<div id="round-tables">') or body.lstrip().startswith('<div id="round-tables">')
    assert TableSeat.objects.get(table=t1, seat_no=1).participant == other
    r = client.post(f"/tournaments/{t.pk}/tables/{t1.pk}/seat/", {"seat_no": 1, "nickname": "Nobody"}, **HX)
    assert r.status_code == 422 and "Nobody" in r.content.decode()
    r = client.post(f"/tournaments/{t.pk}/tables/{t1.pk}/seat/", {"seat_no": 11, "nickname": other.nickname}, **HX)
    assert r.status_code == 422


def test_table_host_and_start(client, host, other_user, t):
    client.force_login(host)
    rnd = t.stages.get().rounds.first()
    t1 = rnd.tables.get(number=1)
    r = client.post(f"/tournaments/{t.pk}/tables/{t1.pk}/host/", {"host": other_user.username}, **HX)
    assert r.status_code == 200
    t1.refresh_from_db()
    assert t1.host == other_user
    r = client.post(f"/tournaments/{t.pk}/tables/{t1.pk}/host/", {"host": "ghost"}, **HX)
    assert r.status_code == 422 and "ghost" in r.content.decode()
    r = client.post(f"/tournaments/{t.pk}/rounds/{rnd.pk}/start/", **HX)
    assert "Начато игр: 1." in r.content.decode()  # table 2 has no host
    assert "стол 2" in r.content.decode()
    assert Game.objects.filter(host=other_user).count() == 1


def test_scoring_page_saves_a_new_version(client, host, t):
    client.force_login(host)
    r = client.get(f"/tournaments/{t.pk}/scoring/?preset=club")
    form = r.context["form"]
    data = {k: ("on" if v is True else "" if v is False else v) for k, v in form.initial.items()}
    data = {k: v for k, v in data.items() if v != ""}
    data["note"] = "club rules"
    data["preset_name"] = "club"
    r = client.post(f"/tournaments/{t.pk}/scoring/", data)
    assert r.status_code == 302
    t.refresh_from_db()
    assert t.scoring_revision == 2 and t.scoring_preset == "club"
    assert float(t.policy.penalty_grey_card) == 0.2
    # A repeated tie-breaker is refused, nothing saved.
    data["tiebreaker_1"] = data["tiebreaker_0"]
    r = client.post(f"/tournaments/{t.pk}/scoring/", data)
    assert r.status_code == 200 and "Критерий указан дважды" in r.content.decode()
    t.refresh_from_db()
    assert t.scoring_revision == 2


def test_extra_points_page_for_host_and_organizer_only(client, host, other_user, django_user_model, t):
    rnd = t.stages.get().rounds.first()
    table = rnd.tables.get(number=1)
    judge = django_user_model.objects.create_user(username="judge", password="judge-pass-123")
    services.table_set_host(table=table, host=judge)
    services.round_start_games(round=rnd, by=host)
    table.refresh_from_db()
    play_scripted(table)
    url = f"/tournaments/games/{table.game_id}/extra-points/"
    client.force_login(other_user)
    assert client.get(url).status_code == 403
    client.force_login(judge)
    r = client.get(url)
    assert (
        r.status_code == 200
        and TableSeat.objects.get(table=table, seat_no=1).participant.nickname in r.content.decode()
    )
    r = client.post(url, {"points_2": "5", "comment_2": "too much"})
    assert r.status_code == 422 and "от -1 до 1" in r.content.decode()
    assert not ExtraPoints.objects.exists()
    r = client.post(url, {"points_2": "-0.5", "comment_2": "late"})
    assert r.status_code == 302
    assert ExtraPoints.objects.get().points == -0.5
    client.force_login(host)  # the organizer
    assert client.get(url).status_code == 200


def test_settings_change_regulations_and_organizers(client, host, other_user, t):
    client.force_login(host)
    r = client.get(f"/tournaments/{t.pk}/settings/")
    reg_form = r.context["reg_form"]
    data = {"name": "Renamed", "organizers": f"{host.username}, {other_user.username}"}
    for name, field in reg_form.fields.items():
        value = field.initial
        if value is True:
            data[f"reg-{name}"] = "on"
        elif value is not False:
            data[f"reg-{name}"] = value
    data["reg-speech"] = 50
    r = client.post(f"/tournaments/{t.pk}/settings/", data)
    assert r.status_code == 302
    t.refresh_from_db()
    assert t.name == "Renamed" and t.regulations["speech"] == 50
    assert set(t.organizers.values_list("username", flat=True)) == {host.username, other_user.username}
    r = client.post(f"/tournaments/{t.pk}/settings/", data | {"organizers": "ghost"})
    assert r.status_code == 200 and "ghost" in r.content.decode()


def test_standings_fragment_and_stage_filter(client, host, t):
    stage = t.stages.get()
    r = client.get(f"/tournaments/{t.pk}/standings/?stage={stage.pk}", **HX)
    assert r.status_code == 200
    assert r.content.decode().lstrip().startswith('<div id="standings"')


def test_participants_upload_xlsx(client, host, t):
    import io

    from openpyxl import Workbook

    wb = Workbook()
    wb.active.append(["Ник"])
    wb.active.append(["Новичок"])
    buf = io.BytesIO()
    wb.save(buf)
    buf.seek(0)
    buf.name = "more.xlsx"
    client.force_login(host)
    r = client.post(f"/tournaments/{t.pk}/participants/", {"file": buf}, **HX)
    assert r.status_code == 200 and "Новичок" in r.content.decode()
    r = client.post(f"/tournaments/{t.pk}/participants/", {"text": ""}, **HX)
    assert r.status_code == 422


def test_scoring_page_names_red_only_ci_a_deviation_off_by_default(client, host, other_user, t):
    # RULES N11 INTERP: every N1 shot counts; counting red shots only is a
    # setting, off by default, named as a deviation from the text.
    client.force_login(host)
    r = client.get(f"/tournaments/{t.pk}/scoring/")
    html = r.content.decode()
    assert r.context["form"].initial["ci_red_shots_only"] is False
    assert 'name="ci_red_shots_only"' in html and 'name="ci_red_shots_only" checked' not in html
    assert "отступление от регламента" in html and "id_ci_red_shots_only_helptext" in html
    data = {k: ("on" if v is True else "" if v is False else v) for k, v in r.context["form"].initial.items()}
    data = {k: v for k, v in data.items() if v != ""}
    data["ci_red_shots_only"] = "on"
    data["note"] = "red only"
    assert client.post(f"/tournaments/{t.pk}/scoring/", data).status_code == 302
    t.refresh_from_db()
    assert t.policy.ci_red_shots_only is True and t.scoring_revision == 2
    assert t.scoring_revisions.get(number=1).policy["ci_red_shots_only"] is False  # the history shows it
    # A spectator (not an organizer) reads which count applies.
    client.force_login(other_user)
    html = client.get(f"/tournaments/{t.pk}/scoring/").content.decode()
    assert "только отстрелы красным в N1 (отступление от регламента, N11)" in html
