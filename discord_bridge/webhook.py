"""Posting to a Discord channel webhook: a plain HTTP POST (no discord.py).

Discord answers 204 (or 200 with `?wait=true`); 429 with a JSON body whose
`retry_after` is in seconds (and a Retry-After header): the message was not
created, so waiting and posting again never duplicates it; 5xx: the request
failed on Discord's side, retried with a short backoff. Other 4xx (a deleted
webhook, a bad URL) are final. The poster never raises: it returns what
happened, and the caller records it where the host sees it.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

USER_AGENT = "DiscordBot (mafia-protocol, 1.0)"
MAX_RETRY_AFTER = 10.0  # seconds: a longer rate limit is reported, not slept through


@dataclass
class PostResult:
    ok: bool
    attempts: int
    status: int | None = None
    error: str = ""


def is_webhook_url(url: str) -> bool:
    parts = urlsplit(url or "")
    return parts.scheme in ("https", "http") and bool(parts.netloc) and "/webhooks/" in parts.path


def post_message(url: str, content: str, *, max_attempts: int = 4, timeout: float = 5.0, sleep: Callable[[float], None] = time.sleep) -> PostResult:
    """POST `content` to the webhook; honours 429 `retry_after`, retries 5xx, never raises."""
    # allowed_mentions: a line in the game chat must never ping anyone.
    body = json.dumps({"content": content, "allowed_mentions": {"parse": []}}).encode()
    status: int | None = None
    error = ""
    for attempt in range(1, max_attempts + 1):
        request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json", "User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return PostResult(True, attempt, response.status)
        except urllib.error.HTTPError as exc:
            status = exc.code
            payload = exc.read()
            if status == 429:
                wait = _retry_after(payload, exc.headers.get("Retry-After"))
                error = f"429 rate limited (retry after {wait:.2f} s)"
                if wait > MAX_RETRY_AFTER:
                    return PostResult(False, attempt, status, error)
                sleep(wait)
                continue
            if status >= 500:
                error = f"{status} from Discord"
                sleep(min(0.25 * 2 ** (attempt - 1), 2.0))
                continue
            return PostResult(False, attempt, status, f"{status}: {payload[:120].decode(errors='replace')}")
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            error = f"network: {getattr(exc, 'reason', exc)}"
            sleep(min(0.25 * 2 ** (attempt - 1), 2.0))
    return PostResult(False, max_attempts, status, error)


class PreparedPost:
    """A post whose connection is opened ahead of time (TCP + TLS), so it leaves at its mark.

    The V1 line is due 5 s after the host's click: opening the HTTPS
    connection to Discord during those 5 s takes the handshake (often 100 ms
    or more) out of the measured delay. The first attempt uses that
    connection; anything but a 2xx falls back to `post_message`'s retries.
    """

    def __init__(self, url: str, content: str, *, timeout: float = 5.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.url = url
        self.content = content
        self.timeout = timeout
        self.sleep = sleep
        self.body = json.dumps({"content": content, "allowed_mentions": {"parse": []}}).encode()
        parts = urlsplit(url)
        self.path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self.connection: http.client.HTTPConnection | None = connection_class(parts.netloc, timeout=timeout)
        try:
            self.connection.connect()
        except OSError:
            self.connection = None  # the send falls back to a fresh request

    def send(self) -> PostResult:
        if self.connection is None:
            return post_message(self.url, self.content, timeout=self.timeout, sleep=self.sleep)
        try:
            self.connection.request("POST", self.path, body=self.body, headers={"Content-Type": "application/json", "User-Agent": USER_AGENT})
            response = self.connection.getresponse()
            payload = response.read()
            status = response.status
            header = response.getheader("Retry-After")
        except (OSError, http.client.HTTPException):
            return _plus_one(post_message(self.url, self.content, timeout=self.timeout, sleep=self.sleep))
        finally:
            self.connection.close()
        if 200 <= status < 300:
            return PostResult(True, 1, status)
        if status == 429:
            wait = _retry_after(payload, header)
            if wait > MAX_RETRY_AFTER:
                return PostResult(False, 1, status, f"429 rate limited (retry after {wait:.2f} s)")
            self.sleep(wait)
        elif status < 500:
            return PostResult(False, 1, status, f"{status}: {payload[:120].decode(errors='replace')}")
        return _plus_one(post_message(self.url, self.content, timeout=self.timeout, sleep=self.sleep))

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()


def _plus_one(result: PostResult) -> PostResult:
    result.attempts += 1
    return result


def _retry_after(payload: bytes, header: str | None) -> float:
    try:
        value = json.loads(payload or b"{}").get("retry_after")
        if value is not None:
            return max(0.0, float(value))
    except (ValueError, AttributeError):
        pass
    try:
        return max(0.0, float(header or 1.0))
    except ValueError:
        return 1.0
