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
