"""The stream overlay is safe by default (issue 24).

The overlay shows every role live. A stream made with the defaults must not
show them to the players watching it: the delay defaults to 120 s (a player
at the table who opens the stream on his phone sees it tens of seconds late
at worst; two minutes also covers a Night, so nothing of the current Night is
on the stream while it runs), the link's menu says plainly that it shows the
roles, a 0 s delay is taken only with an explicit confirmation, and a new link
(which revokes the old one) is one click in the same menu.
"""

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.board import frames as board
from games.board import view as board_view
from games.models import Game

PLAYERS = ["Кот_Учоный", "КотУчёный", "Сова", "Ёж", "Бобр", "Заяц", "Волк", "Медведь", "Рысь", "Барсук"]
WARNING = "Оверлей показывает роли: задержка должна быть больше, чем время, за которое игрок может увидеть трансляцию."


@pytest.fixture
def game(host):
    return services.game_create(host=host, title="Стрим", players=PLAYERS)


@pytest.fixture
def client_host(host):
    c = Client()
    c.force_login(host)
    return c


def settings_post(c, game, **data):
    return c.post(reverse("games:overlay", args=[game.pk]), data, HTTP_HX_REQUEST="true")


@pytest.mark.django_db
def test_a_new_game_has_a_delay_that_protects_a_live_game(game):
    assert game.overlay_delay_seconds == 120
    services.game_set_overlay(game=game, by=None, enabled=True)
    assert game.overlay_token and Game.objects.get(pk=game.pk).overlay_delay_seconds == 120


@pytest.mark.django_db
def test_no_delay_is_refused_without_a_confirmation_and_changes_nothing(game, host):
    with pytest.raises(services.OverlayDelayUnconfirmed):
        services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=0)
    game.refresh_from_db()
    assert game.overlay_token == "" and game.overlay_delay_seconds == 120
    services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=0, confirm_no_delay=True)
    game.refresh_from_db()
    assert game.overlay_token and game.overlay_delay_seconds == 0
    # Switching the overlay off needs no confirmation, whatever the delay.
    services.game_set_overlay(game=game, by=host, enabled=False, delay_seconds=0)
    assert Game.objects.get(pk=game.pk).overlay_token == ""


@pytest.mark.django_db
def test_the_menu_refuses_no_delay_until_the_host_confirms(client_host, game):
    r = settings_post(client_host, game, enabled="1", delay="0")
    assert r.status_code == 422
    assert "Оверлей показывает роли" in r.content.decode() and "Ничего не изменено" in r.content.decode()
    game.refresh_from_db()
    assert game.overlay_token == ""  # a refused change changes nothing
    r = settings_post(client_host, game, enabled="1", delay="0", confirm_no_delay="1")
    assert r.status_code == 200
    game.refresh_from_db()
    assert game.overlay_token and game.overlay_delay_seconds == 0
    # Only the delay, on a running overlay: the same rule.
    token = game.overlay_token
    r = settings_post(client_host, game, enabled="1", delay="30")
    assert r.status_code == 200 and Game.objects.get(pk=game.pk).overlay_token == token
    assert settings_post(client_host, game, enabled="1", delay="0").status_code == 422
    assert Game.objects.get(pk=game.pk).overlay_delay_seconds == 30


@pytest.mark.django_db
def test_the_menu_warns_that_the_overlay_shows_roles_and_offers_a_new_link(client_host, game):
    page = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert WARNING in page and 'value="120"' in page and 'name="confirm_no_delay"' in page
    r = settings_post(client_host, game, enabled="1", delay="120")
    html = r.content.decode()
    assert WARNING in html and "Новая ссылка" in html
    old = Game.objects.get(pk=game.pk).overlay_token
    settings_post(client_host, game, enabled="1", delay="120", rotate="1")
    new = Game.objects.get(pk=game.pk).overlay_token
    assert new and new != old  # the old link is revoked
    assert client_host.get(reverse("board:overlay", args=[game.pk]), {"token": old}).status_code == 403
    client_host.cookies["django_language"] = "en"
    page = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert "The overlay shows the roles: the delay must be longer than a player needs to see the stream." in page


@pytest.mark.django_db
def test_overlay_nicknames_wrap_at_their_boundaries_only(game, host):
    assert board_view.nick_parts("Кот_Учоный") == ["Кот_", "Учоный"]
    assert board_view.nick_parts("КотУчёный") == ["Кот", "Учёный"]
    assert board_view.nick_parts("Сова") == ["Сова"]
    services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=120)
    html = board.overlay_frame(game).html
    assert "Кот_<wbr>Учоный" in html and "Кот<wbr>Учёный" in html
    css = (board.settings.BASE_DIR / "static" / "css" / "overlay.css").read_text()
    rule = css[css.index(".ov-nick {") :].split("}", 1)[0]
    assert "overflow-wrap: anywhere" not in rule and "word-break: keep-all" in rule
