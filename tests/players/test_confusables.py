"""Look-alike letters never make a second person (issue 28, finding 2)."""

import pytest

from games.models import GameSeat
from players import services
from players.matching import KNOWN
from tests.players.helpers import NAMES, scripted_game
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


def test_a_latin_a_names_the_player_chaika_exactly_and_cannot_be_registered_beside_her():
    chaika = services.player_create(nickname="Чайка")
    m = services.players_match(nicknames=["Чайкa"])[0]  # Latin a
    assert m.status == KNOWN and m.player is not None and m.player.player_id == chaika.pk
    with pytest.raises(services.PlayerError):
        services.player_create(nickname="Чайкa")
    with pytest.raises(services.PlayerError):
        services.player_create(nickname="Чай\u200bка")  # a zero-width space inside


def test_a_look_alike_participant_is_kept_once(django_user_model):
    organizer = django_user_model.objects.create_user(username="org")
    t = tournament_services.tournament_create(name="Cup", organizer=organizer)
    tournament_services.participants_add(tournament=t, entries=[*NAMES[:9], "Чайка"])
    result = tournament_services.participants_add(tournament=t, entries=["Чайкa", "ЧАЙKA"])
    assert result.created == [] and result.existing == ["Чайкa", "ЧАЙKA"]
    assert t.participants.count() == 10


def test_a_game_seat_typed_with_a_look_alike_is_linked_to_the_player(host):
    chaika = services.player_create(nickname="Чайка")
    scripted_game(host, [*NAMES[:9], "Чайкa"])
    services.link_existing()
    assert GameSeat.objects.get(nickname="Чайкa").player_id == chaika.pk


def test_merge_picks_the_duplicate_from_the_suggestions_on_the_page(client, django_user_model):
    staff = django_user_model.objects.create_user(username="boss", is_staff=True)
    chaika = services.player_create(nickname="Чайка")
    twin = services.player_create(nickname="Чайка2")  # other numbers: another person, never offered
    dup = services.player_create(nickname="Чаика")  # a typo: close
    client.force_login(staff)
    page = client.get(f"/players/{chaika.pk}/").content.decode()
    assert f'<option value="{dup.pk}">Чаика (#{dup.pk})</option>' in page and f'value="{twin.pk}"' not in page
    client.post(f"/players/{chaika.pk}/merge/", {"duplicate": str(dup.pk)})
    assert not services.Player.objects.filter(pk=dup.pk).exists()
    assert chaika.aliases.filter(nickname="Чаика").exists()


def _cup(django_user_model):
    organizer = django_user_model.objects.create_user(username="org")
    return organizer, tournament_services.tournament_create(name="Cup", organizer=organizer)


def test_after_a_merge_two_participants_who_are_one_player_are_shown_as_one(django_user_model):
    from tournaments.models import Participant

    _organizer, t = _cup(django_user_model)
    chaika = services.player_create(nickname="Чайка")
    bird = services.player_create(nickname="Птица")  # the same person, registered twice
    tournament_services.participants_add(tournament=t, entries=["Чайка", "Птица"])
    services.participants_link_known(participants=t.participants.all())
    services.player_merge(duplicate=bird, into=chaika)
    assert list(Participant.objects.filter(tournament=t).values_list("nickname", "player_id")) == [("Чайка", chaika.pk)]


def test_when_both_played_the_organizer_is_asked_which_to_keep(client, host, django_user_model):
    from tournaments.models import Participant

    organizer, t = _cup(django_user_model)
    make = [services.player_create(nickname=n) for n in [*NAMES[:8], "Чайка", "Птица"]]
    tournament_services.participants_add(tournament=t, entries=[p.nickname for p in make])
    services.participants_link_known(participants=t.participants.all())
    stage = tournament_services.stage_create(tournament=t)
    tournament_services.stage_generate_seating(stage=stage, rounds=1, seed="s")
    services.player_merge(duplicate=make[-1], into=make[-2])
    assert Participant.objects.filter(tournament=t, player=make[-2]).count() == 2  # both sat: nothing guessed
    client.force_login(organizer)
    page = client.get("/players/pending/").content.decode()
    assert "оставить «Чайка»" in page and "оставить «Птица»" in page
    keep, drop = Participant.objects.get(nickname="Чайка"), Participant.objects.get(nickname="Птица")
    r = client.post("/players/pending/fold/", {"keep": keep.pk, "drop": drop.pk}, follow=True)
    assert "одним столом" in r.content.decode()  # one table: two people after all
    assert Participant.objects.filter(tournament=t).count() == 10
    client.force_login(host)  # not his tournament
    r = client.post("/players/pending/fold/", {"keep": keep.pk, "drop": drop.pk}, follow=True)
    assert "объединить нельзя" in r.content.decode()


def test_participants_sort_in_russian_order_with_yo_beside_ye(client, django_user_model):
    organizer, t = _cup(django_user_model)
    tournament_services.participants_add(tournament=t, entries=["Чайка", "Ёж", "Аня", "Ель", "Zed"])
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    positions = [page.index(f">{n}<") for n in ("Zed", "Аня", "Ёж", "Ель", "Чайка")]
    assert positions == sorted(positions)
    from tournaments import standings

    assert [r.nickname for r in standings.compute(t).rows] == ["Zed", "Аня", "Ёж", "Ель", "Чайка"]  # no games: all tied
