"""The webhook poster against a local HTTP server that answers like Discord (204, 429 + retry_after, 500)."""

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from discord_bridge import services, webhook
from discord_bridge.models import ChatPost, PostState

from .helpers import game_at_mafia_shot, link


class FakeDiscord:
    """Answers POST /api/webhooks/<id>/<token> with the scripted statuses, then 204; records bodies and times."""

    def __init__(self):
        self.script: list[tuple[int, dict | None]] = []
        self.received: list[tuple[float, dict]] = []
        self.attempts: list[float] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                fake.attempts.append(time.monotonic())
                status, payload = fake.script.pop(0) if fake.script else (204, None)
                if status in (200, 204):
                    fake.received.append((time.time(), body))
                self.send_response(status)
                data = json.dumps(payload).encode() if payload is not None else b""
                if status == 429:
                    self.send_header("Retry-After", str(payload["retry_after"]))
                if data:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if data:
                    self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # a free port from the OS
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/api/webhooks/123/secret-token"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def discord_server():
    fake = FakeDiscord()
    yield fake
    fake.close()


def test_204_posts_once_without_pings(discord_server):
    result = webhook.post_message(discord_server.url, "--------------")
    assert result.ok and result.attempts == 1
    assert [b for _, b in discord_server.received] == [{"content": "--------------", "allowed_mentions": {"parse": []}}]


def test_429_retry_after_is_honoured_and_posted_once(discord_server):
    discord_server.script = [(429, {"message": "You are being rate limited.", "retry_after": 0.3, "global": False})]
    result = webhook.post_message(discord_server.url, "Кандидаты: 5, 3")
    assert result.ok and result.attempts == 2
    assert len(discord_server.received) == 1
    waited = discord_server.attempts[1] - discord_server.attempts[0]
    assert waited >= 0.29, waited


def test_500_is_retried_then_reported(discord_server):
    discord_server.script = [(500, {"message": "oops"})] * 2
    result = webhook.post_message(discord_server.url, "x", sleep=lambda s: None)
    assert result.ok and result.attempts == 3 and len(discord_server.received) == 1
    discord_server.script = [(500, {"message": "oops"})] * 10
    failed = webhook.post_message(discord_server.url, "x", max_attempts=3, sleep=lambda s: None)
    assert not failed.ok and failed.status == 500 and "500" in failed.error


def test_404_is_final(discord_server):
    discord_server.script = [(404, {"message": "Unknown Webhook", "code": 10015})]
    result = webhook.post_message(discord_server.url, "x")
    assert not result.ok and result.attempts == 1 and "Unknown Webhook" in result.error


def test_unreachable_server_is_reported_not_raised():
    result = webhook.post_message("http://127.0.0.1:9/api/webhooks/1/x", "x", max_attempts=2, sleep=lambda s: None)
    assert not result.ok and result.error.startswith("network")


@pytest.mark.django_db(transaction=True)
def test_v1_line_posted_5s_after_count_start_within_200ms(host, discord_server):
    game = game_at_mafia_shot(host)
    link(game, webhook_url=discord_server.url)
    started = time.time()
    post = services.vote_count_start(game=game)
    assert post is not None
    deadline = time.time() + 8
    while not discord_server.received and time.time() < deadline:
        time.sleep(0.01)
    assert discord_server.received, "the line was never posted"
    posted_at, body = discord_server.received[0]
    delay = posted_at - started
    late_by = posted_at - post.due_at.timestamp()
    print(f"\nV1 line received {late_by * 1000:.0f} ms after its 5 s mark ({delay * 1000:.0f} ms after the host's click, which includes the click's own database work)")
    assert body["content"] == "--------------"
    assert post.due_at.timestamp() - started <= 5.1
    # Measured here: tens of ms (the target is 200 ms); the bound is generous
    # because the machine is shared.
    assert -0.05 <= late_by <= 0.5
    post.refresh_from_db()
    for _ in range(50):
        post.refresh_from_db()
        if post.state == PostState.SENT:
            break
        time.sleep(0.02)
    assert post.state == PostState.SENT
    # Enqueued again (a double click): no second post.
    assert services.vote_count_start(game=game) is None
    time.sleep(0.2)
    assert len(discord_server.received) == 1


@pytest.mark.django_db(transaction=True)
def test_failed_post_is_recorded_and_retried_once(host, discord_server):
    game = game_at_mafia_shot(host)
    link(game, webhook_url=discord_server.url)
    discord_server.script = [(404, {"message": "Unknown Webhook"})]
    post = services.request_fouls(game=game)
    for _ in range(100):
        post.refresh_from_db()
        if post.state != PostState.PENDING and post.state != PostState.SENDING:
            break
        time.sleep(0.02)
    assert post.state == PostState.FAILED and "Unknown Webhook" in post.last_error
    # A second deliverer cannot claim it; the host's retry can.
    assert services.claim_post(post.pk) is None
    services.retry_post(game=game, post_id=post.pk)
    for _ in range(100):
        post.refresh_from_db()
        if post.state == PostState.SENT:
            break
        time.sleep(0.02)
    assert post.state == PostState.SENT
    assert [b["content"] for _, b in discord_server.received] == ["Фолов нет"]
    assert ChatPost.objects.filter(game=game).count() == 1
    assert post.sent_at is not None and post.sent_at <= timezone.now() + timedelta(seconds=1)


def test_prepared_post_429_then_204_posts_once(discord_server):
    discord_server.script = [(429, {"message": "You are being rate limited.", "retry_after": 0.05, "global": False})]
    prepared = webhook.PreparedPost(discord_server.url, "--------------")
    result = prepared.send()
    assert result.ok and result.attempts == 2 and len(discord_server.received) == 1


def test_prepared_post_404_is_final_and_unreachable_falls_back(discord_server):
    discord_server.script = [(404, {"message": "Unknown Webhook"})]
    result = webhook.PreparedPost(discord_server.url, "x").send()
    assert not result.ok and result.attempts == 1 and not discord_server.received
    down = webhook.PreparedPost("http://127.0.0.1:9/api/webhooks/1/x", "x", sleep=lambda s: None).send()
    assert not down.ok and down.error.startswith("network")


@pytest.mark.django_db(transaction=True)
def test_stale_webhook_post_is_swept_once(host, discord_server):
    game = game_at_mafia_shot(host)
    link(game, webhook_url=discord_server.url)
    # Queued by a process that died before its timer fired.
    post = ChatPost.objects.create(game=game, kind="fouls", dedupe_key="fouls:x", text="Фолов нет", due_at=timezone.now() - timedelta(seconds=30))
    assert services.sweep_stale_webhook_posts() == 1
    assert services.sweep_stale_webhook_posts() == 0
    post.refresh_from_db()
    assert post.state == PostState.SENT and len(discord_server.received) == 1
