"""The host console views: fragments returned to htmx, refusals, permissions, CSRF."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import override

from games import services
from games.models import Game, GameAction
from games.rules import replay

PLAYERS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]
HX = {"HTTP_HX_REQUEST": "true"}


def load_actions(examples_dir, name):
    data = json.loads((examples_dir / f"{name}.json").read_text())
    return [a for a in data["actions"] if a["do"] != "expect" and not a.get("reject")]


def action_to_post(action):
    """The console's form fields for a log action (what the clicks send)."""
    do = action["do"]
    data: dict = {"do": do}
    if do == "seat":
        data["players"] = "\n".join(action["players"])
        data["seating"] = "typed"
    elif do == "roles":
        data.update(sheriff=action["sheriff"], don=action["don"], mafia=list(action["mafia"]))
    elif do == "votes":
        for cand, voters in action["for"].items():
            for v in voters:
                data[f"vote-{v}"] = str(cand)
    elif do == "lift_vote":
        data["yes"] = list(action["yes"])
    elif do == "shots":
        for black, target in action["by"].items():
            data[f"shot-{black}"] = "" if target is None else str(target)
    elif do == "best_move":
        if action.get("pass"):
            data["mode"] = "pass"
        elif action.get("accepted") is False:
            data["mode"] = "not_accepted"
        else:
            data["mode"] = "seats"
            data["seats"] = list(action["seats"])
    else:
        for key, value in action.items():
            if key != "do":
                data[key if key != "reason" else "reason_text"] = value
    return data


@pytest.fixture
def client_host(host):
    c = Client()
    c.force_login(host)
    return c


@pytest.fixture
def game(host):
    return services.game_create(host=host, title="Стол 1", players=PLAYERS)


def act(client, game, data, **extra):
    game.refresh_from_db()
    payload = {"expected_seq": game.seq, **data}
    return client.post(reverse("games:act", args=[game.pk]), payload, **HX, **extra)


def running_game(host, client):
    game = services.game_create(host=host, players=PLAYERS)
    for a in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": ["3", "4"]}, {"do": "start"}):
        assert act(client, game, a).status_code == 200
    return game


# --- pages and permissions ---------------------------------------------------------------


@pytest.mark.django_db
def test_list_shows_only_my_games(client_host, game, other_user):
    services.game_create(host=other_user, title="Чужая игра", players=PLAYERS)
    html = client_host.get(reverse("games:list")).content.decode()
    assert "Стол 1" in html
    assert "Чужая игра" not in html


@pytest.mark.django_db
def test_anonymous_is_sent_to_login(client, game):
    r = client.get(reverse("games:console", args=[game.pk]))
    assert r.status_code == 302 and "/accounts/login/" in r["Location"]
    r = client.post(reverse("games:act", args=[game.pk]), {"do": "next", "expected_seq": 1}, **HX)
    assert r.status_code == 401 and "/accounts/login/" in r["HX-Redirect"]


@pytest.mark.django_db
def test_other_user_gets_403_everywhere_and_changes_nothing(game, other_user):
    c = Client()
    c.force_login(other_user)
    assert c.get(reverse("games:console", args=[game.pk])).status_code == 403
    assert c.get(reverse("games:console_fragment", args=[game.pk]), **HX).status_code == 403
    r = c.post(
        reverse("games:act", args=[game.pk]),
        {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4], "expected_seq": game.seq},
        **HX,
    )
    assert r.status_code == 403
    assert c.post(reverse("games:undo", args=[game.pk]), {"expected_seq": game.seq}, **HX).status_code == 403
    assert c.post(reverse("games:clock", args=[game.pk]), {"command": "pause"}, **HX).status_code == 403
    assert c.post(reverse("games:overlay", args=[game.pk]), {"enabled": "1"}, **HX).status_code == 403
    game.refresh_from_db()
    assert game.seq == 1 and game.overlay_token == ""


@pytest.mark.django_db
def test_superuser_may_run_any_game(game, django_user_model):
    admin = django_user_model.objects.create_superuser("boss", password="boss-pass-123")
    c = Client()
    c.force_login(admin)
    assert c.get(reverse("games:console", args=[game.pk])).status_code == 200


@pytest.mark.django_db
def test_csrf_is_enforced_on_actions(host, game):
    c = Client(enforce_csrf_checks=True)
    c.force_login(host)
    url = reverse("games:act", args=[game.pk])
    data = {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4], "expected_seq": 1}
    assert c.post(url, data, **HX).status_code == 403
    # The page sets the token as the htmx header on <body> (hx-headers).
    page = c.get(reverse("games:console", args=[game.pk])).content.decode()
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
    assert c.post(url, data, HTTP_X_CSRFTOKEN=token, **HX).status_code == 200
    game.refresh_from_db()
    assert game.seq == 2


# --- creating a game ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_create_keeps_the_typed_order(client_host, host):
    # players_confirmed: the host already answered the players' matching (players app)
    r = client_host.post(
        reverse("games:create"),
        {"title": "Финал", "players": "\n".join(PLAYERS) + "\n\n", "seating": "typed", "players_confirmed": "1"},
    )
    game = Game.objects.get(host=host)
    assert r.status_code == 302 and r["Location"] == reverse("games:console", args=[game.pk])
    assert game.action_payloads() == [{"do": "seat", "players": PLAYERS}]
    assert game.seating_seed == ""


@pytest.mark.django_db
def test_create_draws_the_seating_and_records_the_seed(client_host, host):
    client_host.post(
        reverse("games:create"), {"players": "\n".join(PLAYERS), "seating": "random", "players_confirmed": "1"}
    )
    game = Game.objects.get(host=host)
    seat = game.action_payloads()[0]
    assert seat["seed"] and seat["seed"] == game.seating_seed
    # S1: the recorded seed reproduces the seating.
    assert seat["players"] == services.draw_seating(PLAYERS, seat["seed"])[0]
    assert sorted(seat["players"]) == sorted(PLAYERS)


@pytest.mark.django_db
def test_create_refuses_nine_or_repeated_nicknames(client_host, host):
    r = client_host.post(reverse("games:create"), {"players": "\n".join(PLAYERS[:9]), "seating": "typed"})
    assert r.status_code == 200 and "10" in r.content.decode()
    r = client_host.post(reverse("games:create"), {"players": "\n".join(PLAYERS[:9] + ["alpha"]), "seating": "typed"})
    assert "повторяется" in r.content.decode()
    assert not Game.objects.filter(host=host).exists()


@pytest.mark.django_db
def test_reseat_from_the_console_draws_with_a_seed(client_host, game):
    r = act(client_host, game, {"do": "seat", "players": "\n".join(reversed(PLAYERS)), "seating": "random"})
    assert r.status_code == 200
    game.refresh_from_db()
    last = game.action_payloads()[-1]
    assert last["seed"] and sorted(last["players"]) == sorted(PLAYERS)
    assert last["players"] == services.draw_seating(list(reversed(PLAYERS)), last["seed"])[0]


# --- the console fragment --------------------------------------------------------------------------


@pytest.mark.django_db
def test_console_page_shows_the_setup(client_host, game):
    html = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert 'id="console"' in html and "<html" in html
    assert "Рассадка и роли" in html
    assert html.count('class="tile ') == 10
    assert 'data-picker="roles"' in html
    assert 'id="start-btn"' not in html  # no roles yet: start is not offered


@pytest.mark.django_db
def test_action_returns_the_console_fragment_only(client_host, game):
    r = act(client_host, game, {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]})
    html = r.content.decode()
    assert r.status_code == 200
    assert html.lstrip().startswith('<div id="console"') and "<html" not in html
    assert 'data-seq="2"' in html
    assert 'id="start-btn"' in html
    # Role badges are the host's to see.
    assert "role-badge role-sheriff" in html and "role-badge role-don" in html


@pytest.mark.django_db
def test_next_moves_the_step_and_starts_its_clock(client_host, host):
    game = running_game(host, client_host)
    html = act(client_host, game, {"do": "next"}).content.decode()
    assert "Свободная посадка" in html
    assert 'data-running="1"' in html
    assert 'data-duration-ms="60000"' in html


@pytest.mark.django_db
def test_only_legal_actions_are_offered(client_host, host):
    game = running_game(host, client_host)
    act(client_host, game, {"do": "next"})
    html = act(client_host, game, {"do": "next"}).content.decode()  # Day 1, speech of seat 1
    assert "Речь №1" in html
    assert html.count("data-primary") == 10  # seat 1 may nominate any seat at the table (D3)
    assert 'id="next-btn"' in html
    for seat in (2, 4, 6, 7, 8, 9, 10):  # nobody nominated: the day ends with the Night
        act(client_host, game, {"do": "next"} if seat != 2 else {"do": "next"})
    game.refresh_from_db()
    assert game.public_state["step"] == "speech"


@pytest.mark.django_db
def test_nomination_answers_accepted_then_supported(client_host, host):
    game = running_game(host, client_host)
    act(client_host, game, {"do": "next"})
    act(client_host, game, {"do": "next"})
    html = act(client_host, game, {"do": "nominate", "by": 1, "target": 3}).content.decode()
    assert "Принято" in html and "День 1: №1 выставил №3" in html
    act(client_host, game, {"do": "next"})
    html = act(client_host, game, {"do": "nominate", "by": 2, "target": 3}).content.decode()
    assert "Поддерживается" in html


@pytest.mark.django_db
def test_illegal_action_is_refused_with_its_rule_and_changes_nothing(client_host, host):
    game = running_game(host, client_host)
    act(client_host, game, {"do": "next"})
    act(client_host, game, {"do": "next"})
    game.refresh_from_db()
    seq, count = game.seq, GameAction.objects.filter(game=game).count()
    # A crafted POST: seat 5 nominates while seat 1 speaks (D3).
    r = act(client_host, game, {"do": "nominate", "by": 5, "target": 3})
    html = r.content.decode()
    assert r.status_code == 422
    assert "D3" in html and 'class="flash flash-error"' in html
    assert html.lstrip().startswith('<div id="console"')
    game.refresh_from_db()
    assert game.seq == seq and GameAction.objects.filter(game=game).count() == count


@pytest.mark.django_db
def test_next_during_the_vote_is_refused_naming_v2(client_host, host, examples_dir):
    game = running_game(host, client_host)
    for a in load_actions(examples_dir, "red_win")[3:]:
        if game.public_state.get("step") == "voting":
            break
        act(client_host, game, action_to_post(a))
        game.refresh_from_db()
    assert game.public_state["step"] == "voting"
    r = act(client_host, game, {"do": "next"})
    assert r.status_code == 422 and "V2" in r.content.decode()


@pytest.mark.django_db
def test_malformed_field_is_refused_naming_the_field(client_host, game):
    r = act(client_host, game, {"do": "roles", "sheriff": "11", "don": 2, "mafia": [3, 4]})
    assert r.status_code == 422 and "sheriff" in r.content.decode()
    r = act(client_host, game, {"do": "launch_rockets"})
    assert r.status_code == 422 and "do" in r.content.decode()
    r = client_host.post(reverse("games:act", args=[game.pk]), {"do": "start"}, **HX)
    assert r.status_code == 422 and "expected_seq" in r.content.decode()
    game.refresh_from_db()
    assert game.seq == 1


@pytest.mark.django_db
def test_a_double_click_is_applied_once(client_host, host):
    game = running_game(host, client_host)
    game.refresh_from_db()
    url = reverse("games:act", args=[game.pk])
    first = client_host.post(url, {"do": "next", "expected_seq": game.seq}, **HX)
    second = client_host.post(url, {"do": "next", "expected_seq": game.seq}, **HX)
    assert first.status_code == 200
    assert second.status_code == 409 and "Ничего не применено" in second.content.decode()
    game.refresh_from_db()
    assert game.public_state["step"] == "free_seating"


@pytest.mark.django_db
def test_votes_and_shots_are_read_from_the_panel_fields(client_host, host, examples_dir):
    game = running_game(host, client_host)
    for a in load_actions(examples_dir, "red_win")[3:]:
        act(client_host, game, action_to_post(a))
        game.refresh_from_db()
        if a["do"] == "shots":
            break
    payloads = game.action_payloads()
    assert {"do": "votes", "for": {"3": [1, 5, 6, 7, 8, 9, 10], "4": [2, 3]}} in payloads
    assert payloads[-1] == {"do": "shots", "by": {"2": 5, "4": 5}}


@pytest.mark.django_db
def test_voting_panel_lists_candidates_in_nomination_order(client_host, host, examples_dir):
    game = running_game(host, client_host)
    for a in load_actions(examples_dir, "red_win")[3:]:
        r = act(client_host, game, action_to_post(a))
        game.refresh_from_db()
        if game.public_state["step"] == "voting":
            break
    html = r.content.decode()
    assert 'data-picker="votes"' in html
    rows = re.findall(r'data-candidate="(\d+)"', html)
    assert rows == ["3", "4"]
    assert "--------------" in html and "Кандидатуры: 3, 4" in html
    assert 'id="next-btn"' not in html  # the vote ends with its own action


@pytest.mark.django_db
def test_whole_red_win_by_form_fields_replays_to_the_example(client_host, host, examples_dir):
    actions = load_actions(examples_dir, "red_win")
    game = services.game_create(host=host, players=actions[0]["players"])
    for a in actions[1:]:
        r = act(client_host, game, action_to_post(a))
        assert r.status_code == 200, (a, r.content.decode()[:400])
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == "red"
    assert replay(game.action_payloads()).public_dict() == replay(actions).public_dict()
    html = r.content.decode()
    assert "Победа красных" in html and "Игра окончена" in html


# The hand-written examples and random logs that between them use every
# action kind (penalties, winks, technical pauses, lift votes, misses,
# best moves not accepted, annulment).
COVERING = [
    "black_win",
    "tie_and_lift",
    "random/random_10002",
    "random/random_10004",
    "random/random_10011",
    "random/random_10008",
    "random/random_10005",
]


@pytest.mark.django_db
@pytest.mark.parametrize("name", COVERING)
def test_examples_by_form_fields_replay_to_the_same_state(client_host, host, examples_dir, name):
    actions = load_actions(examples_dir, name)
    game = services.game_create(host=host, players=actions[0]["players"])
    for a in actions[1:]:
        r = act(client_host, game, action_to_post(a))
        assert r.status_code == 200, (a, r.content.decode()[:600])
    game.refresh_from_db()
    assert replay(game.action_payloads()).public_dict() == replay(actions).public_dict()
    # Every action got its protocol line.
    assert r.content.decode().count('<li class="pl ') == len(actions)


@pytest.mark.django_db
def test_penalty_with_a_catalogue_reason_stores_its_russian_text(client_host, host):
    game = running_game(host, client_host)
    r = act(client_host, game, {"do": "foul", "seat": 5, "reason": "flood_spam"})
    assert r.status_code == 200
    game.refresh_from_db()
    # The Russian wording (S4) and the catalogue's code (F16), for every reader's language.
    assert game.action_payloads()[-1] == {"do": "foul", "seat": 5, "reason": "Флуд, спам", "reason_code": "flood_spam"}
    assert "№5 — фол (1-й): Флуд, спам" in r.content.decode()
    # A typed reason wins over the catalogue.
    act(client_host, game, {"do": "warning", "seat": 5, "reason": "flood_spam", "reason_text": "пение"})
    game.refresh_from_db()
    assert game.action_payloads()[-1] == {"do": "warning", "seat": 5, "reason": "пение"}


@pytest.mark.django_db
def test_fourth_foul_removes_and_the_tile_shows_it(client_host, host):
    game = running_game(host, client_host)
    for _ in range(4):
        r = act(client_host, game, {"do": "foul", "seat": 7})
    html = r.content.decode()
    assert "удалён: 4 фола" in html
    assert re.search(r'class="tile team-red is-out[^"]*"\s+id="tile-7"', html)


@pytest.mark.django_db
def test_wink_gives_the_chat_line(client_host, host):
    game = running_game(host, client_host)
    html = act(client_host, game, {"do": "wink", "by": 2, "target": 7}).content.decode()
    assert "Вам мигнул 2" in html
    assert 'data-copy="Вам мигнул 2"' in html


@pytest.mark.django_db
def test_tech_pause_pauses_the_step_clock(client_host, host):
    game = running_game(host, client_host)
    html = act(client_host, game, {"do": "tech_pause", "seat": 6}).content.decode()
    game.refresh_from_db()
    assert game.clock_started_at is None
    assert "Тех. перерыв" in html and 'class="mini-clock"' in html


# --- undo ------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_undo_removes_the_last_action_and_says_what(client_host, host):
    game = running_game(host, client_host)
    act(client_host, game, {"do": "foul", "seat": 3})
    page = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert "Отменить последнее действие: «Ночь 0: №3 — фол (1-й)»?" in page
    game.refresh_from_db()
    r = client_host.post(reverse("games:undo", args=[game.pk]), {"expected_seq": game.seq}, **HX)
    assert r.status_code == 200
    assert "Отменено: Ночь 0: №3 — фол (1-й)" in r.content.decode()
    game.refresh_from_db()
    assert game.public_state["fouls"] == {}
    assert GameAction.objects.filter(game=game, undone_at__isnull=False).count() == 1


@pytest.mark.django_db
def test_undo_with_a_stale_page_is_refused(client_host, game):
    r = client_host.post(reverse("games:undo", args=[game.pk]), {"expected_seq": 0}, **HX)
    assert r.status_code == 409
    game.refresh_from_db()
    assert game.seq == 1 and game.action_payloads()


# --- clocks ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_clock_pause_and_resume_return_the_clock_partial(client_host, host):
    game = running_game(host, client_host)
    url = reverse("games:clock", args=[game.pk])
    html = client_host.post(url, {"command": "pause"}, **HX).content.decode()
    assert html.lstrip().startswith('<div id="clock"') and 'data-running="0"' in html
    html = client_host.post(url, {"command": "adjust", "seconds": "10"}, **HX).content.decode()
    assert 'data-duration-ms="70000"' in html
    html = client_host.post(url, {"command": "toggle"}, **HX).content.decode()
    assert 'data-running="1"' in html
    assert client_host.post(url, {"command": "explode"}, **HX).status_code == 422


@pytest.mark.django_db
def test_timeout_stops_the_clock_and_shows_in_the_banner(client_host, host):
    game = running_game(host, client_host)
    html = client_host.post(reverse("games:clock", args=[game.pk]), {"command": "timeout"}, **HX).content.decode()
    assert "ТАЙМ-АУТ" in html and 'data-running="0"' in html
    html = client_host.post(reverse("games:clock", args=[game.pk]), {"command": "end_timeout"}, **HX).content.decode()
    assert "ТАЙМ-АУТ" not in html


@pytest.mark.django_db
def test_a_reload_shows_the_same_remaining_time(client_host, host):
    game = running_game(host, client_host)
    act(client_host, game, {"do": "next"})
    start = timezone.now()
    with time_machine.travel(start + timedelta(seconds=17), tick=False):
        first = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
        second = client_host.get(reverse("games:console_fragment", args=[game.pk]), **HX).content.decode()
    remaining = [int(m) for m in re.findall(r'data-remaining-ms="(\d+)"', first + second)]
    assert len(remaining) == 2 and remaining[0] == remaining[1]
    assert 42_000 <= remaining[0] <= 43_100


@pytest.mark.django_db
def test_poll_answers_204_when_nothing_changed(client_host, game):
    url = reverse("games:console_fragment", args=[game.pk])
    html = client_host.get(url, **HX).content.decode()
    ck = re.search(r"ck=([0-9a-f]+)", html).group(1)
    assert client_host.get(url, {"seq": game.seq, "ck": ck}, **HX).status_code == 204
    assert client_host.get(url, {"seq": game.seq - 1, "ck": ck}, **HX).status_code == 200


# --- overlay, language ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_overlay_toggle_returns_the_share_partial(client_host, game):
    url = reverse("games:overlay", args=[game.pk])
    html = client_host.post(url, {"enabled": "1", "delay": "30"}, **HX).content.decode()
    game.refresh_from_db()
    assert game.overlay_token and game.overlay_delay_seconds == 30
    assert html.lstrip().startswith('<div id="share"') and game.overlay_token in html
    token = game.overlay_token
    client_host.post(url, {"enabled": "1", "delay": "10"}, **HX)
    game.refresh_from_db()
    assert game.overlay_token == token and game.overlay_delay_seconds == 10
    client_host.post(url, {"enabled": "0"}, **HX)
    game.refresh_from_db()
    assert game.overlay_token == ""


@pytest.mark.django_db
def test_russian_is_the_default_language(client_host, game):
    with override("ru"):
        html = client_host.get(reverse("games:console", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert '<html lang="ru">' in html and "Протокол" in html


@pytest.mark.django_db
def test_tie_speeches_and_lift_vote_panels(client_host, host, examples_dir):
    actions = load_actions(examples_dir, "tie_and_lift")
    game = services.game_create(host=host, players=actions[0]["players"])
    seen = set()
    for a in actions[1:]:
        html = act(client_host, game, action_to_post(a)).content.decode()
        game.refresh_from_db()
        step = game.public_state["step"]
        if step == "tie_speech":
            seen.add("tie")
            assert "Речь 30 секунд" in html and 'data-duration-ms="30000"' in html
        if step == "lift_vote":
            seen.add("lift")
            assert 'data-picker="lift"' in html and "Кто за то, чтобы все голосуемые Игроки покинули Игру?" in html
    assert seen == {"tie", "lift"}


@pytest.mark.django_db
def test_preserved_panels_have_css_safe_ids(client_host, host, examples_dir):
    # htmx looks hx-preserve elements up with "#" + id: a dot would break the swap.
    game = running_game(host, client_host)
    for a in load_actions(examples_dir, "red_win")[3:]:
        html = act(client_host, game, action_to_post(a)).content.decode()
        for panel_id in re.findall(r'id="([^"]+)" hx-preserve', html):
            assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", panel_id), panel_id
        game.refresh_from_db()
        if a["do"] == "shots":
            break


@pytest.mark.django_db
def test_no_template_comment_leaks_into_the_page(client_host, game):
    html = client_host.get(reverse("games:console", args=[game.pk])).content.decode()
    assert "{#" not in html and "#}" not in html and "{%" not in html
