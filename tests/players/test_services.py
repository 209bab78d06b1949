"""Create, rename, merge; linking participants and existing seats."""

import pytest
from django.core.management import call_command

from games.models import GameSeat
from players import book, services
from players.models import Alias, Player, PlayerGame, PlayerMerge, PlayerStats
from tests.players.helpers import (
    NAMES,
    make_players,
    rating,
    scripted_game,
    snapshot,
    trusted,
)
from tests.tournaments.helpers import play_scripted
from tournaments import services as tournament_services
from tournaments import standings
from tournaments.models import Participant

pytestmark = pytest.mark.django_db


def test_create_refuses_a_nickname_already_taken_by_a_name_or_alias():
    p = services.player_create(nickname="Ёжик")
    services.player_add_alias(player=p, nickname="Hedgehog")
    for taken in ("ежик", "  ЁЖИК ", "hedgehog"):
        with pytest.raises(services.PlayerError):
            services.player_create(nickname=taken)
    with pytest.raises(services.PlayerError):
        services.player_create(nickname="   ")
    assert Player.objects.count() == 1


def test_rename_keeps_the_old_nickname_as_an_alias_and_matching_finds_him():
    p = services.player_create(nickname="OldName")
    services.player_rename(player=p, nickname="NewName")
    p.refresh_from_db()
    assert p.nickname == "NewName" and list(p.aliases.values_list("nickname", flat=True)) == ["OldName"]
    (m,) = services.players_match(nicknames=["oldname"])
    assert m.status == "known" and m.player.player_id == p.pk and m.player.nickname == "NewName"
    # renaming back: the alias is his name again, not a duplicate
    services.player_rename(player=p, nickname="OldName")
    assert list(p.aliases.values_list("nickname", flat=True)) == ["NewName"]


def test_rename_refuses_another_players_name_and_changes_nothing():
    a = services.player_create(nickname="A1")
    services.player_create(nickname="B1")
    with pytest.raises(services.PlayerError):
        services.player_rename(player=a, nickname="b1")
    a.refresh_from_db()
    assert a.nickname == "A1" and not Alias.objects.exists()


def test_merge_moves_games_participants_and_statistics_and_is_recorded(host, django_user_model):
    p = make_players()
    scripted_game(host, NAMES)
    dup = services.player_create(nickname="Alpha2")
    services.player_add_alias(player=dup, nickname="A-2")
    # a second game where Alpha played as "Alpha2"
    scripted_game(host, ["Alpha2", *NAMES[1:]])
    assert PlayerStats.objects.get(player=dup).games == 1 and PlayerStats.objects.get(player=p["Alpha"]).games == 1
    organizer = django_user_model.objects.create_user(username="org")
    t = tournament_services.tournament_create(name="Cup", organizer=organizer)
    tournament_services.participants_add(tournament=t, entries=["Alpha2"])
    services.participants_link_known(participants=t.participants.all())
    assert Participant.objects.get(tournament=t).player_id == dup.pk

    merge = services.player_merge(duplicate=dup, into=p["Alpha"], by=organizer)

    assert not Player.objects.filter(pk=dup.pk).exists()
    assert (merge.merged_nickname, merge.seats_moved, merge.participants_moved) == ("Alpha2", 1, 1)
    assert PlayerMerge.objects.get().kept == p["Alpha"]
    assert Participant.objects.get(tournament=t).player_id == p["Alpha"].pk
    assert GameSeat.objects.filter(player=p["Alpha"]).count() == 2
    s = PlayerStats.objects.get(player=p["Alpha"])
    assert (s.games, s.wins, s.sheriff_games, s.rated_games) == (2, 2, 2, 2)
    assert PlayerGame.objects.filter(player=p["Alpha"]).count() == 2
    assert set(p["Alpha"].aliases.values_list("nickname", flat=True)) == {"Alpha2", "A-2"}
    assert rating(p["Alpha"]) is not None and rating(p["Alpha"]) > 1510.0
    # only the games from the duplicate's first one were played again: the same as a rebuild
    merged = snapshot()
    book.recompute()
    assert snapshot() == merged


def test_tournament_standings_follow_a_merge(host, django_user_model):
    organizer = trusted(django_user_model.objects.create_user(username="org"))  # his tournament's games count
    t = tournament_services.tournament_create(name="Cup", organizer=organizer)
    make_players()
    dup = services.player_create(nickname="Zulu")
    tournament_services.participants_add(tournament=t, entries=[*NAMES[:9], "Zulu"])
    services.participants_link_known(participants=t.participants.all())
    stage = tournament_services.stage_create(tournament=t)
    tournament_services.stage_generate_seating(stage=stage, rounds=1, seed="s")
    tournament_services.stage_set_host(stage=stage, table_number=1, host=host)
    rnd = stage.rounds.get()
    tournament_services.round_start_games(round=rnd, by=organizer)
    table = rnd.tables.get()
    play_scripted(table, host)
    # a trusted organizer's tournament game counts for the rating without the host's flag
    assert PlayerStats.objects.get(player=dup).rated_games == 1
    zulu_row = next(r for r in standings.compute(t).rows if r.nickname == "Zulu")
    assert zulu_row.player_id == dup.pk
    kept = services.player_create(nickname="Yankee")  # the same person, registered before
    services.player_merge(duplicate=dup, into=kept)
    row = next(r for r in standings.compute(t).rows if r.nickname == "Zulu")
    assert row.player_id == kept.pk and row.games == 1
    assert PlayerStats.objects.get(player=kept).games == 1 and PlayerStats.objects.get(player=kept).rated_games == 1


def test_resolution_links_known_and_waits_for_a_choice_on_the_others():
    alpha = services.player_create(nickname="Alpha")
    services.player_create(nickname="Kraken")
    typed = ["alpha", "Krakken", "Brand New"]
    res = services.resolve_nicknames(typed)
    assert res.player_ids == [alpha.pk, None, None] and res.pending == [1, 2]
    assert [m.status for m in res.matches] == ["known", "suggest", "new"]
    kraken = Player.objects.get(nickname="Kraken")
    res = services.resolve_nicknames(typed, {1: str(kraken.pk), 2: services.NEW_CHOICE})
    assert res.pending == []
    players = services.apply_resolution(typed, res)
    assert [p.nickname for p in players if p] == ["Alpha", "Kraken", "Brand New"]
    # Nobody confirmed «Krakken» as his name (issue 22): linked this once, no alias.
    assert not kraken.aliases.filter(nickname="Krakken").exists()


def test_link_players_command_links_exact_matches_and_lists_close_ones(host, capsys):
    scripted_game(host, NAMES)  # played before any player existed: nobody linked
    assert GameSeat.objects.filter(player__isnull=False).count() == 0
    for n in NAMES[:9]:
        services.player_create(nickname=n.upper())
    services.player_create(nickname="Julliet")  # close to Juliett, not equal
    call_command("link_players")
    out = capsys.readouterr().out
    assert "linked: 9" in out and "to decide: 1" in out and "Juliett" in out and "Julliet" in out
    assert GameSeat.objects.filter(player__isnull=True).get().nickname == "Juliett"


def test_host_seating_links_known_players_and_asks_once_about_the_others(client, host):
    trusted(host)  # the form's «rated» box is his to tick (players/trust.py)
    names = make_players()
    client.force_login(host)
    typed = ["alpha", "BRAVO", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "Indija", "Stranger"]
    data = {"title": "t", "players": "\n".join(typed), "seating": "random", "rated": "on"}
    r = client.post("/games/new/", data)
    html = r.content.decode()
    assert (
        r.status_code == 200
        and 'name="player-8"' in html
        and 'name="player-9"' in html
        and 'name="player-0"' not in html
    )
    assert f'value="{names["India"].pk}"' in html  # the close match is offered
    from games.models import Game

    assert not Game.objects.exists() and Player.objects.count() == 10  # nothing created yet
    data |= {
        "players_confirmed": "1",
        "player-nick-8": "Indija",
        "player-8": str(names["India"].pk),
        "player-nick-9": "Stranger",
        "player-9": "new",
    }
    r = client.post("/games/new/", data)
    game = Game.objects.get()
    assert r.status_code == 302 and game.rated
    linked = {s.nickname: s.player.nickname for s in game.seats.select_related("player")}
    assert linked["alpha"] == "Alpha" and linked["Indija"] == "India" and linked["Stranger"] == "Stranger"
    # One host's choice links this seat; «Indija» becomes India's alias only when staff or India confirm it.
    assert not names["India"].aliases.filter(nickname="Indija").exists()
