"""The decision queue (issue 28, finding 1): a seat left «решить позже» is decided later."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.models import GameSeat
from players import book, decisions, services
from players.models import LinkDecision, Player, PlayerGame, PlayerStats
from tests.players.helpers import NAMES, make_players, scripted_game, snapshot, trusted
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


def _burye_games(host):
    """Бурый exists; a rated game seats «Бурыи» (a typo: only a suggestion, so left
    unlinked), and a later rated game seats Бурый himself."""
    make_players()
    burye = services.player_create(nickname="Бурый")
    first = scripted_game(host, [*NAMES[:9], "Бурыи"])
    second = scripted_game(host, [*NAMES[1:], "Бурый"])
    return burye, first, second


def test_a_postponed_seat_is_listed_and_one_click_puts_the_game_on_the_players_page(client, host):
    burye, first, _second = _burye_games(host)
    seat = GameSeat.objects.get(game=first, nickname="Бурыи")
    assert seat.player_id is None and PlayerStats.objects.get(player=burye).games == 1
    client.force_login(host)
    page = client.get("/players/pending/").content.decode()
    assert "Бурыи" in page and f'value="{burye.pk}"' in page  # the suggestion is a button
    r = client.post("/players/pending/decide/", {"kind": "seat", "pk": seat.pk, "choice": str(burye.pk)})
    assert r.status_code == 302
    seat.refresh_from_db()
    assert seat.player_id == burye.pk
    stats = PlayerStats.objects.get(player=burye)
    assert stats.games == 2 and stats.rated_games == 2
    assert PlayerGame.objects.filter(player=burye, game=first, rated=True).exists()
    assert burye.aliases.filter(nickname="Бурыи").exists()  # next time he is found by himself
    decision = LinkDecision.objects.get()
    assert (decision.kind, decision.nickname, decision.player_id, decision.by_id) == (
        "seat",
        "Бурыи",
        burye.pk,
        host.pk,
    )
    assert f'id="pending-seat-{seat.pk}"' not in client.get("/players/pending/").content.decode()
    assert f"/games/{first.pk}/" in client.get(f"/players/{burye.pk}/").content.decode()
    assert "Бурый" in client.get("/ratings/").content.decode()


def test_the_incremental_update_of_a_decision_gives_the_numbers_of_a_recompute(host):
    burye, first, _second = _burye_games(host)
    seat = GameSeat.objects.get(game=first, nickname="Бурыи")
    decisions.decide(kind="seat", pk=seat.pk, player=burye)
    after_decision = snapshot()
    book.recompute()
    assert snapshot() == after_decision


def test_only_the_host_organizer_or_staff_may_decide_and_a_refusal_changes_nothing(client, host, other_user):
    burye, first, _second = _burye_games(host)
    seat = GameSeat.objects.get(game=first, nickname="Бурыи")
    client.force_login(other_user)
    assert f'id="pending-seat-{seat.pk}"' not in client.get("/players/pending/").content.decode()
    r = client.post("/players/pending/decide/", {"kind": "seat", "pk": seat.pk, "choice": str(burye.pk)}, follow=True)
    assert r.status_code == 200 and "решать нельзя" in r.content.decode()
    seat.refresh_from_db()
    assert seat.player_id is None and not LinkDecision.objects.exists()
    for bad in ({"kind": "seat", "pk": "x", "choice": "1"}, {"kind": "bogus", "pk": seat.pk}, {}):
        assert client.post("/players/pending/decide/", bad).status_code == 302
    assert client.get("/players/pending/").status_code == 200
    client.logout()
    assert client.get("/players/pending/").status_code == 302  # to the login page


def test_create_and_search_from_the_queue(client, host):
    burye, first, _second = _burye_games(host)
    scripted_game(host, [*NAMES[:9], "Незнакомец"])
    stranger = GameSeat.objects.get(nickname="Незнакомец")
    seat = GameSeat.objects.get(game=first, nickname="Бурыи")
    client.force_login(host)
    client.post("/players/pending/decide/", {"kind": "seat", "pk": stranger.pk, "choice": "new"})
    assert Player.objects.get(nickname="Незнакомец").games.count() == 1
    r = client.post(
        "/players/pending/decide/", {"kind": "seat", "pk": seat.pk, "choice": "search", "nick": "nobody"}, follow=True
    )
    assert "не найден" in r.content.decode()
    client.post("/players/pending/decide/", {"kind": "seat", "pk": seat.pk, "choice": "search", "nick": "бурый"})
    seat.refresh_from_db()
    assert seat.player_id == burye.pk
    # decided already: a second click is refused, nothing changes
    r = client.post("/players/pending/decide/", {"kind": "seat", "pk": seat.pk, "choice": "new"}, follow=True)
    assert "решать нельзя" in r.content.decode() and not Player.objects.filter(nickname="Бурыи").exists()


def test_an_organizer_decides_a_participant_and_his_table_seats_follow(client, host, django_user_model):
    organizer = trusted(django_user_model.objects.create_user(username="org"))  # his tournament counts (issue 22)
    t = tournament_services.tournament_create(name="Cup", organizer=organizer)
    make_players()
    burye = services.player_create(nickname="Бурый")
    tournament_services.participants_add(tournament=t, entries=[*NAMES[:9], "Бурыи"])
    services.participants_link_known(participants=t.participants.all())
    stage = tournament_services.stage_create(tournament=t)
    tournament_services.stage_generate_seating(stage=stage, rounds=1, seed="s")
    tournament_services.stage_set_host(stage=stage, table_number=1, host=host)
    rnd = stage.rounds.get()
    tournament_services.round_start_games(round=rnd, by=organizer)
    from tests.tournaments.helpers import play_scripted

    play_scripted(rnd.tables.get(), host)
    participant = t.participants.get(nickname="Бурыи")
    client.force_login(organizer)
    assert "Бурыи" in client.get("/players/pending/").content.decode()
    client.post("/players/pending/decide/", {"kind": "participant", "pk": participant.pk, "choice": str(burye.pk)})
    participant.refresh_from_db()
    assert participant.player_id == burye.pk
    assert GameSeat.objects.get(nickname="Бурыи").player_id == burye.pk
    assert PlayerStats.objects.get(player=burye).rated_games == 1


def test_link_players_decides_from_the_command_line(host, capsys):
    burye, first, _second = _burye_games(host)
    scripted_game(host, [*NAMES[:9], "Незнакомец"])
    seat = GameSeat.objects.get(game=first, nickname="Бурыи")
    stranger = GameSeat.objects.get(nickname="Незнакомец")
    call_command("link_players")
    assert f"seat #{seat.pk} «Бурыи»: Бурый (#{burye.pk})" in capsys.readouterr().out
    call_command("link_players", "--link", f"seat#{seat.pk}", str(burye.pk))
    assert "→ Бурый" in capsys.readouterr().out
    assert PlayerStats.objects.get(player=burye).games == 2
    call_command("link_players", "--create", str(stranger.pk))
    assert Player.objects.get(nickname="Незнакомец").games.count() == 1
    with pytest.raises(CommandError):
        call_command("link_players", "--link", f"seat#{seat.pk}", str(burye.pk))  # decided already
    with pytest.raises(CommandError):
        call_command("link_players", "--link", "table#1", "1")


def test_a_player_already_at_the_table_is_refused_for_a_second_seat_and_nothing_changes(client, host):
    make_players()
    game = scripted_game(host, [*NAMES[:9], "Alphа2"])  # close to Alpha? other numbers: a stranger
    seat = GameSeat.objects.get(game=game, nickname="Alphа2")
    alpha = Player.objects.get(nickname="Alpha")  # already on seat 1
    before = snapshot()
    with pytest.raises(services.PlayerError):
        decisions.decide(kind="seat", pk=seat.pk, player=alpha)
    seat.refresh_from_db()
    assert seat.player_id is None and snapshot() == before and not LinkDecision.objects.exists()
    assert not alpha.aliases.filter(nickname="Alphа2").exists()


def test_a_player_already_in_the_tournament_is_refused_for_a_second_participant(django_user_model):
    organizer = django_user_model.objects.create_user(username="org")
    t = tournament_services.tournament_create(name="Cup", organizer=organizer)
    chaika = services.player_create(nickname="Чайка")
    tournament_services.participants_add(tournament=t, entries=["Чайка", "Чайкин"])
    services.participants_link_known(participants=t.participants.all())
    other = t.participants.get(nickname="Чайкин")
    with pytest.raises(services.PlayerError):
        decisions.decide(kind="participant", pk=other.pk, player=chaika)
    other.refresh_from_db()
    assert other.player_id is None
