"""The host's Discord panel: proposals pre-filled and confirmed through games.services; secrets stay the host's."""

import contextlib
import json
from datetime import timedelta

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from discord_bridge import services
from discord_bridge.consumers import host_socket
from discord_bridge.models import Proposal
from games import reading as game_reading
from games import services as game_services
from games.models import GameAction

from .helpers import game_at_mafia_shot, link, user_id

WEBHOOK = "https://discord.com/api/webhooks/123/very-secret-token"


def dm(seat, text, message_id, *, sent_at=None):
    return services.receive_dm(
        message_id=message_id, author_id=user_id(seat), text=text, sent_at=sent_at or timezone.now()
    )


@pytest.fixture
def linked(host):
    game = game_at_mafia_shot(host)
    link(game, webhook_url=WEBHOOK)
    return game


@pytest.mark.django_db
def test_e2e_night_from_dms_to_the_recorded_log(client, host, linked):
    """N2, N4: a night played from DMs needs only the host's confirmations (one per step)."""
    game = linked
    client.force_login(host)
    for seat, mid in ((1, 11), (4, 14), (7, 17)):
        dm(seat, "5", mid)
    dm(2, "5", 12)  # a red player: marked, never pre-filled
    panel = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert 'name="shot_4" value="5"' in panel and "не его ход" in panel
    pre = services.prefill(game)
    r = client.post(
        reverse("discord:confirm", args=[game.pk]),
        {
            "expected_seq": game.seq,
            "do": "shots",
            "shot_1": "5",
            "shot_4": "5",
            "shot_7": "5",
            "proposal_ids": ",".join(map(str, pre["proposal_ids"])),
        },
    )
    assert r.status_code == 200, r.content.decode()
    game.refresh_from_db()
    assert game_reading.game_state(game).step == "don_check"
    dm(1, "9", 21)  # Don checks 9
    pre = services.prefill(game)
    assert pre["action"] == {"do": "don_check", "target": 9}
    client.post(
        reverse("discord:confirm", args=[game.pk]),
        {
            "expected_seq": game.seq,
            "do": "don_check",
            "target": "9",
            "proposal_ids": ",".join(map(str, pre["proposal_ids"])),
        },
    )
    game.refresh_from_db()
    dm(9, "1", 31)  # Sheriff checks 1
    pre = services.prefill(game)
    client.post(
        reverse("discord:confirm", args=[game.pk]),
        {
            "expected_seq": game.seq,
            "do": "sheriff_check",
            "target": "1",
            "proposal_ids": ",".join(map(str, pre["proposal_ids"])),
        },
    )
    game.refresh_from_db()
    payloads = [a.payload for a in GameAction.objects.filter(game=game).order_by("seq")][-3:]
    assert payloads == [
        {"do": "shots", "by": {"1": 5, "4": 5, "7": 5}},
        {"do": "don_check", "target": 9},
        {"do": "sheriff_check", "target": 1},
    ]
    state = game_reading.game_state(game)
    assert state.victim == 5 and [c["target"] for c in state.checks] == [9, 1]
    assert Proposal.objects.filter(game=game, applied_at__isnull=False).count() == 5


@pytest.mark.django_db
def test_a_proposal_is_never_applied_twice(client, host, linked):
    game = linked
    client.force_login(host)
    record = {"expected_seq": game.seq}
    for seat, mid in ((1, 11), (4, 14), (7, 17)):
        dm(seat, "5", mid)
    ids = ",".join(map(str, services.prefill(game)["proposal_ids"]))
    data = {**record, "do": "shots", "shot_1": "5", "shot_4": "5", "shot_7": "5", "proposal_ids": ids}
    assert client.post(reverse("discord:confirm", args=[game.pk]), data).status_code == 200
    game.refresh_from_db()
    again = client.post(reverse("discord:confirm", args=[game.pk]), {**data, "expected_seq": game.seq})
    assert again.status_code == 409
    assert GameAction.objects.filter(game=game, payload__do="shots").count() == 1


@pytest.mark.django_db
def test_late_dm_is_marked_and_not_prefilled(client, host, linked):
    game = linked
    client.force_login(host)
    dm(4, "5", 14, sent_at=timezone.now() + timedelta(seconds=30))
    assert services.prefill(game)["action"] is None
    panel = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert "поздно" in panel and "discord-confirm" not in panel


@pytest.mark.django_db
def test_refused_confirmation_names_the_rule_and_changes_nothing(client, host, linked):
    game = linked
    client.force_login(host)
    seq = game.seq
    r = client.post(reverse("discord:confirm", args=[game.pk]), {"expected_seq": seq, "do": "don_check", "target": "9"})
    assert r.status_code == 422 and "N4" in r.content.decode()
    game.refresh_from_db()
    assert game.seq == seq


@pytest.mark.django_db
def test_panel_and_settings_are_the_hosts_only(client, other_user, linked):
    client.force_login(other_user)
    assert client.get(reverse("discord:panel", args=[linked.pk])).status_code == 403
    assert client.post(reverse("discord:settings", args=[linked.pk]), {"seat_1": "1"}).status_code == 403


@pytest.mark.django_db
def test_settings_link_seats_by_mention_and_refuse_bad_input(client, host, linked):
    client.force_login(host)
    url = reverse("discord:settings", args=[linked.pk])
    ok = client.post(
        url, {"guild_id": "1", "text_channel_id": "2", "webhook_url": WEBHOOK, "seat_3": "<@!400000000000000099>"}
    )
    assert ok.status_code == 200
    linked.discord_link.refresh_from_db()
    assert linked.discord_link.seat_map().seat_of(400000000000000099) == 3
    bad = client.post(url, {"seat_1": "<@400000000000000001>", "seat_2": "400000000000000001"})
    assert bad.status_code == 422 and "several seats" in bad.content.decode()
    bad_hook = client.post(url, {"webhook_url": "https://example.com/x"})
    assert bad_hook.status_code == 422
    linked.discord_link.refresh_from_db()
    assert linked.discord_link.seat_map().seat_of(400000000000000099) == 3  # nothing changed


@pytest.mark.django_db
def test_secrets_never_reach_public_surfaces(client, host, linked):
    """The webhook URL and DMs' contents: not on the board, overlay, log.json or exports."""
    dm(4, "секретный текст 5", 14)
    client.force_login(host)
    console = client.get(reverse("games:console", args=[linked.pk])).content.decode()
    assert "very-secret-token" not in console  # the panel is fetched separately, host-only
    urls = [reverse("board:board", args=[linked.pk]), reverse("board:snapshot", args=[linked.pk])]
    from django.urls import NoReverseMatch

    for name in ("exports:log_json", "exports:xlsx", "exports:protocol_xlsx"):
        with contextlib.suppress(NoReverseMatch):
            urls.append(reverse(name, args=[linked.pk]))
    client.logout()
    for url in urls:
        body = _body(client.get(url))
        assert b"very-secret-token" not in body and "секретный".encode() not in body, url
    client.force_login(host)
    for url in urls:
        body = _body(client.get(url))
        assert b"very-secret-token" not in body and "секретный".encode() not in body, url


def _body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_host_socket_receives_proposal_events_and_strangers_are_refused(host, other_user):
    from asgiref.sync import sync_to_async

    game = await sync_to_async(game_at_mafia_shot)(host)
    await sync_to_async(link)(game)
    stranger = WebsocketCommunicator(host_socket, f"/ws/games/{game.pk}/host/")
    stranger.scope["url_route"] = {"kwargs": {"game_id": game.pk}}
    stranger.scope["user"] = other_user
    connected, code = await stranger.connect()
    assert not connected and code == 4403
    comm = WebsocketCommunicator(host_socket, f"/ws/games/{game.pk}/host/")
    comm.scope["url_route"] = {"kwargs": {"game_id": game.pk}}
    comm.scope["user"] = host
    connected, _ = await comm.connect()
    assert connected
    received = await sync_to_async(dm)(4, "5", 14)
    frame = json.loads(await comm.receive_from(timeout=2))
    assert frame == {"event": "proposal", "id": received.proposal.pk}  # no content in the frame
    await comm.disconnect()
    assert get_channel_layer() is not None


@pytest.mark.django_db
def test_v2_candidates_line_queued_once_after_the_v1_line(host, linked, django_capture_on_commit_callbacks):
    """V1 then V2: the candidates are duplicated after the line, not when the vote begins (issue 25-1)."""
    from discord_bridge.models import ChatPost

    from .helpers import record

    game = linked
    # No webhook: the post waits for the bot (no test talks to Discord).
    type(game.discord_link).objects.filter(game=game).update(webhook_url="")
    with django_capture_on_commit_callbacks(execute=True):
        record(game, {"do": "shots", "by": {"1": None, "4": None, "7": None}}, host)
        while game_reading.game_state(game).step != "speech":
            record(game, {"do": "next"}, host)
        first = game_reading.game_state(game).speaker
        record(game, {"do": "nominate", "by": first, "target": 5}, host)
        record(game, {"do": "next"}, host)
        second = game_reading.game_state(game).speaker
        record(game, {"do": "nominate", "by": second, "target": 3}, host)
        while game_reading.game_state(game).step != "voting":
            record(game, {"do": "next"}, host)
    game.refresh_from_db()
    assert not ChatPost.objects.filter(kind="candidates").exists()
    line = services.vote_count_start(game=game)
    claimed = services.claim_post(line.pk)
    services.finish_post(claimed, ok=True, attempts=1, posted_at=timezone.now())
    services.finish_post(claimed, ok=True, attempts=1, posted_at=timezone.now())  # reported twice: still once
    posts = list(ChatPost.objects.filter(game=game, kind="candidates").values_list("text", flat=True))
    assert posts == ["Кандидаты: 5, 3"]


@pytest.mark.django_db
def test_tournament_table_inherits_the_tournaments_channel(host):
    from discord_bridge.models import TournamentDiscordLink
    from tournaments import services as tournament_services

    from .helpers import game_at_mafia_shot

    tournament = tournament_services.tournament_create(name="Cup", organizer=host)
    stage = tournament_services.stage_create(tournament=tournament)
    rnd = tournament_services.round_create(stage=stage, tables=1)
    table = rnd.tables.get()
    game = game_at_mafia_shot(host)
    table.game = game
    table.save()
    TournamentDiscordLink.objects.create(
        tournament=tournament, guild_id=77, text_channel_id=78, voice_channel_id=79, webhook_url=WEBHOOK
    )
    game.refresh_from_db()
    own = services.link_save(
        game=game,
        guild_id=None,
        text_channel_id=None,
        voice_channel_id=None,
        webhook_url="",
        seats={"1": str(user_id(1))},
    )
    assert (own.guild_id, own.text_channel_id, own.voice_channel_id, own.webhook_url) == (77, 78, 79, WEBHOOK)
    other = services.link_save(
        game=game, guild_id=None, text_channel_id=90, voice_channel_id=None, webhook_url="", seats={}
    )
    assert other.text_channel_id == 90  # the host's own choice wins


@pytest.mark.django_db
def test_s2_role_dms_in_setup_prefill_the_roles_and_confirm(client, host):
    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    link(game)
    client.force_login(host)
    for seat, text in ((9, "Шериф 9"), (1, "дон 1"), (4, "мафия 4"), (7, "Мафия, 7")):
        received = dm(seat, text, 100 + seat)
        assert received.receipt.startswith("принято: ")
    pre = services.prefill(game)
    assert pre["action"] == {"do": "roles", "sheriff": 9, "don": 1, "mafia": [4, 7]}
    r = client.post(
        reverse("discord:confirm", args=[game.pk]),
        {
            "expected_seq": game.seq,
            "do": "roles",
            "sheriff": "9",
            "don": "1",
            "mafia": "4,7",
            "proposal_ids": ",".join(map(str, pre["proposal_ids"])),
        },
    )
    assert r.status_code == 200, r.content.decode()
    game.refresh_from_db()
    roles = game_reading.game_state(game).roles
    assert {s: r for s, r in roles.items() if r != "civilian"} == {9: "sheriff", 1: "don", 4: "mafia", 7: "mafia"}


@pytest.mark.django_db
def test_console_says_bot_offline_until_it_beats(client, host, linked):
    from discord_bridge.models import BotHeartbeat

    client.force_login(host)
    url = reverse("discord:panel", args=[linked.pk])
    assert "бот не в сети" in client.get(url).content.decode()
    BotHeartbeat.beat("ProtocolBot#0001")
    assert "бот на связи" in client.get(url).content.decode()
    BotHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=5))
    assert "бот не в сети" in client.get(url).content.decode()


@pytest.mark.django_db
def test_the_panel_shows_what_is_not_proven(client, host):
    game = game_at_mafia_shot(host)
    services.link_save(
        game=game,
        guild_id=1,
        text_channel_id=555,
        voice_channel_id=None,
        webhook_url="",
        seats={"4": "400000000000000004"},
    )
    client.force_login(host)
    html = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert 'data-seat-proof="pending"' in html and "не подтверждён" in html
    assert 'data-channel-proof="text"' in html and "текстовый канал: не подтверждён" in html
