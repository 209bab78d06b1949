"""Who may move a rating (issue 22, finding 2; players/trust.py).

The probe: a plain signed-in user seated an existing player under the
nickname «-2+3» (``player-<i>=<his id>``), ended the game at once (ППК),
marked it rated and moved the player's rating 1510 → 1522; «-2+3» became the
player's alias, so later seats typed so were linked to him without a question.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command

from games import services as game_services
from games.models import Game, GameSeat
from players import book
from players.models import PlayerStats
from players.trust import counted_game_ids, untrusted_rated_games
from tests.players.helpers import NAMES, make_players, rating, scripted_game, trusted
from tests.tournaments.helpers import record, scripted_log

TEN = ["-2+3", *NAMES[1:]]


def _plain_host_seats_alpha_as(client, user, typed: str, alpha_pk: int) -> Game:
    client.force_login(user)
    players = [typed, *NAMES[1:]]
    data = {"title": "probe", "players": "\n".join(players), "seating": "typed"}
    client.post("/games/new/", data)  # the first submit only matches
    data |= {"players_confirmed": "1", "player-nick-0": typed, "player-0": str(alpha_pk)}
    for i, nick in enumerate(players[1:], start=1):
        data |= {f"player-nick-{i}": nick, f"player-{i}": "new"}
    r = client.post("/games/new/", data)
    assert r.status_code == 302, r.content.decode()[:2000]
    return Game.objects.get(title="probe")


def test_a_plain_host_cannot_seat_an_unoffered_player_nor_plant_an_alias(client, django_user_model):
    players = make_players()
    alpha = players["Alpha"]
    plain = django_user_model.objects.create_user(username="plain", password="x-pass-123")
    game = _plain_host_seats_alpha_as(client, plain, "-2+3", alpha.pk)
    seat = GameSeat.objects.get(game=game, nickname="-2+3")
    assert seat.player_id != alpha.pk  # «-2+3» was never offered for Alpha
    assert not alpha.aliases.exists()


def test_staff_may_link_any_player_and_their_choice_becomes_an_alias(client, django_user_model):
    alpha = make_players()["Alpha"]
    staff = django_user_model.objects.create_user(username="staff", password="x-pass-123", is_staff=True)
    game = _plain_host_seats_alpha_as(client, staff, "Альфа", alpha.pk)
    assert GameSeat.objects.get(game=game, nickname="Альфа").player_id == alpha.pk
    assert alpha.aliases.filter(nickname="Альфа").exists()


def test_a_plain_host_marking_his_game_rated_is_refused_and_moves_no_rating(client, django_user_model):
    make_players()
    plain = django_user_model.objects.create_user(username="plain", password="x-pass-123")
    game = game_services.game_create(host=plain, title="probe", players=NAMES)
    record(game, scripted_log(), plain)  # ends by ППК
    client.force_login(plain)
    r = client.post(f"/games/{game.pk}/rated/", {"rated": "1"})
    assert r.status_code == 403 and "может вести рейтинговые игры" in r.content.decode()
    game.refresh_from_db()
    assert not game.rated
    assert rating(make_or_get("Alpha")) in (None, 1500.0)


def make_or_get(nick: str):
    from players.models import Player

    return Player.objects.get(nickname=nick)


def test_a_rated_mark_without_trust_counts_for_nobody_on_either_path(host):
    """Old rows (or the service called directly): the predicate, not the view, decides."""
    make_players()
    game = game_services.game_create(host=host, title="untrusted", players=NAMES)
    game_services.game_set_rated(game=game, rated=True)
    record(game, scripted_log(), host)  # the incremental path on the game's end
    assert counted_game_ids([game.pk]) == set()
    assert all(s.rating in (None, 1500.0) for s in PlayerStats.objects.all())
    call_command("recompute_ratings", verbosity=0)  # the full recompute
    assert all(s.rating in (None, 1500.0) for s in PlayerStats.objects.all())
    assert list(untrusted_rated_games()) == [game]


def test_a_trusted_hosts_rated_game_counts_and_a_group_grant_works(host, django_user_model):
    make_players()
    scripted_game(host, NAMES)  # helpers grant `host` the permission
    assert rating(make_or_get("Alpha")) not in (None, 1500.0)
    other = django_user_model.objects.create_user(username="grouped", password="x-pass-123")
    group = Group.objects.create(name="Рейтинговые ведущие")
    group.permissions.add(Permission.objects.get(codename="host_rated_games"))
    other.groups.add(group)
    game = game_services.game_create(host=other, title="grouped", players=NAMES)
    game_services.game_set_rated(game=game, rated=True)
    assert counted_game_ids([game.pk]) == {game.pk}
    assert book.recompute() == 1  # the finished one; the second is still running


def test_creating_a_rated_game_needs_the_right(client, django_user_model):
    plain = django_user_model.objects.create_user(username="plain", password="x-pass-123")
    client.force_login(plain)
    players = [f"New{i}" for i in range(10)]
    data = {"title": "rated?", "players": "\n".join(players), "seating": "typed", "rated": "on"}
    r = client.post("/games/new/", data)
    assert r.status_code == 200 and "может вести рейтинговые игры" in r.content.decode()
    assert not Game.objects.exists()
    trusted(plain)
    data |= {
        "players_confirmed": "1",
        **{f"player-nick-{i}": n for i, n in enumerate(players)},
        **{f"player-{i}": "new" for i in range(10)},
    }
    r = client.post("/games/new/", data)
    assert r.status_code == 302 and Game.objects.get().rated


def test_staff_see_the_untrusted_rated_games_and_others_do_not(client, host, django_user_model):
    game = game_services.game_create(host=host, title="Непроверенная", players=NAMES)
    game_services.game_set_rated(game=game, rated=True)
    client.force_login(host)
    assert client.get("/ratings/untrusted/").status_code == 403
    staff = django_user_model.objects.create_user(username="staff", password="x-pass-123", is_staff=True)
    client.force_login(staff)
    r = client.get("/ratings/untrusted/")
    assert r.status_code == 200 and "Непроверенная" in r.content.decode()


def test_a_plain_users_own_tournament_moves_no_rating_and_a_trusted_organizers_does(host, django_user_model):
    from tests.tournaments.helpers import play_scripted
    from tournaments import services as tournament_services

    make_players()
    plain = django_user_model.objects.create_user(username="cupmaker", password="x-pass-123")
    t = tournament_services.tournament_create(name="Мой кубок", organizer=plain)
    tournament_services.participants_add(tournament=t, entries=NAMES)
    from players import services as player_services

    player_services.participants_link_known(participants=t.participants.all())
    stage = tournament_services.stage_create(tournament=t)
    tournament_services.stage_generate_seating(stage=stage, rounds=1, seed="s")
    tournament_services.stage_set_host(stage=stage, table_number=1, host=plain)
    rnd = stage.rounds.get()
    tournament_services.round_start_games(round=rnd, by=plain)
    game = play_scripted(rnd.tables.get(), plain)
    assert all(s.rating in (None, 1500.0) for s in PlayerStats.objects.all())
    assert game in list(untrusted_rated_games())
    trusted(plain)
    call_command("recompute_ratings", verbosity=0)
    assert rating(make_or_get("Alpha")) not in (None, 1500.0)


def test_an_organizer_links_participants_only_to_offered_players_and_plants_no_alias(client, django_user_model):
    from tournaments import services as tournament_services
    from tournaments.models import Participant

    alpha = make_players()["Alpha"]
    plain = django_user_model.objects.create_user(username="cupmaker", password="x-pass-123")
    t = tournament_services.tournament_create(name="Кубок", organizer=plain)
    tournament_services.participants_add(tournament=t, entries=["-2+3", "Alpah"])
    client.force_login(plain)
    ids = dict(Participant.objects.filter(tournament=t).values_list("nickname", "pk"))
    client.post(
        f"/tournaments/{t.pk}/participants/players/",
        {f"player-{ids['-2+3']}": str(alpha.pk), f"player-{ids['Alpah']}": str(alpha.pk)},
    )
    linked = dict(Participant.objects.filter(tournament=t).values_list("nickname", "player_id"))
    assert linked["-2+3"] is None  # never offered for «-2+3»
    assert linked["Alpah"] == alpha.pk  # offered: a close match
    assert not alpha.aliases.exists()


def test_an_untrusted_host_sees_no_rated_button_on_his_list(client, host):
    game_services.game_create(host=host, title="Моя", players=NAMES)
    client.force_login(host)
    assert "сделать рейтинговой" not in client.get("/games/").content.decode()
    trusted(host)
    assert "сделать рейтинговой" in client.get("/games/").content.decode()


def test_the_few_games_trust_statement_says_what_the_queryset_says(django_user_model):
    """A game's end asks players.trust about one game through a statement of its own
    (issue 30: the queryset cost PostgreSQL ~2 ms of planning per game's end); each
    way a user is or is not trusted, for a casual game and a tournament's, gives the
    answer of ``counted_games``."""
    from players.trust import counted_games
    from tournaments import services as tournament_services

    permission = Permission.objects.get(codename="host_rated_games")
    group = Group.objects.create(name="Рейтинговые ведущие")
    group.permissions.add(permission)
    plain_group = Group.objects.create(name="Просто ведущие")

    def user(name: str, *, superuser: bool = False, direct: bool = False, grouped: bool = False, active: bool = True):
        u = django_user_model.objects.create_user(username=name, is_superuser=superuser, is_active=active)
        if direct:
            u.user_permissions.add(permission)
        u.groups.add(group if grouped else plain_group)
        return u

    users = {
        "super": user("super", superuser=True),
        "direct": user("direct", direct=True),
        "grouped": user("grouped", grouped=True),
        "plain": user("plain"),
        "inactive-super": user("inactive-super", superuser=True, active=False),
        "inactive-direct": user("inactive-direct", direct=True, active=False),
    }
    games = []
    for name, u in users.items():
        for rated in (True, False):
            g = game_services.game_create(host=u, title=f"{name}-{rated}", players=NAMES)
            Game.objects.filter(pk=g.pk).update(rated=rated)
            games.append(g)
    # Tournaments' games, unrated, hosted by a plain user: their organizers decide.
    for organizers in (["plain"], ["direct"], ["grouped"], ["plain", "super"], ["inactive-direct"]):
        t = tournament_services.tournament_create(name="Cup " + "+".join(organizers), organizer=users[organizers[0]])
        t.organizers.add(*(users[o] for o in organizers))
        rnd = tournament_services.round_create(stage=tournament_services.stage_create(tournament=t), tables=1)
        g = game_services.game_create(host=users["plain"], title="cup " + "+".join(organizers), players=NAMES)
        rnd.tables.update(game=g)
        games.append(g)

    def by_queryset(ids: list[int]) -> set[int]:
        return set(counted_games(Game.objects.filter(pk__in=ids)).values_list("pk", flat=True))

    for g in games:
        assert counted_game_ids([g.pk]) == by_queryset([g.pk]), g.title
    ids = [g.pk for g in games]
    assert counted_game_ids(ids[:20]) == by_queryset(ids[:20])
    assert counted_game_ids(ids) == by_queryset(ids)  # more than a few: the queryset itself
    counted = {g.title for g in games if g.pk in counted_game_ids([g.pk])}
    assert counted == {"super-True", "direct-True", "grouped-True", "cup direct", "cup grouped", "cup plain+super"}


@pytest.mark.django_db
def test_on_postgresql_the_few_games_rule_is_the_databases_function_of_todays_sql():
    """Migration players/0007 made the function from the SQL the statement above
    is built from (the test above runs through it on PostgreSQL), with a generic
    plan the session keeps. The function holds table and column names: if a
    model they come from changes, this fails until a migration makes it again."""
    from django.db import connection

    from players.trust import COUNTED_GAMES_FUNCTION, counted_games_function_sql

    if connection.vendor != "postgresql":
        pytest.skip("SQLite sends the statement itself")
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc, proconfig FROM pg_proc WHERE proname = %s", [COUNTED_GAMES_FUNCTION])
        (source, config), *more = cursor.fetchall()
    assert not more
    assert config == ["plan_cache_mode=force_generic_plan"]
    assert source.strip() in counted_games_function_sql()
