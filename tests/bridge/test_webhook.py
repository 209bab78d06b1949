"""The webhook poster against a local HTTP server that answers like Discord (204, 429 + retry_after, 500)."""

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from discord_bridge import services, webhook
from discord_bridge.models import ChatPost, DiscordLink, PostState

from .helpers import game_at_mafia_shot, game_at_voting, link


class FakeDiscord:
    """Answers POST /api/webhooks/<id>/<token>?wait=true like Discord: the scripted answers, then
    200 with the message (its snowflake id). A script entry is (status, payload) or
    (status, payload, options): `delay` seconds before answering (after reading the request),
    `body` raw bytes instead of JSON, `drip` seconds between bytes, `location` header."""

    def __init__(self):
        self.script: list[tuple] = []
        self.received: list[tuple[float, dict]] = []
        self.attempts: list[float] = []
        self.paths: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                fake.paths.append("GET " + self.path)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                fake.attempts.append(time.monotonic())
                fake.paths.append(self.path)
                entry = fake.script.pop(0) if fake.script else (200, None)
                status, payload = entry[0], entry[1]
                options = entry[2] if len(entry) > 2 else {}
                created = status in (200, 204) or options.get("created", False)
                if created:
                    fake.received.append((time.time(), body))
                if options.get("delay"):
                    time.sleep(options["delay"])
                if status == 200 and payload is None:
                    payload = {"id": str(snowflake_now()), "content": body.get("content")}
                data = options.get("body", json.dumps(payload).encode() if payload is not None else b"")
                try:
                    self.send_response(status)
                    if status == 429:
                        self.send_header("Retry-After", str(payload["retry_after"]))
                    if options.get("location"):
                        self.send_header("Location", options["location"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if options.get("drip"):
                        for i in range(len(data)):
                            self.wfile.write(data[i : i + 1])
                            self.wfile.flush()
                            time.sleep(options["drip"])
                    elif data:
                        self.wfile.write(data)
                except OSError:
                    pass  # the client hung up (a bounded read)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # a free port from the OS
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        # A real Discord URL is what is saved; the origin (a test setting) sends it here.
        self.url = "https://discord.com/api/webhooks/123/secret-token"
        self.origin = f"http://127.0.0.1:{self.server.server_port}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def snowflake_now():
    return (int(time.time() * 1000) - webhook.DISCORD_EPOCH_MS) << 22


@pytest.fixture
def deliveries(monkeypatch):
    """Every webhook delivery thread started during the test. The tests join them before they
    read the database again: SQLite's shared-cache test database answers «table is locked»
    to two threads at once instead of waiting (the old tests' flakiness)."""
    started: list[threading.Thread] = []
    real = services.schedule_webhook_delivery

    def spy(post_id, due_at):
        thread = real(post_id, due_at)
        started.append(thread)
        return thread

    monkeypatch.setattr(services, "schedule_webhook_delivery", spy)

    def join_all(timeout=15.0):
        ends = time.monotonic() + timeout
        while True:
            alive = [t for t in started if t.is_alive()]
            if not alive or time.monotonic() > ends:
                return
            alive[0].join(max(0.0, ends - time.monotonic()))

    return join_all


@pytest.fixture
def discord_server(settings):
    fake = FakeDiscord()
    settings.DISCORD_WEBHOOK_ORIGIN = fake.origin
    yield fake
    fake.close()


def test_posts_once_with_wait_true_without_pings(discord_server):
    result = webhook.post_message(discord_server.url, origin=discord_server.origin, content="--------------")
    assert result.ok and result.attempts == 1 and result.message_id is not None
    assert discord_server.paths == ["/api/webhooks/123/secret-token?wait=true"]
    assert abs((result.posted_at - timezone.now()).total_seconds()) < 2
    assert [b for _, b in discord_server.received] == [{"content": "--------------", "allowed_mentions": {"parse": []}}]


def test_429_retry_after_is_honoured_and_posted_once(discord_server):
    discord_server.script = [(429, {"message": "You are being rate limited.", "retry_after": 0.3, "global": False})]
    result = webhook.post_message(discord_server.url, origin=discord_server.origin, content="Кандидаты: 5, 3")
    assert result.ok and result.attempts == 2
    assert len(discord_server.received) == 1
    waited = discord_server.attempts[1] - discord_server.attempts[0]
    assert waited >= 0.29, waited


def test_500_is_retried_then_reported(discord_server):
    discord_server.script = [(500, {"message": "oops"})] * 2
    result = webhook.post_message(discord_server.url, origin=discord_server.origin, content="x", sleep=lambda s: None)
    assert result.ok and result.attempts == 3 and len(discord_server.received) == 1
    discord_server.script = [(500, {"message": "oops"})] * 10
    failed = webhook.post_message(
        discord_server.url, origin=discord_server.origin, content="x", max_attempts=3, sleep=lambda s: None
    )
    assert not failed.ok and failed.status == 500 and "500" in failed.error


def test_404_is_final(discord_server):
    discord_server.script = [(404, {"message": "Unknown Webhook", "code": 10015})]
    result = webhook.post_message(discord_server.url, origin=discord_server.origin, content="x")
    assert not result.ok and result.attempts == 1 and "Unknown Webhook" in result.error


def test_unreachable_server_is_reported_not_raised():
    result = webhook.post_message(
        "https://discord.com/api/webhooks/1/x", "x", origin="http://127.0.0.1:9", max_attempts=2, sleep=lambda s: None
    )
    assert not result.ok and result.error.startswith("network")


@pytest.mark.django_db(transaction=True)
def test_v1_line_posted_5s_after_count_start_within_200ms(host, discord_server, deliveries):
    game = game_at_voting(host)
    link(game, webhook_url=discord_server.url)
    started = time.time()
    post = services.vote_count_start(game=game)
    assert post is not None
    deadline = time.time() + 8
    while not discord_server.received and time.time() < deadline:
        time.sleep(0.01)  # the fake server, not the database: the delivery thread owns it now
    assert discord_server.received, "the line was never posted"
    posted_at, body = discord_server.received[0]
    delay = posted_at - started
    late_by = posted_at - post.due_at.timestamp()
    print(
        f"\nV1 line received {late_by * 1000:.0f} ms after its 5 s mark ({delay * 1000:.0f} ms after the host's click, which includes the click's own database work)"
    )
    assert body["content"] == "--------------"
    assert post.due_at.timestamp() - started <= 5.1
    # Measured here: tens of ms (the target is 200 ms); the bound is generous
    # because the machine is shared.
    assert -0.05 <= late_by <= 0.5
    deliveries()
    post.refresh_from_db()
    assert post.state == PostState.SENT
    # The mark is the posted message's own time (its snowflake), then the candidates (V2).
    line_at = DiscordLink.objects.get(game=game).vote_line_at
    assert line_at == webhook.snowflake_time(post.message_id)
    # Enqueued again (a double click): no second line.
    assert services.vote_count_start(game=game) is None
    deliveries()
    assert [b["content"] for _, b in discord_server.received] == ["--------------", "Кандидаты: 5, 3"]


@pytest.mark.django_db(transaction=True)
def test_failed_post_is_recorded_and_retried_once(host, discord_server, deliveries):
    game = game_at_mafia_shot(host)
    link(game, webhook_url=discord_server.url)
    discord_server.script = [(404, {"message": "Unknown Webhook"})]
    post = services.request_fouls(game=game)
    deliveries()
    post.refresh_from_db()
    assert post.state == PostState.FAILED and "Unknown Webhook" in post.last_error
    # A second deliverer cannot claim it; the host's retry can.
    assert services.claim_post(post.pk) is None
    services.retry_post(game=game, post_id=post.pk)
    deliveries()
    post.refresh_from_db()
    assert post.state == PostState.SENT
    assert [b["content"] for _, b in discord_server.received] == ["Фолов нет"]
    assert ChatPost.objects.filter(game=game).count() == 1
    assert post.sent_at is not None and post.sent_at <= timezone.now() + timedelta(seconds=1)


def test_prepared_post_429_then_204_posts_once(discord_server):
    discord_server.script = [(429, {"message": "You are being rate limited.", "retry_after": 0.05, "global": False})]
    prepared = webhook.PreparedPost(discord_server.url, origin=discord_server.origin, content="--------------")
    result = prepared.send()
    assert result.ok and result.attempts == 2 and len(discord_server.received) == 1


def test_prepared_post_404_is_final_and_unreachable_falls_back(discord_server):
    discord_server.script = [(404, {"message": "Unknown Webhook"})]
    result = webhook.PreparedPost(discord_server.url, origin=discord_server.origin, content="x").send()
    assert not result.ok and result.attempts == 1 and not discord_server.received
    down = webhook.PreparedPost(
        "https://discord.com/api/webhooks/1/x", "x", origin="http://127.0.0.1:9", sleep=lambda s: None
    ).send()
    assert not down.ok and down.error.startswith("network")


@pytest.mark.django_db(transaction=True)
def test_stale_webhook_post_is_swept_once(host, discord_server, deliveries):
    game = game_at_mafia_shot(host)
    link(game, webhook_url=discord_server.url)
    # Queued by a process that died before its timer fired.
    post = ChatPost.objects.create(
        game=game, kind="fouls", dedupe_key="fouls:x", text="Фолов нет", due_at=timezone.now() - timedelta(seconds=30)
    )
    threads = services.sweep_stale_webhook_posts()
    assert len(threads) == 1
    for thread in threads:
        thread.join(10)
    assert services.sweep_stale_webhook_posts() == []
    post.refresh_from_db()
    assert post.state == PostState.SENT and len(discord_server.received) == 1


# --- issue 25: a slow, redirecting, huge or dripping answer; SSRF ---------------------------------


def test_a_read_timeout_after_sending_is_never_retried(discord_server):
    """25-5: the request reached Discord; retrying posted the line five times."""
    discord_server.script = [(200, None, {"delay": 1.0, "created": True})]
    result = webhook.post_message(
        discord_server.url, "--------------", origin=discord_server.origin, timeout=0.3, sleep=lambda s: None
    )
    time.sleep(0.9)
    assert not result.ok and result.uncertain and "возможно отправлено" in result.error
    assert len(discord_server.attempts) == 1


@pytest.mark.parametrize("status", [502, 504])
def test_502_and_504_may_mean_the_message_exists(discord_server, status):
    discord_server.script = [(status, {"message": "bad gateway"}, {"created": True})]
    result = webhook.post_message(discord_server.url, "x", origin=discord_server.origin, sleep=lambda s: None)
    assert not result.ok and result.uncertain and len(discord_server.attempts) == 1


def test_a_redirect_is_not_followed(discord_server):
    discord_server.script = [(302, None, {"location": discord_server.origin + "/internal"})]
    result = webhook.post_message(discord_server.url, "x", origin=discord_server.origin)
    assert not result.ok and "redirect" in result.error
    assert not any(p.startswith("GET") for p in discord_server.paths)


def test_a_huge_answer_is_read_only_up_to_the_limit(discord_server):
    """25-9: a 300 MiB answer grew the worker by 300 MiB; only MAX_ANSWER is ever read."""
    discord_server.script = [(400, None, {"body": b"x" * (8 * 1024 * 1024)})]
    result = webhook.post_message(discord_server.url, "x", origin=discord_server.origin)
    assert not result.ok and result.status == 400
    assert "x" * 50 not in result.error  # not a body from anything but Discord's JSON message


def test_a_dripping_answer_is_cut_at_the_deadline(discord_server):
    discord_server.script = [(200, None, {"body": b"{" + b" " * 200 + b"}", "drip": 0.05})]
    started = time.monotonic()
    result = webhook.post_message(discord_server.url, "x", origin=discord_server.origin, timeout=1.0, deadline=1.0)
    assert time.monotonic() - started < 2.5
    assert not result.ok and result.uncertain


def test_an_error_body_is_shown_only_as_discords_short_message(discord_server):
    discord_server.script = [(400, None, {"body": b"<html>internal service secret page</html>"})]
    result = webhook.post_message(discord_server.url, "x", origin=discord_server.origin)
    assert "secret" not in result.error and result.error.startswith("400")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:6379/webhooks/x",
        "https://169.254.169.254/latest/meta-data/webhooks/x",
        "https://evil.example/api/webhooks/1/abc",
        "https://discord.com.evil.example/api/webhooks/1/abc",
        "https://user@discord.com/api/webhooks/1/abc",
        "https://discord.com:444/api/webhooks/1/abc",
        "http://discord.com/api/webhooks/1/abc",
        "https://discord.com/api/webhooks/1/abc\r\nHost: x",
        "https://discord.com/api/webhooks/1/abc def",
        "https://discord.com/other/webhooks/1/abc",
    ],
)
def test_only_discords_webhook_urls_are_accepted(url):
    assert webhook.webhook_url_problem(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://discord.com/api/webhooks/123/tok-en_1",
        "https://discordapp.com/api/v10/webhooks/1/t",
        "https://canary.discord.com/api/webhooks/1/t",
        "https://ptb.discord.com/api/v9/webhooks/1/t",
    ],
)
def test_discords_webhook_urls_are_accepted(url):
    assert webhook.webhook_url_problem(url) == ""


@pytest.mark.django_db(transaction=True)
def test_a_slow_discord_posts_the_line_once_and_says_possibly_sent(host, discord_server, monkeypatch, deliveries):
    """25-5 through the real V1 path: a read timeout gives one post, «возможно отправлено», no auto retry."""
    monkeypatch.setattr(services, "LINE_DELAY", timedelta(seconds=0.1))
    game = game_at_voting(host)
    link(game, webhook_url=discord_server.url)
    discord_server.script = [(200, None, {"delay": 7.0, "created": True})]
    post = services.vote_count_start(game=game)
    deliveries()
    post.refresh_from_db()
    assert post.state == PostState.UNCERTAIN
    assert len(discord_server.attempts) == 1


@pytest.mark.django_db
def test_old_posts_are_dropped_as_expired_and_stuck_sending_is_reclaimed(host):
    game = game_at_mafia_shot(host)
    link(game)
    old = ChatPost.objects.create(
        game=game, kind="fouls", dedupe_key="fouls:old", text="Фолов нет", due_at=timezone.now() - timedelta(minutes=10)
    )
    assert services.claim_post(old.pk) is None
    old.refresh_from_db()
    assert old.state == PostState.EXPIRED
    stuck = ChatPost.objects.create(
        game=game,
        kind="fouls",
        dedupe_key="fouls:stuck",
        text="Фолов нет",
        state=PostState.SENDING,
        claimed_at=timezone.now() - timedelta(minutes=5),
    )
    services.sweep_stale_webhook_posts()
    stuck.refresh_from_db()
    assert stuck.state == PostState.UNCERTAIN


@pytest.mark.django_db(transaction=True)
def test_the_sweep_never_waits_on_http(host, discord_server, deliveries):
    """25-7: the sweep ran a 4 s webhook inline in the bot's database thread; now it only starts threads."""
    game = game_at_mafia_shot(host)
    link(game, webhook_url=discord_server.url)
    discord_server.script = [(200, None, {"delay": 2.0})]
    ChatPost.objects.create(
        game=game, kind="fouls", dedupe_key="fouls:x", text="Фолов нет", due_at=timezone.now() - timedelta(seconds=30)
    )
    started = time.monotonic()
    threads = services.sweep_stale_webhook_posts()
    assert time.monotonic() - started < 1.0
    for thread in threads:
        thread.join(10)
    assert len(discord_server.received) == 1


@pytest.mark.django_db(transaction=True)  # delivery reads the post on a connection of its own (PostgreSQL)
def test_a_legacy_link_to_an_internal_address_is_never_posted_to(host):
    """25-4: rows saved before the URL rules (http://127.0.0.1:6379/…) are refused at delivery too."""
    game = game_at_mafia_shot(host)
    link(game)
    DiscordLink.objects.filter(game=game).update(webhook_url="http://127.0.0.1:6379/webhooks/x")
    post = ChatPost.objects.create(game=game, kind="fouls", dedupe_key="fouls:legacy", text="Фолов нет")
    assert services.deliver_webhook_post(post.pk) is None
    post.refresh_from_db()
    assert post.state == PostState.FAILED and "https" in post.last_error
