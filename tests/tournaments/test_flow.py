"""A tournament run as an organizer would, through the pages: participants pasted
in, two stages seated, hosts assigned, games started and played by the hosts,
extra points given, then the standings page and the workbook checked against
points computed by hand (cristalix preset: win 1, best move 3 blacks 0.5, Ci
0.5 + 0.5 per N1 shot in the stage)."""

import io
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from games.models import Game
from tests.tournaments.helpers import play_scripted
from tournaments.models import Participant, Stage, Table, TableSeat, Tournament

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def organizer(django_user_model):
    return django_user_model.objects.create_user(username="org", password="org-pass-123")


@pytest.fixture
def hosts(django_user_model):
    return [django_user_model.objects.create_user(username=f"judge{i}", password="judge-pass-123") for i in (1, 2)]


def _roles_for(table, nickname):
    """Roles with `nickname` a red civilian: Sheriff, Don, Mafia on the first other seats."""
    seat = TableSeat.objects.get(table=table, participant__nickname=nickname).seat_no
    others = [s for s in range(1, 11) if s != seat]
    return seat, {"sheriff": others[0], "don": others[1], "mafia": (others[2], others[3])}


def test_organizer_runs_a_two_stage_tournament(client, organizer, hosts):
    client.force_login(organizer)
    r = client.post(
        "/tournaments/new/",
        {"name": "Осенний кубок", "starts_on": "2026-10-01", "ends_on": "2026-10-02", "preset": "cristalix"},
    )
    assert r.status_code == 302
    t = Tournament.objects.get(name="Осенний кубок")
    assert r.url == f"/tournaments/{t.pk}/"

    # Participants pasted in (numbered, one with a login), via HTMX.
    pasted = "\n".join(f"{i}. Игрок{i:02d}" for i in range(1, 21)) + "\nИгрок05\n"
    r = client.post(f"/tournaments/{t.pk}/participants/", {"text": pasted}, **HX)
    assert r.status_code == 200
    assert 'id="participants"' in r.content.decode() and "Игрок20" in r.content.decode()
    assert t.participants.count() == 20

    # Two stages: two rounds, then one.
    for name, rounds in (("Отбор", 2), ("Финал", 1)):
        r = client.post(f"/tournaments/{t.pk}/stages/new/", {"name": name})
        stage = Stage.objects.get(tournament=t, name=name)
        assert r.status_code == 302
        r = client.post(f"/tournaments/{t.pk}/stages/{stage.pk}/seating/", {"rounds": rounds, "seed": f"seed-{name}"})
        assert r.status_code == 302
        for n, host in enumerate(hosts, start=1):
            client.post(f"/tournaments/{t.pk}/stages/{stage.pk}/host/", {"table_number": n, "host": host.username})
        page = client.get(f"/tournaments/{t.pk}/stages/{stage.pk}/").content.decode()
        assert f"seed-{name}" in page and 'id="seating-quality"' in page
    assert Table.objects.filter(round__stage__tournament=t).count() == 6
    assert not Table.objects.filter(round__stage__tournament=t, host__isnull=True).exists()

    # Start every round; each host finds his game in «Мои игры».
    for stage in t.stages.order_by("order"):
        for rnd in stage.rounds.order_by("number"):
            r = client.post(f"/tournaments/{t.pk}/rounds/{rnd.pk}/start/", **HX)
            assert r.status_code == 200 and 'id="round-tables"' in r.content.decode()
    assert Game.objects.filter(tournament_table__round__stage__tournament=t).count() == 6
    for host in hosts:
        client.force_login(host)
        page = client.get("/games/").content.decode()
        assert page.count("Осенний кубок") == 3

    # The hosts play. Игрок01 is a red shot in N1 in every game (Ci 0.5, 1.0;
    # then 0.5 again in the final, N11), names three blacks once (0.5), red wins.
    me = "Игрок01"
    tables = list(
        Table.objects.filter(round__stage__tournament=t).order_by("round__stage__order", "round__number", "number")
    )
    mine = [tb for tb in tables if TableSeat.objects.filter(table=tb, participant__nickname=me).exists()]
    assert len(mine) == 3
    for i, tb in enumerate(mine):
        seat, roles = _roles_for(tb, me)
        best = [roles["don"], *roles["mafia"]] if i == 0 else None
        play_scripted(tb, by=tb.host, n1_victim=seat, best_move=best, **roles)
    for tb in tables:
        if tb not in mine:
            play_scripted(tb, by=tb.host)  # red wins by ППК of black; seats 2, 3, 4 are black
    # The host of my second game gives me +0.3 through the page.
    second = mine[1]
    client.force_login(second.host)
    seat = TableSeat.objects.get(table=second, participant__nickname=me).seat_no
    form = {f"points_{s}": "" for s in range(1, 11)} | {f"comment_{s}": "" for s in range(1, 11)}
    form |= {f"points_{seat}": "0.3", f"comment_{seat}": "лучший на столе"}
    r = client.post(f"/tournaments/games/{second.game_id}/extra-points/", form)
    assert r.status_code == 302

    expected_me = (
        Decimal("1")
        + Decimal("0.5")
        + Decimal("0.5")
        + Decimal("1")
        + Decimal("1.0")
        + Decimal("0.3")
        + Decimal("1")
        + Decimal("0.5")
    )
    assert expected_me == Decimal("5.8")

    # Standings page (public).
    client.logout()
    page = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert 'id="standings" class="standings-wrap" data-games="6"' in page
    row = page[page.index(f">{me}</a>") :]
    row = row[: row.index("</tr>")]
    assert 'class="num total">5,80<' in row, row  # total (ru uses a decimal comma; two decimals as in the workbook)
    first_rank_row = page[page.index("<tbody>") : page.index("</tr>", page.index("<tbody>"))]
    assert me in first_rank_row  # nobody else has 5.8

    # Player page: the history with Ci per game.
    pid = Participant.objects.get(tournament=t, nickname=me).pk
    ppage = client.get(f"/tournaments/{t.pk}/players/{pid}/").content.decode()
    assert ppage.count("убит в N1") == 3

    # The workbook: standings first, then one protocol per game.
    r = client.get(f"/tournaments/{t.pk}/standings.xlsx")
    assert r.status_code == 200
    wb = load_workbook(io.BytesIO(r.content))
    assert wb.sheetnames[0] == "Турнирная таблица"
    assert len(wb.sheetnames) == 1 + 6
    ws = wb.worksheets[0]
    rows = list(ws.iter_rows(values_only=True))
    header_idx = next(i for i, r in enumerate(rows) if r and r[0] == "Место")
    header = rows[header_idx]
    data = {r[1]: r for r in rows[header_idx + 1 :] if r and r[1]}
    assert data[me][header.index("Итого")] == pytest.approx(5.8)
    assert data[me][header.index("Ci")] == pytest.approx(2.0)
    assert data[me][header.index("ЛХ")] == pytest.approx(0.5)
    assert data[me][header.index("Доп.")] == pytest.approx(0.3)
    assert data[me][0] == 1
    # Per-round columns: 2.0, 2.3 in the qualification, 1.5 in the final.
    assert [data[me][header.index(c)] for c in ("Э1 Т1", "Э1 Т2", "Э2 Т1")] == pytest.approx([2.0, 2.3, 1.5])
    # The protocol sheets carry the same points for my seat.
    assert all(name.startswith("Э") for name in wb.sheetnames[1:])


def test_pages_need_an_organizer(client, organizer, other_user):
    from tournaments import services

    t = services.tournament_create(name="Кубок", organizer=organizer)
    stage = services.stage_create(tournament=t)
    client.force_login(other_user)
    assert client.post(f"/tournaments/{t.pk}/participants/", {"text": "A"}).status_code == 403
    assert client.post(f"/tournaments/{t.pk}/stages/new/", {"name": "X"}).status_code == 403
    assert client.post(f"/tournaments/{t.pk}/stages/{stage.pk}/seating/", {"rounds": 2}).status_code == 403
    assert client.post(f"/tournaments/{t.pk}/scoring/", {}).status_code == 403
    assert client.get(f"/tournaments/{t.pk}/settings/").status_code == 403
    # Everyone may read the standings, even anonymously.
    client.logout()
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 200
    assert client.get(f"/tournaments/{t.pk}/standings.xlsx").status_code == 200
