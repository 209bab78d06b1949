"""Issue 25: the bridge proposes what the regulations imply, against a Discord that is late,
replays, edits and deletes. Services level, no network (the bot's harness is in test_bot.py)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from discord_bridge import core, services
from discord_bridge.models import ChatPost, DiscordLink, Proposal
from games import reading as game_reading
from games import services as game_services
from games.models import GameAction

from .helpers import ROLES, game_at_mafia_shot, game_at_voting, link, record, user_id

pytestmark = pytest.mark.django_db

CHANNEL = 555


def dm(seat, text, message_id, sent_at):
    return services.receive_dm(message_id=message_id, author_id=user_id(seat), text=text, sent_at=sent_at)


def plus(seat, message_id, sent_at, channel=CHANNEL):
    return services.receive_plus(channel_id=channel, message_id=message_id, author_id=user_id(seat), sent_at=sent_at)


def post_line(game, posted_at):
    """The V1 line as the bot or the webhook reports it: posted, at its own Discord time."""
    line = services.vote_count_start(game=game)
    assert line is not None and line.due_at - timezone.now() > timedelta(seconds=4)
    claimed = services.claim_post(line.pk)
    services.finish_post(claimed, ok=True, attempts=1, posted_at=posted_at)
    game.refresh_from_db()


def last_click(link):
    return services._windows(link).clicks[-1][1]


# --- 1. V1 in the regulations' order ----------------------------------------------------------


def test_v1_whole_vote_in_the_regulations_order(host):
    """«5 с» → the line → candidates → «5, кто за 5» → «+» (V1, V2); the old code marked every «+» late."""
    game = game_at_voting(host)
    link(game)
    now = timezone.now()
    plus(2, 1001, now)  # in the vote, before the line: no vote
    with pytest.raises(core.BridgeError):
        services.vote_click(game=game, candidate=5)  # «кто за N» before the line: refused (V1)
    line_at = now + timedelta(milliseconds=2)  # (the test does not wait the 5 s: the line's own time is the mark)
    post_line(game, line_at)
    assert DiscordLink.objects.get(game=game).vote_line_at == line_at
    assert list(ChatPost.objects.filter(game=game, kind="candidates").values_list("text", flat=True)) == [
        "Кандидаты: 5, 3"
    ]
    click5 = last_click(services.vote_click(game=game, candidate=5))
    for seat, mid in ((2, 1002), (6, 1006)):
        plus(seat, mid, click5)
    services.receive_chat(channel_id=CHANNEL, message_id=1099, author_id=user_id(8), text="это не я", sent_at=click5)
    click3 = last_click(services.vote_click(game=game, candidate=3))
    plus(8, 1008, click3 + timedelta(milliseconds=1))
    plus(2, 1012, click3 + timedelta(milliseconds=2))  # V3: his first «+» counts
    pre = services.prefill(game)
    assert pre["action"] == {"do": "votes", "for": {"5": [2, 6], "3": [8]}}
    assert Proposal.objects.get(message_id=1001).status == core.BEFORE_LINE
    chat = Proposal.objects.get(message_id=1099)
    assert (chat.kind, chat.status, chat.seat) == ("chat", core.AFTER_LINE, 8)
    # The panel shows the marks and the possible violation; it never decides a foul.
    from discord_bridge.views import panel_context

    context = panel_context(game)
    marks = {x["p"].message_id: x["status"] for x in context["pluses"]}
    assert marks[1001] == core.BEFORE_LINE and marks[1012] == core.REPEAT and marks[1002] == core.OK
    assert any(r["p"].message_id == 1099 for r in context["rows"])


def test_v4_an_empty_tally_is_never_offered(host):
    """`{5: [], 3: []}` was offered, and its Enter gave all ten votes to the last candidate (V4)."""
    game = game_at_voting(host)
    link(game)
    post_line(game, timezone.now())
    services.vote_click(game=game, candidate=5)
    services.vote_click(game=game, candidate=3)
    assert services.prefill(game)["action"] is None


def test_v1_the_lines_mark_is_when_it_appeared_not_when_it_was_due(host):
    """A line posted 1 s late: a «+» in that second is before the line, not a vote."""
    game = game_at_voting(host)
    link(game)
    line = services.vote_count_start(game=game)
    appeared = line.due_at + timedelta(seconds=1)
    plus(2, 2001, line.due_at + timedelta(milliseconds=500))
    services.finish_post(services.claim_post(line.pk), ok=True, attempts=1, posted_at=appeared)
    assert DiscordLink.objects.get(game=game).vote_line_at == appeared
    services.vote_click(game=game, candidate=5)
    assert Proposal.objects.get(message_id=2001).status == core.BEFORE_LINE


def test_a_plus_in_the_clicks_own_millisecond_counts(host):
    """The flaky test's cause: the «+» floored to the millisecond looked earlier than the click."""
    game = game_at_voting(host)
    link(game)
    post_line(game, timezone.now() - timedelta(seconds=1))
    services.vote_click(game=game, candidate=5)
    clicked = services._windows(DiscordLink.objects.get(game=game)).clicks[-1][1]
    same_ms = clicked.replace(microsecond=clicked.microsecond - clicked.microsecond % 1000)
    received = plus(2, 3001, same_ms)
    assert (received.proposal.status, received.proposal.target) == (core.OK, 5)


# --- 2. a DM belongs to the step of its timestamp ----------------------------------------------


def test_dons_shot_processed_after_the_shots_is_not_his_check(host):
    """The Don's shot, processed after the host confirmed the shots, became a pre-filled Don check,
    and his real check a «repeat»."""
    game = game_at_mafia_shot(host)
    link(game)
    sent_during_shot = timezone.now()
    record(game, {"do": "shots", "by": {"1": 5, "4": 5, "7": 5}}, host)
    # The host confirmed a second after the Don sent it (recorded at once, the two could share
    # a millisecond, and a DM in the action's millisecond belongs to the new step).
    confirmed = sent_during_shot + timedelta(seconds=1)
    GameAction.objects.filter(pk=GameAction.objects.filter(game=game).order_by("-seq").first().pk).update(
        created_at=confirmed
    )
    game.refresh_from_db()
    assert game_reading.game_state(game).step == "don_check"
    late = dm(1, "5", 4001, sent_during_shot)  # delivered late (RESUME, slow database)
    assert (late.proposal.kind, late.proposal.step) == ("shot", "mafia_shot")
    assert services.prefill(game)["action"] is None
    check = dm(1, "9", 4002, confirmed + timedelta(seconds=1))
    assert check.proposal.status == core.OK and check.receipt == "принято: 9"
    assert services.prefill(game)["action"] == {"do": "don_check", "target": 9}


def test_replayed_dms_out_of_order_the_first_sent_counts(host):
    """N4 after a RESUME replay: his messages arrive in reverse; the earliest sent is the proposal."""
    game = game_at_mafia_shot(host)
    link(game)
    record(game, {"do": "shots", "by": {"1": None, "4": None, "7": None}}, host)
    record(game, {"do": "don_check", "target": 2}, host)
    game.refresh_from_db()
    t = timezone.now()
    second = dm(9, "6", 5002, t + timedelta(seconds=2))
    assert second.proposal.status == core.OK
    first = dm(9, "5", 5001, t + timedelta(seconds=1))
    assert first.proposal.status == core.OK
    assert Proposal.objects.get(message_id=5002).status == core.REPEAT
    assert services.prefill(game)["action"] == {"do": "sheriff_check", "target": 5}
    third = dm(9, "7", 5003, t + timedelta(seconds=3))
    assert third.receipt == "повтор: считается первое (5)"


def test_the_window_is_the_steps_clock_not_the_last_action(host):
    """A wink recorded during the step did not restart its 15 s."""
    game = game_at_mafia_shot(host)
    link(game)
    opened = game.active_actions().last().created_at
    record(game, {"do": "wink", "by": 9, "target": 2}, host)
    game.refresh_from_db()
    late = dm(4, "5", 6001, opened + timedelta(seconds=17))
    assert late.proposal.status == core.LATE and late.receipt == "поздно — не принято"


# --- 3 + 8. routing that cannot mix games ------------------------------------------------------


def test_a_second_live_game_cannot_claim_the_channel_or_the_members(host, django_user_model):
    victim = game_at_mafia_shot(host)
    link(victim)
    attacker_host = django_user_model.objects.create_user("attacker", password="x")
    attacker = game_at_mafia_shot(attacker_host)
    with pytest.raises(core.BridgeError, match="another running game"):
        services.link_save(
            game=attacker, guild_id=1, text_channel_id=CHANNEL, voice_channel_id=None, webhook_url="", seats={}
        )
    with pytest.raises(core.BridgeError, match="another running game"):
        services.link_save(
            game=attacker,
            guild_id=1,
            text_channel_id=999,
            voice_channel_id=None,
            webhook_url="",
            seats={"1": str(user_id(4))},
        )
    assert not DiscordLink.objects.filter(game=attacker).exists()
    # The victim's DMs still reach the victim's game only.
    received = dm(4, "5", 7001, timezone.now())
    assert received.proposal.game_id == victim.pk


def test_a_finished_game_frees_its_channel_and_members(host):
    old = game_at_mafia_shot(host)
    link(old)
    type(old).objects.filter(pk=old.pk).update(status="finished")
    new = game_at_mafia_shot(host)
    assert link(new).game_id == new.pk


def test_a_click_never_re_saves_the_link(host):
    game = game_at_voting(host)
    saved = link(game).updated_at
    post_line(game, timezone.now())
    services.vote_click(game=game, candidate=5)
    assert DiscordLink.objects.get(game=game).updated_at == saved


def test_tournament_tables_share_a_channel_and_each_plus_goes_to_the_table_that_opened_the_count(
    host, django_user_model
):
    from discord_bridge.models import TournamentDiscordLink
    from tournaments import services as tournament_services

    tournament = tournament_services.tournament_create(name="Cup", organizer=host)
    stage = tournament_services.stage_create(tournament=tournament)
    rnd = tournament_services.round_create(stage=stage, tables=2)
    TournamentDiscordLink.objects.create(tournament=tournament, guild_id=77, text_channel_id=CHANNEL)
    games = []
    for i, table in enumerate(rnd.tables.order_by("pk")):
        game = game_at_voting(host)
        table.game = game
        table.save()
        game.refresh_from_db()
        base = 500000000000000000 + 100 * i
        saved = services.link_save(
            game=game,
            guild_id=None,
            text_channel_id=None,
            voice_channel_id=None,
            webhook_url="",
            seats={str(s): str(base + s) for s in range(1, 11)},
        )
        assert saved.channel_proof("text") == "organizer"  # the organizer set the tournament's channel
        for seat, user in saved.seat_map().by_seat.items():
            services.prove_member(saved, seat, user, "dm")
        post_line(game, timezone.now() - timedelta(seconds=1))
        games.append((game, base))
    (g1, b1), (g2, b2) = games
    services.vote_click(game=g1, candidate=5)
    r1 = services.receive_plus(channel_id=CHANNEL, message_id=8001, author_id=b1 + 2, sent_at=timezone.now())
    services.vote_click(game=g2, candidate=3)
    r2 = services.receive_plus(channel_id=CHANNEL, message_id=8002, author_id=b2 + 6, sent_at=timezone.now())
    assert (r1.proposal.game_id, r1.proposal.seat, r1.proposal.target) == (g1.pk, 2, 5)
    assert (r2.proposal.game_id, r2.proposal.seat, r2.proposal.target) == (g2.pk, 6, 3)


# --- 9. one schema for Discord input -----------------------------------------------------------


@pytest.mark.parametrize(
    "field,value",
    [
        ("guild_id", "1²3"),
        ("text_channel_id", "①"),
        ("voice_channel_id", str(2**64)),
        ("webhook_url", "https://discord.com/api/webhooks/1/a\r\nX-Injected: 1"),
        ("webhook_url", "https://discord.com/api/webhooks/1/" + "a" * 400),
        ("webhook_url", "https://discord.com/api/webhooks/1/a\x00"),
        ("webhook_url", "http://127.0.0.1:6379/webhooks/x"),
        ("webhook_url", "https://169.254.169.254/latest/webhooks/x"),
        ("webhook_url", "https://evil.example/api/webhooks/1/a"),
        ("webhook_url", "https://user:pw@discord.com/api/webhooks/1/a"),
        ("webhook_url", "https://discord.com:8443/api/webhooks/1/a"),
        ("webhook_url", "http://discord.com/api/webhooks/1/a"),
        ("seat_3", "<@" + str(2**64) + ">"),
    ],
)
def test_bad_link_settings_answer_422_and_change_nothing(client, host, field, value):
    game = game_at_mafia_shot(host)
    client.force_login(host)
    response = client.post(reverse("discord:settings", args=[game.pk]), {field: value})
    assert response.status_code == 422, response.content.decode()[:300]
    assert not DiscordLink.objects.filter(game=game).exists()


def test_the_panel_never_shows_the_webhook_url(client, host):
    game = game_at_mafia_shot(host)
    url = "https://discord.com/api/webhooks/123/secret-token-abcd"
    client.force_login(host)
    assert client.post(reverse("discord:settings", args=[game.pk]), {"webhook_url": url}).status_code == 200
    page = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert "secret-token" not in page and "задан (…abcd)" in page
    # Saving the form again with the empty field keeps it.
    assert client.post(reverse("discord:settings", args=[game.pk]), {"guild_id": "1"}).status_code == 200
    assert DiscordLink.objects.get(game=game).webhook_url == url


def test_a_dm_with_nul_is_stored_cleaned(host):
    game = game_at_mafia_shot(host)
    link(game)
    received = dm(4, "5\x00\x00" + "x" * 5000, 9001, timezone.now())
    assert received.proposal.target == 5 and "\x00" not in received.proposal.text


# --- 6. edits and deletions --------------------------------------------------------------------


def test_an_edited_dm_updates_its_proposal_and_the_host_sees_it(host):
    game = game_at_mafia_shot(host)
    link(game)
    for seat, mid in ((1, 10001), (4, 10004), (7, 10007)):
        dm(seat, "6", mid, timezone.now())
    services.receive_edit(message_id=10004, text="5")
    assert services.prefill(game)["action"] == {"do": "shots", "by": {"1": 6, "4": 5, "7": 6}}
    from discord_bridge.views import _edited

    assert _edited(Proposal.objects.get(message_id=10004)) == "изменено: 6 → 5"


def test_a_deleted_or_edited_plus_leaves_the_count_and_a_deletion_is_proposed_as_f18(client, host):
    game = game_at_voting(host)
    link(game)
    post_line(game, timezone.now() - timedelta(seconds=1))
    services.vote_click(game=game, candidate=5)
    for seat, mid in ((2, 11002), (6, 11006), (8, 11008)):
        plus(seat, mid, timezone.now())
    services.receive_delete(message_id=11002)
    services.receive_edit(message_id=11006, text="-")
    assert services.prefill(game)["action"] == {"do": "votes", "for": {"5": [8]}}
    assert [p.seat for p in services.deleted_votes(game)] == [2]
    client.force_login(host)
    page = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert 'data-deleted-vote="2"' in page and "F18" in page
    assert not GameAction.objects.filter(game=game, payload__do="foul").exists()  # never an automatic foul


# --- D7 / D8: the step's clock does not run during a pause ----------------------------------------


def space_out(game, start_seconds=1, every=10):
    """Put the log's actions 10 s apart (they were recorded within milliseconds), so each step's
    span is known to the second; returns the action times in order."""
    base = game.created_at + timedelta(seconds=start_seconds)
    times = []
    for i, action in enumerate(GameAction.objects.filter(game=game, undone_at__isnull=True).order_by("seq")):
        at = base + timedelta(seconds=every * i)
        GameAction.objects.filter(pk=action.pk).update(created_at=at)
        times.append(at)
    return times


def test_a_tech_pause_within_the_step_extends_its_window(host):
    """D7: the clock stops for the technical pause; a shot sent after it, within the 15 s the
    clock really ran, is in time — not «поздно» (the window counted the pause before)."""
    game = game_at_mafia_shot(host)
    link(game)
    record(game, {"do": "tech_pause", "seat": 2}, host)
    record(game, {"do": "wink", "by": 7, "target": 3}, host)  # any later action ends the pause
    times = space_out(game)
    opened = services.step_spans(game)[-1].opened_at
    paused_at, resumed_at = times[-2], times[-1]
    assert services.step_spans(game)[-1].seconds == 15
    game.refresh_from_db()
    # The step opened at `opened`; 5 s later a 60 s pause (the wink ends it).
    GameAction.objects.filter(game=game, created_at=paused_at).update(created_at=opened + timedelta(seconds=5))
    GameAction.objects.filter(game=game, created_at=resumed_at).update(created_at=opened + timedelta(seconds=65))
    on_time = services.receive_dm(
        message_id=9101, author_id=user_id(4), text="5", sent_at=opened + timedelta(seconds=74)
    )  # ran 5 + 9 s
    late = services.receive_dm(
        message_id=9102, author_id=user_id(7), text="5", sent_at=opened + timedelta(seconds=77)
    )  # ran 5 + 12 s
    assert (on_time.proposal.status, late.proposal.status) == ("ok", "late")


def test_a_running_d8_time_out_keeps_the_window_open_and_an_early_end_of_the_pause_counts(host):
    game = game_at_mafia_shot(host)
    link(game)
    opened = services.step_spans(game)[-1].opened_at
    game_services.game_clock_control(game=game, command="timeout", by=host)  # D8: every clock stops
    type(game).objects.filter(pk=game.pk).update(timeout_since=opened + timedelta(seconds=10))
    r = services.receive_dm(message_id=9201, author_id=user_id(4), text="5", sent_at=opened + timedelta(seconds=90))
    assert r.proposal.status == "ok"
    game_services.game_clock_control(game=game, command="end_timeout", by=host)

    # D7 ended early by the host 20 s in: the window is 15 s + those 20 s (+ the 1 s grace).
    other = game_at_mafia_shot(host)
    DiscordLink.objects.filter(game=game).delete()  # the same ten members play the other game now
    link(other)
    record(other, {"do": "tech_pause", "seat": 2}, host)
    opened = services.step_spans(other)[-1].opened_at
    GameAction.objects.filter(game=other, payload__do="tech_pause").update(created_at=opened + timedelta(seconds=2))
    type(other).objects.filter(pk=other.pk).update(tech_pause_ended_at=opened + timedelta(seconds=22))
    ok = services.receive_dm(message_id=9202, author_id=user_id(4), text="5", sent_at=opened + timedelta(seconds=35))
    late = services.receive_dm(message_id=9203, author_id=user_id(7), text="5", sent_at=opened + timedelta(seconds=37))
    assert (ok.proposal.status, late.proposal.status) == ("ok", "late")


# --- a DM for a step the host already recorded ----------------------------------------------------


def test_a_dm_for_a_step_already_recorded_is_shown_as_recorded_never_pre_filled(client, host):
    """The Sheriff's check DM processed after the host typed the check (and the Don's, and a
    Sheriff's DM sent after the Night): «уже записано», agreeing or not; no new proposal."""
    game = game_at_mafia_shot(host)
    link(game)
    record(game, {"do": "shots", "by": {"1": 5, "4": 5, "7": 5}}, host)
    record(game, {"do": "don_check", "target": 9}, host)
    record(game, {"do": "sheriff_check", "target": 1}, host)
    space_out(game)
    spans = services.step_spans(game)
    don, sheriff = next(s for s in spans if s.step == "don_check"), next(s for s in spans if s.step == "sheriff_check")
    game.refresh_from_db()
    agreeing = services.receive_dm(
        message_id=9301, author_id=user_id(9), text="1", sent_at=sheriff.opened_at + timedelta(seconds=3)
    )
    other = services.receive_dm(
        message_id=9302, author_id=user_id(1), text="3", sent_at=don.opened_at + timedelta(seconds=3)
    )
    after = services.receive_dm(
        message_id=9303, author_id=user_id(9), text="2", sent_at=spans[-1].opened_at + timedelta(seconds=5)
    )  # in the Day
    assert [(r.proposal.kind, r.proposal.status, r.proposal.target) for r in (agreeing, other, after)] == [
        ("sheriff_check", "recorded", 1),
        ("don_check", "recorded", 3),
        ("sheriff_check", "recorded", 2),
    ]
    assert [r.proposal.recorded for r in (agreeing, other, after)] == ["1", "9", "1"]
    assert agreeing.receipt == "ведущий уже записал этот ход"
    pre = services.prefill(game)
    assert pre["action"] is None and pre["proposal_ids"] == []
    client.force_login(host)
    html = client.get(reverse("discord:panel", args=[game.pk])).content.decode()
    assert "уже записано: 1 — совпадает" in html
    assert "уже записано: 9 (в сообщении: 3)" in html and "уже записано: 1 (в сообщении: 2)" in html
    assert 'id="discord-confirm"' not in html


def test_a_channel_the_tournaments_organizer_saves_is_proven_and_the_hosts_own_is_not(host, django_user_model):
    from tournaments import services as tournament_services

    organizer = django_user_model.objects.create_user("organizer", password="x")
    tournament = tournament_services.tournament_create(name="Cup", organizer=organizer)
    stage = tournament_services.stage_create(tournament=tournament)
    rnd = tournament_services.round_create(stage=stage, tables=1)
    game = game_at_mafia_shot(host)
    table = rnd.tables.get()
    table.game = game
    table.save()
    game.refresh_from_db()
    saved = services.link_save(
        game=game, guild_id=7, text_channel_id=701, voice_channel_id=702, webhook_url="", seats={}, by=host
    )
    assert (saved.channel_proof("text"), saved.channel_proof("voice"), saved.channels_check_due) == ("", "", True)
    saved = services.link_save(
        game=game, guild_id=7, text_channel_id=701, voice_channel_id=702, webhook_url="", seats={}, by=organizer
    )
    assert (saved.channel_proof("text"), saved.channel_proof("voice"), saved.channels_check_due) == (
        "organizer",
        "organizer",
        False,
    )
    assert services.game_for_channel(701) == game


def test_the_shots_window_opens_with_the_hosts_space_not_with_the_step(host):
    """Issue 26-4 moved the shot's clock to the host's Space after «В городе ночь»: a shot sent
    10 s after the Space but 20 s after the step began is in time; 17 s after the Space it is late.
    While the clock still waits for the Space, nothing is late yet."""
    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    for action in (ROLES, {"do": "start"}):
        record(game, action, host)
    while game_reading.game_state(game).step != "mafia_shot":
        record(game, {"do": "next"}, host)
    link(game)
    game.refresh_from_db()
    assert game.clock_started_at is None  # waiting for «В городе ночь»
    opened = services.step_spans(game)[-1].opened_at
    waiting = services.receive_dm(
        message_id=9301, author_id=user_id(4), text="5", sent_at=opened + timedelta(seconds=40)
    )
    assert waiting.proposal.status == core.OK
    Proposal.objects.filter(message_id=9301).delete()
    type(game).objects.filter(pk=game.pk).update(clock_started_at=opened + timedelta(seconds=10))  # the host's Space
    on_time = services.receive_dm(
        message_id=9302, author_id=user_id(4), text="5", sent_at=opened + timedelta(seconds=20)
    )
    late = services.receive_dm(message_id=9303, author_id=user_id(7), text="5", sent_at=opened + timedelta(seconds=27))
    assert (on_time.proposal.status, late.proposal.status) == (core.OK, core.LATE)
