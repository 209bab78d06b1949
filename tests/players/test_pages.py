"""Player pages, head-to-head, the leaderboard, its export and the formula page, in ru and en."""

import re
from io import BytesIO
from xml.etree import ElementTree

import pytest
from django.conf import settings
from django.urls import reverse
from openpyxl import load_workbook

from players import services
from players.models import Player
from tests.players.helpers import (
    BLACK_WINS,
    NAMES,
    RED_WINS,
    make_players,
    scripted_game,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _restore_language():
    from django.utils import translation

    previous = translation.get_language()
    yield
    translation.activate(previous)


def lang(client, code):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    return client


@pytest.fixture
def played(host):
    p = make_players()
    scripted_game(host, NAMES, end=RED_WINS)
    scripted_game(host, NAMES, end=BLACK_WINS)
    return p


def chart_of(html: str) -> ElementTree.Element:
    svg = re.search(r"<svg.*?</svg>", html, re.S)
    assert svg, "no chart"
    return ElementTree.fromstring(svg.group(0))


def test_player_page_in_russian_with_an_accessible_chart(client, played):
    r = client.get(reverse("players:detail", args=[played["Alpha"].pk]))
    html = r.content.decode()
    assert r.status_code == 200 and '<html lang="ru">' in html
    assert "По ролям" in html and "Шериф" in html and "Проверки шерифа" in html
    svg = chart_of(html)
    ns = "{http://www.w3.org/2000/svg}"
    assert svg.get("role") == "img" and svg.get("aria-labelledby")
    assert svg.find(f"{ns}title").text == "История рейтинга: Alpha"
    assert "1496" in svg.find(f"{ns}desc").text
    # every point's value as text, and the values as a table on the page
    points = [c.find(f"{ns}title").text for c in svg.iter(f"{ns}circle")]
    assert len(points) == 2 and points[0].endswith(": 1510") and points[1].endswith(": 1496")
    assert '<td class="num">1510</td>' in html and '<td class="num">1496</td>' in html
    # games link to their board and protocol
    assert reverse("board:board", args=[1]).rsplit("/", 3)[0] in html and "protocol.xlsx" in html


def test_player_page_in_english(client, played):
    r = lang(client, "en").get(reverse("players:detail", args=[played["Alpha"].pk]))
    html = r.content.decode()
    assert '<html lang="en">' in html
    assert "By role" in html and "Sheriff checks" in html and "Rating history: Alpha" in html
    assert "По ролям" not in html


def test_player_page_names_games_as_the_reader_calls_them(client, played):
    """A game without a title is «Игра №n» / "Game #n"; a tournament table's
    generated title is in the reader's language (games.titles.game_name, as on
    the board and the host's pages)."""
    from games.models import Game
    from games.titles import table_game_title

    untitled, table = Game.objects.filter(status="finished").order_by("pk")[:2]
    Game.objects.filter(pk=untitled.pk).update(title="")
    with __import__("django.utils.translation", fromlist=["override"]).override("ru"):
        Game.objects.filter(pk=table.pk).update(title=table_game_title("Кубок", "", 1, 2))
    url = reverse("players:detail", args=[played["Alpha"].pk])
    html = client.get(url).content.decode()
    assert f"Игра №{untitled.pk}</a>" in html and "Кубок · тур 1, стол 2</a>" in html
    html = lang(client, "en").get(url).content.decode()
    assert f"Game #{untitled.pk}</a>" in html and "Кубок · round 1, table 2</a>" in html


def test_role_statistics_on_the_page(client, played):
    html = client.get(reverse("players:detail", args=[played["Alpha"].pk])).content.decode()
    # Alpha: Sheriff twice, won once (win rate 50%)
    row = re.search(
        r'<th scope="row">Шериф</th><td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">([^<]+)</td>',
        html,
    )
    assert row and row.groups() == ("2", "1", "50%")


def test_merged_player_page_redirects_to_the_kept_one(client, played):
    dup = services.player_create(nickname="Alpha Twin")
    old = dup.pk
    services.player_merge(duplicate=dup, into=played["Alpha"])
    r = client.get(reverse("players:detail", args=[old]))
    assert r.status_code == 302 and r["Location"] == reverse("players:detail", args=[played["Alpha"].pk])
    assert client.get(reverse("players:detail", args=[999999])).status_code == 404
    assert "Alpha Twin" in client.get(r["Location"]).content.decode()


def test_head_to_head(client, played):
    a, b, c = played["Alpha"], played["Bravo"], played["Echo"]
    html = client.get(reverse("players:head_to_head", args=[a.pk, b.pk])).content.decode()
    assert "Друг против друга" in html and re.search(r"Друг против друга</dt><dd>2 · Alpha: 1 · Bravo: 1", html)
    html = client.get(reverse("players:head_to_head", args=[a.pk, c.pk])).content.decode()
    assert re.search(r"В одной команде</dt><dd>2 · побед: 1", html)
    r = client.get(reverse("players:head_to_head_pick", args=[a.pk]), {"nick": " BRAVO "})
    assert r["Location"] == reverse("players:head_to_head", args=[a.pk, b.pk])
    r = client.get(reverse("players:head_to_head_pick", args=[a.pk]), {"nick": "nobody"}, follow=True)
    assert "Игрок с таким ником не найден." in r.content.decode()


def test_leaderboard_ranks_by_rating_with_filters_in_both_languages(client, host, played):
    scripted_game(host, NAMES, end=BLACK_WINS)  # blacks lead now
    html = client.get(reverse("players:ratings")).content.decode()
    names = re.findall(r'<a href="/players/\d+/">([^<]+)</a>', html)
    assert names[:3] == sorted(["Bravo", "Charlie", "Delta"]) and len(names) == 10
    assert "Рейтинг игроков" in html and "Как считается рейтинг" in html
    assert "Rating of players" in lang(client, "en").get(reverse("players:ratings")).content.decode()
    client.cookies.pop(settings.LANGUAGE_COOKIE_NAME)
    # minimum games: nobody has four counted games
    html = client.get(reverse("players:ratings"), {"min": "4"}).content.decode()
    assert not re.findall(r'<a href="/players/\d+/">', html)
    # Sheriff tab: only Alpha played the Sheriff
    html = client.get(reverse("players:ratings"), {"tab": "sheriff"}).content.decode()
    assert re.findall(r'<a href="/players/\d+/">([^<]+)</a>', html) == ["Alpha"]
    # a season that ended before the games: empty; one that holds them: everybody, with Δ
    assert not re.findall(
        r'<a href="/players/\d+/">', client.get(reverse("players:ratings"), {"to": "2000-01-01"}).content.decode()
    )
    html = client.get(reverse("players:ratings"), {"from": "2000-01-01", "to": "2100-01-01"}).content.decode()
    assert len(re.findall(r'<a href="/players/\d+/">', html)) == 10 and "Δ" in html
    # bad input is ignored, not a 500
    assert client.get(reverse("players:ratings"), {"from": "yesterday", "min": "many", "tab": "<x>"}).status_code == 200
    frag = client.get(reverse("players:ratings"), {"fragment": "1"}).content.decode()
    assert frag.lstrip().startswith('<div id="leaderboard">')


def test_excel_export_writes_nicknames_as_text_never_formulas(client, host):
    evil = ['=HYPERLINK("x")', "+1", "-2", "@cmd", "\tTab", "Fine", "G7", "H8", "I9", "J10"]
    for n in evil:
        services.player_create(nickname=n)
    scripted_game(host, evil)
    r = client.get(reverse("players:ratings_xlsx"))
    assert r.status_code == 200
    ws = load_workbook(BytesIO(r.content)).active
    cells = {ws.cell(row=i, column=2).value: ws.cell(row=i, column=2).data_type for i in range(2, ws.max_row + 1)}
    assert set(cells) == {" ".join(n.split()) for n in evil}
    assert set(cells.values()) == {"s"}
    assert ws.cell(row=2, column=3).data_type == "n" and ws.cell(row=2, column=3).value > 1500


def test_formula_page_in_both_languages(client):
    html = client.get(reverse("players:how")).content.decode()
    assert "Как считается рейтинг" in html and "400 · log10(p / (1 − p))" in html and "K = 20" in html
    html = lang(client, "en").get(reverse("players:how")).content.decode()
    assert "How the rating is computed" in html and "K = 20" in html


def test_tournament_participants_are_matched_and_the_rest_confirmed(client, django_user_model):
    organizer = django_user_model.objects.create_user(username="org", password="pw-org-123")
    from tournaments import services as ts

    t = ts.tournament_create(name="Cup", organizer=organizer)
    alpha = services.player_create(nickname="Alpha")
    kraken = services.player_create(nickname="Kraken")
    client.force_login(organizer)
    r = client.post(
        reverse("tournaments:participants_add", args=[t.pk]), {"text": "ALPHA\nKrakken\nNewbie"}, HTTP_HX_REQUEST="true"
    )
    html = r.content.decode()
    assert r.status_code == 200
    parts = {p.nickname: p for p in t.participants.all()}
    assert parts["ALPHA"].player_id == alpha.pk and parts["Krakken"].player_id is None
    assert f'name="player-{parts["Krakken"].pk}"' in html and f'value="{kraken.pk}"' in html
    assert Player.objects.count() == 2  # nobody is created before the organizer confirms
    r = client.post(
        reverse("tournaments:participants_players", args=[t.pk]),
        {f"player-{parts['Krakken'].pk}": str(kraken.pk), f"player-{parts['Newbie'].pk}": "new"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    parts = {p.nickname: p for p in t.participants.all()}
    assert parts["Krakken"].player_id == kraken.pk
    assert parts["Newbie"].player.nickname == "Newbie"
    # one organizer's choice links his participant; no alias without staff or Kraken himself (issue 22)
    assert not kraken.aliases.filter(nickname="Krakken").exists()
    # a stranger cannot confirm
    client.force_login(django_user_model.objects.create_user(username="x", password="pw-x-1234"))
    assert client.post(reverse("tournaments:participants_players", args=[t.pk]), {}).status_code == 403


def test_staff_rename_and_merge_from_the_player_page(client, django_user_model, played):
    alpha = played["Alpha"]
    dup = services.player_create(nickname="Alpha Second")
    url_rename = reverse("players:rename", args=[alpha.pk])
    url_merge = reverse("players:merge", args=[alpha.pk])
    # strangers and plain users are refused and nothing changes
    assert client.post(url_rename, {"nickname": "X"}).status_code == 403
    client.force_login(django_user_model.objects.create_user(username="plain", password="pw-plain-1"))
    assert client.post(url_merge, {"duplicate": "Alpha Second"}).status_code == 403
    assert Player.objects.filter(pk=dup.pk).exists()
    staff = django_user_model.objects.create_user(username="admin", password="pw-admin-1", is_staff=True)
    client.force_login(staff)
    assert "Управление" in client.get(reverse("players:detail", args=[alpha.pk])).content.decode()
    r = client.post(url_rename, {"nickname": "Bravo"}, follow=True)  # taken: refused with a message
    assert "уже занят" in r.content.decode()
    client.post(url_rename, {"nickname": "Alpha Prime"})
    client.post(url_merge, {"duplicate": "alpha second"})
    alpha.refresh_from_db()
    assert alpha.nickname == "Alpha Prime" and not Player.objects.filter(pk=dup.pk).exists()
    html = client.get(reverse("players:detail", args=[alpha.pk])).content.decode()
    aliases = re.search(r"Другие ники: ([^<]+)</p>", html).group(1)
    assert set(aliases.split(", ")) == {"Alpha", "Alpha Second"}
    assert "Объединён с записью «Alpha Second»" in html
