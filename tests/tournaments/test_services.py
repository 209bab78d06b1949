"""Tournament services: participants import, seating into tables, swaps, starting games, the workbook command."""

import io
import random

import pytest
from django.core.management import call_command
from openpyxl import Workbook, load_workbook

from games.models import Game
from tests.tournaments.helpers import play_random, play_scripted, seated_tournament
from tournaments import services
from tournaments.models import Participant, Table, TableSeat
from tournaments.standings import game_seat_scores

pytestmark = pytest.mark.django_db


def test_parse_pasted_list():
    text = "1. Alpha\n2) Beta; beta_login\n\n# comment\nGamma\tgamma\n  Delta  \n10. Omega Red"
    assert services.parse_participants_text(text) == [
        ("Alpha", ""),
        ("Beta", "beta_login"),
        ("Gamma", "gamma"),
        ("Delta", ""),
        ("Omega Red", ""),
    ]


def test_parse_csv_and_xlsx():
    csv_bytes = "Ник;Логин\nАльфа;alpha\nБета;\n".encode("cp1251")
    assert services.parse_participants_file("list.csv", csv_bytes) == [("Альфа", "alpha"), ("Бета", "")]
    wb = Workbook()
    ws = wb.active
    ws.append(["nickname", "user"])
    ws.append(["Gamma", None])
    ws.append([12345, "x"])
    buf = io.BytesIO()
    wb.save(buf)
    assert services.parse_participants_file("list.xlsx", buf.getvalue()) == [("Gamma", ""), ("12345", "x")]
    with pytest.raises(services.TournamentError):
        services.parse_participants_file("broken.xlsx", b"not a zip")


def test_participants_add_skips_duplicates_and_links_users(host):
    t = services.tournament_create(name="T", organizer=host)
    res = services.participants_add(tournament=t, entries=[("Alpha", "host"), ("alpha", ""), ("Beta", "nobody")])
    assert [p.nickname for p in res.created] == ["Alpha", "Beta"]
    assert res.existing == ["alpha"] and res.unknown_users == ["nobody"]
    assert Participant.objects.get(tournament=t, nickname="Alpha").user == host


def test_seating_writes_tables_and_keeps_hosts(host):
    t = seated_tournament(host, [host], players=23, rounds=4)
    stage = t.stages.get()
    assert stage.seating_seed == "t-0"
    assert stage.seating_quality["games_min"] == 3 and stage.seating_quality["games_max"] == 4  # 80 seats for 23
    assert Table.objects.filter(round__stage=stage).count() == 8
    assert not Table.objects.filter(round__stage=stage, number=1, host__isnull=True).exists()
    # Regenerating with the same seed gives the same tables and keeps the hosts.
    before = list(
        TableSeat.objects.filter(table__round__stage=stage)
        .order_by("table__round__number", "table__number", "seat_no")
        .values_list("participant__nickname", flat=True)
    )
    services.stage_generate_seating(stage=stage, rounds=4, seed="t-0")
    after = list(
        TableSeat.objects.filter(table__round__stage=stage)
        .order_by("table__round__number", "table__number", "seat_no")
        .values_list("participant__nickname", flat=True)
    )
    assert before == after
    assert not Table.objects.filter(round__stage=stage, number=1, host__isnull=True).exists()


def test_seating_refused_with_too_few_players_or_after_start(host):
    t = services.tournament_create(name="T", organizer=host)
    services.participants_add(tournament=t, entries=[f"P{i}" for i in range(9)])
    stage = services.stage_create(tournament=t)
    with pytest.raises(services.TournamentError):
        services.stage_generate_seating(stage=stage, rounds=2)
    t2 = seated_tournament(host, [host], players=10, rounds=1)
    stage2 = t2.stages.get()
    services.round_start_games(round=stage2.rounds.get(), by=host)
    with pytest.raises(services.TournamentError):
        services.stage_generate_seating(stage=stage2, rounds=1)


def test_second_stage_balances_against_the_first(host):
    t = seated_tournament(host, [host], players=20, rounds=5, stages=2)
    seats = {}
    for s in TableSeat.objects.filter(table__round__stage__tournament=t).select_related("participant"):
        seats.setdefault(s.participant.nickname, []).append(s.seat_no)
    # Ten games each over two stages: each seat at most... mostly once.
    repeats = sum(len(v) - len(set(v)) for v in seats.values())
    assert all(len(v) == 10 for v in seats.values())
    assert repeats <= 20  # blind second stages give ~40+ (see test_seating)


def test_swap_within_a_round_and_substitute(host):
    t = seated_tournament(host, [host, host], players=21, rounds=1)
    rnd = t.stages.get().rounds.get()
    t1, t2 = rnd.tables.order_by("number")
    a = TableSeat.objects.get(table=t1, seat_no=3).participant
    b = TableSeat.objects.get(table=t2, seat_no=7).participant
    services.table_seat_set(table=t1, seat_no=3, participant=b)
    assert TableSeat.objects.get(table=t1, seat_no=3).participant == b
    assert TableSeat.objects.get(table=t2, seat_no=7).participant == a
    seated = set(TableSeat.objects.filter(table__round=rnd).values_list("participant_id", flat=True))
    out = Participant.objects.filter(tournament=t).exclude(pk__in=seated).get()
    services.table_seat_set(table=t1, seat_no=3, participant=out)  # b sits out now
    assert TableSeat.objects.get(table=t1, seat_no=3).participant == out
    assert not TableSeat.objects.filter(table__round=rnd, participant=b).exists()


def test_swap_reseats_a_game_in_setup_and_is_refused_once_running(host):
    t = seated_tournament(host, [host], players=10, rounds=1)
    rnd = t.stages.get().rounds.get()
    services.round_start_games(round=rnd, by=host)
    table = rnd.tables.get()
    game = Game.objects.get(pk=table.game_id)
    p1 = TableSeat.objects.get(table=table, seat_no=1).participant
    p2 = TableSeat.objects.get(table=table, seat_no=2).participant
    services.table_seat_set(table=table, seat_no=1, participant=p2, by=host)
    game.refresh_from_db()
    assert [s.nickname for s in game.seats.order_by("seat_no")][:2] == [p2.nickname, p1.nickname]
    play_scripted(table)
    with pytest.raises(services.TournamentError):
        services.table_seat_set(table=table, seat_no=1, participant=p1, by=host)


def test_round_start_creates_games_for_hosts_with_regulations(host, other_user):
    from games.rules import Regulations

    t = seated_tournament(host, [], players=20, rounds=1)
    services.tournament_set_regulations(tournament=t, regulations=Regulations(speech=45))
    rnd = t.stages.get().rounds.get()
    t1, t2 = rnd.tables.order_by("number")
    services.table_set_host(table=t1, host=other_user)
    res = services.round_start_games(round=rnd, by=host)
    assert [tb.number for tb in res.started] == [1] and res.skipped[0][0].number == 2
    game = Game.objects.get(pk=res.started[0].game_id)
    assert game.host == other_user and game.regulations["speech"] == 45
    assert [s.nickname for s in game.seats.order_by("seat_no")] == [
        s.participant.nickname for s in t1.seats.order_by("seat_no")
    ]
    # The organizer may edit the game too (games.permissions uses these names).
    from games.permissions import user_can_edit_game

    assert user_can_edit_game(host, game) and user_can_edit_game(other_user, game)
    # Starting again does not create a second game.
    assert services.round_start_games(round=rnd, by=host).started == []


def test_export_command_writes_the_workbook(host, tmp_path):
    t = seated_tournament(host, [host], players=10, rounds=2)
    rng = random.Random(3)
    for rnd in t.stages.get().rounds.all():
        services.round_start_games(round=rnd, by=host)
    tables = list(Table.objects.filter(round__stage__tournament=t).order_by("round__number"))
    play_scripted(tables[0])
    play_random(tables[1], rng)
    out = tmp_path / "t.xlsx"
    call_command("export_tournament_xlsx", str(t.pk), "-o", str(out), stdout=io.StringIO())
    wb = load_workbook(out)
    assert wb.sheetnames[0] == "Турнирная таблица"
    assert len(wb.sheetnames) == 1 + 2
    # The protocol sheet of the scripted game carries the points of game_seat_scores.
    scores = game_seat_scores(tables[0].game)
    assert scores[1]["points"] == 1.0  # Sheriff, red won
    call_command("export_tournament_xlsx", str(t.pk), "-o", str(out), "--lang", "en", stdout=io.StringIO())
    assert load_workbook(out).sheetnames[0] == "Standings"


def test_an_annulled_table_game_is_replayed_with_a_new_game(host):
    t = seated_tournament(host, [host], players=10, rounds=1)
    rnd = t.stages.get().rounds.get()
    services.round_start_games(round=rnd, by=host)
    table = rnd.tables.get()
    first = table.game_id
    play_scripted(table, end={"do": "annul"})
    res = services.round_start_games(round=rnd, by=host)
    table.refresh_from_db()
    assert [tb.pk for tb in res.started] == [table.pk] and table.game_id != first
    assert "переигровка" in table.game.title
    assert Game.objects.get(pk=first).status == "annulled"
    assert services.round_start_games(round=rnd, by=host).started == []


def test_seating_can_weigh_who_played_together_in_other_tournaments(client, host, django_user_model):
    """A finished cup's tables (through Participant.player) become opponents already met
    in a new cup when the organizer asks: its two groups are spread 5 + 5 over both
    tables; a seated but unstarted tournament counts for nothing."""
    from django.urls import reverse

    from players import services as player_services

    second_host = django_user_model.objects.create_user(username="host2")
    names = [f"Player{i:02d}" for i in range(1, 21)]
    for n in names:
        player_services.player_create(nickname=n)
    old = seated_tournament(host, [host, second_host], players=20, rounds=1, seed="old")
    player_services.participants_link_known(participants=old.participants.all())
    services.round_start_games(round=old.stages.get().rounds.get(), by=host)
    idle = seated_tournament(host, [host, second_host], players=20, rounds=1, seed="idle")  # never started
    player_services.participants_link_known(participants=idle.participants.all())
    old_tables = {
        s.participant.nickname: s.table.number
        for s in TableSeat.objects.filter(table__round__stage__tournament=old).select_related("participant", "table")
    }

    t = services.tournament_create(name="New cup", organizer=host)
    services.participants_add(tournament=t, entries=names)
    player_services.participants_link_known(participants=t.participants.all())
    mine = list(t.participants.order_by("pk"))
    nick = {p.pk: p.nickname for p in mine}
    pairs = services.other_tournaments_pairs(t.pk, mine)
    assert len(pairs) == 2 * 45 and set(pairs.values()) == {1}
    assert all(old_tables[nick[a]] == old_tables[nick[b]] for a, b in pairs)
    assert services.other_tournaments_pairs(old.pk, list(old.participants.all())) == {}  # the idle cup has no games

    stage = services.stage_create(tournament=t)
    client.force_login(host)
    r = client.post(
        reverse("tournaments:stage_seating", args=[t.pk, stage.pk]),
        {"rounds": 1, "seed": "new", "other_tournaments": "on"},
    )
    assert r.status_code == 302
    stage.refresh_from_db()
    assert stage.seating_quality["other_tournaments"] is True
    for table in Table.objects.filter(round__stage=stage):
        groups = [old_tables[s.participant.nickname] for s in table.seats.select_related("participant")]
        assert sorted(groups.count(g) for g in (1, 2)) == [5, 5]
    assert (
        "Учитывать историю игроков из других турниров"
        in client.get(reverse("tournaments:stage", args=[t.pk, stage.pk])).content.decode()
    )
    from django.utils import translation

    from tournaments.forms import SeatingForm

    with translation.override("en"):
        assert (
            str(SeatingForm().fields["other_tournaments"].label)
            == "Take the players' history in other tournaments into account"
        )
