"""Discipline that outlives a game (issue 28, finding 3; RULES F3, F4, F15, W6)."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from games.models import Game
from players import discipline
from players.bans import ban_end
from players.models import BanOverride, DisciplineRecord, Player
from tests.players.helpers import NAMES, make_players, scripted_game
from tests.tournaments.helpers import record
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

# Seat 5 (Echo) gets two warnings (F4), seat 6 (Foxtrot) four fouls (F3), seat 7 (Golf) a disqualifying foul (F3).
PENALTIES = [
    {"do": "warning", "seat": 5, "reason": "реплика"},
    {"do": "warning", "seat": 5, "reason": "оскорбление"},
    *[{"do": "foul", "seat": 6} for _ in range(4)],
    {"do": "disqualify", "seat": 7, "reason": "подсказка"},
    {"do": "grey_card", "seat": 8},
]


def _penalised_game(host):
    make_players()
    return scripted_game(host, NAMES, penalties=PENALTIES)


def test_f3_f4_a_games_end_records_reprimands_and_a_7_day_ban_on_the_players(host):
    game = _penalised_game(host)
    rows = {(r.player.nickname, r.kind): r for r in DisciplineRecord.objects.select_related("player")}
    assert set(rows) == {("Echo", "ban"), ("Foxtrot", "reprimand"), ("Golf", "reprimand")}
    ban = rows[("Echo", "ban")]
    second_warning = game.actions.filter(payload__do="warning").order_by("seq").last()
    assert ban.given_at == second_warning.created_at and ban.rule == "F4" and ban.reason == "оскорбление"
    assert ban.ends_at == ban_end(second_warning.created_at, discipline.club_time_zone())
    assert ban.host_id == host.pk and ban.game_id == game.pk
    assert rows[("Golf", "reprimand")].cause == "disqualify" and rows[("Foxtrot", "reprimand")].cause == "fouls"
    assert rows[("Foxtrot", "reprimand")].ends_at is None


def test_f15_warnings_and_grey_cards_are_counted_and_the_pages_show_the_history(client, host):
    _penalised_game(host)
    echo = Player.objects.get(nickname="Echo")
    page = client.get(f"/players/{echo.pk}/").content.decode()
    assert 'id="discipline-head"' in page and "(F4)" in page and "оскорбление" in page
    counts = discipline.counts_by_tournament(echo)
    assert counts == [{"tournament": "", "warnings": 2, "grey_cards": 0, "reprimands": 0, "bans": 1}]
    assert discipline.counts_by_tournament(Player.objects.get(nickname="Hotel"))[0]["grey_cards"] == 1
    club = client.get("/players/discipline/").content.decode()
    assert "Echo" in club.split("Последние записи")[0]  # among the active bans


def test_f4_a_banned_player_is_refused_at_the_new_game_form_with_the_end_and_the_game(client, host):
    game = _penalised_game(host)
    client.force_login(host)
    data = {"title": "next day", "players": "\n".join(NAMES), "seating": "typed", "rated": "on"}
    with time_machine.travel(timezone.now() + timedelta(days=1)):
        r = client.post("/games/new/", data)
    html = r.content.decode()
    assert r.status_code == 200 and "Echo" in html and "(F4)" in html and game.title in html
    assert Game.objects.count() == 1  # nothing created
    assert 'name="ban_override_reason"' not in html  # a host is not an organizer
    # after the ban, he plays
    ends = DisciplineRecord.objects.get(kind="ban").ends_at
    with time_machine.travel(ends + timedelta(seconds=1)):
        assert client.post("/games/new/", data).status_code == 302


def test_f4_an_organizer_overrides_the_ban_with_a_reason_recorded(client, host, django_user_model):
    _penalised_game(host)
    staff = django_user_model.objects.create_user(username="boss", is_staff=True)
    client.force_login(staff)
    data = {"title": "next day", "players": "\n".join(NAMES), "seating": "typed"}
    html = client.post("/games/new/", data).content.decode()
    assert 'name="ban_override_reason"' in html
    r = client.post("/games/new/", data | {"ban_override_reason": "решение СК клуба"})
    assert r.status_code == 302
    override = BanOverride.objects.get()
    assert (
        override.reason == "решение СК клуба"
        and override.by_id == staff.pk
        and override.record.player.nickname == "Echo"
    )
    assert override.game_id == Game.objects.latest("pk").pk
    assert "решение СК клуба" in client.get("/players/discipline/").content.decode()


def test_f4_a_tournament_round_with_a_banned_participant_is_not_started_unless_overridden(host, django_user_model):
    _penalised_game(host)
    organizer = django_user_model.objects.create_user(username="org")
    t = tournament_services.tournament_create(name="Cup", organizer=organizer)
    tournament_services.participants_add(tournament=t, entries=NAMES)
    from players import services

    services.participants_link_known(participants=t.participants.all())
    stage = tournament_services.stage_create(tournament=t)
    tournament_services.stage_generate_seating(stage=stage, rounds=1, seed="s")
    tournament_services.stage_set_host(stage=stage, table_number=1, host=host)
    rnd = stage.rounds.get()
    result = tournament_services.round_start_games(round=rnd, by=organizer)
    assert result.started == [] and "(F4)" in result.skipped[0][1] and "Echo" in result.skipped[0][1]
    # a host who is not an organizer cannot override
    assert tournament_services.round_start_games(round=rnd, by=host, ban_override_reason="x").started == []
    result = tournament_services.round_start_games(round=rnd, by=organizer, ban_override_reason="апелляция принята")
    assert len(result.started) == 1
    assert BanOverride.objects.get().reason == "апелляция принята"


def test_w6_an_annulled_games_penalties_still_count_until_an_organizer_lifts_them(client, host, django_user_model):
    make_players()
    game = scripted_game(host, NAMES, end={"do": "annul", "reason": "посторонний"}, penalties=PENALTIES[:2])
    game.refresh_from_db()
    assert game.status == "annulled"
    ban = DisciplineRecord.objects.get(kind="ban")
    assert discipline.active_bans() == [ban]
    client.force_login(host)
    assert client.post(f"/players/discipline/{ban.pk}/lift/", {"reason": "x"}).status_code == 403  # not an organizer
    staff = django_user_model.objects.create_user(username="boss", is_staff=True)
    client.force_login(staff)
    client.post(f"/players/discipline/{ban.pk}/lift/", {"reason": ""})
    ban.refresh_from_db()
    assert ban.lifted_at is None  # a lift needs its reason
    client.post(f"/players/discipline/{ban.pk}/lift/", {"reason": "игра переиграна, запрет снят"})
    ban.refresh_from_db()
    assert (
        ban.lifted_at is not None and ban.lifted_by_id == staff.pk and ban.lift_reason == "игра переиграна, запрет снят"
    )
    assert discipline.active_bans() == []


def test_an_undo_of_the_end_removes_the_records_and_a_merge_moves_them(host):
    game = _penalised_game(host)
    from games import services as game_services

    game_services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    game.refresh_from_db()
    assert game.status == "running" and not DisciplineRecord.objects.exists()
    record(game, [{"do": "ppk", "team": "black"}], host)
    assert DisciplineRecord.objects.count() == 3
    from players import services

    echo = Player.objects.get(nickname="Echo")
    kept = services.player_create(nickname="Эхо")
    services.player_merge(duplicate=echo, into=kept)
    assert DisciplineRecord.objects.get(kind="ban").player_id == kept.pk


def test_f4_reseating_a_tables_game_from_the_console_refuses_a_banned_player(client, host, django_user_model):
    from games import services as game_services

    _penalised_game(host)
    others = [f"Гость{i}" for i in range(1, 10)]
    game = game_services.game_create(host=host, title="Стол 2", players=[*others, "Kilo"])
    client.force_login(host)
    data = {"expected_seq": game.seq, "do": "seat", "players": "\n".join([*others, "echo"]), "seating": "typed"}
    r = client.post(f"/games/{game.pk}/act/", data, HTTP_HX_REQUEST="true")
    assert r.status_code == 422 and "(F4)" in r.content.decode()
    game.refresh_from_db()
    assert "echo" not in game.action_payloads()[-1]["players"]  # nothing recorded
    staff = django_user_model.objects.create_user(username="boss", is_staff=True)
    game.host = staff
    game.save(update_fields=["host"])
    client.force_login(staff)
    r = client.post(f"/games/{game.pk}/act/", data | {"ban_override_reason": "по решению СК"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and BanOverride.objects.get().game_id == game.pk


def test_a_ban_of_a_postponed_seat_becomes_the_players_when_the_seat_is_decided(host):
    from games.models import GameSeat
    from players import decisions

    make_players()
    scripted_game(host, [*NAMES[:4], "Ekho", *NAMES[5:]], penalties=PENALTIES[:2])  # «Ekho»: close to Echo, not his
    ban = DisciplineRecord.objects.get(kind="ban")
    assert ban.player_id is None and discipline.active_bans() == []
    echo = Player.objects.get(nickname="Echo")
    decisions.decide(kind="seat", pk=GameSeat.objects.get(nickname="Ekho").pk, player=echo)
    assert [b.player_id for b in discipline.active_bans()] == [echo.pk]
