"""Posting to a Discord channel webhook: a plain HTTP POST (no discord.py).

Only Discord's own webhook URLs are accepted (`webhook_url_problem`): https,
a Discord host, the path `/api[/vN]/webhooks/<id>/<token>`, no userinfo, no
port. The server would otherwise POST wherever a host pointed it (SSRF).

A post is sent with `?wait=true`: Discord answers 200 with the message, whose
id (a snowflake) tells when it appeared; that is the V1 line's mark. Nothing
is ever posted twice:
- 429: the message was not created; `retry_after` (seconds) is waited, then
  it is posted again (a long rate limit is reported, not slept through).
- 500 / 503 answered, or the connection failed before the request was sent:
  not created, retried with a short backoff.
- A read timeout after the request was sent, a dropped connection, 502 or
  504: the message may exist. Never retried: the result is *uncertain*
  («возможно отправлено») and the host decides.
- Other 4xx and any 3xx: final (redirects are never followed).
An answer is read up to `MAX_ANSWER` bytes within a total deadline per post,
so a slow or huge answer holds neither memory nor a thread. Only Discord's
short JSON `message` is ever shown; the poster never raises.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

USER_AGENT = "DiscordBot (mafia-protocol, 1.0)"
MAX_RETRY_AFTER = 10.0  # seconds: a longer rate limit is reported, not slept through
MAX_ANSWER = 64 * 1024  # bytes of an answer ever read
DEADLINE = 10.0  # seconds: the whole post, retries included
MAX_URL = 300
DISCORD_HOSTS = frozenset({"discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"})
_PATH = re.compile(r"/api(?:/v[0-9]{1,2})?/webhooks/[0-9]{1,20}/[A-Za-z0-9_-]{1,100}")
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
DISCORD_EPOCH_MS = 1420070400000
UNCERTAIN_STATUSES = (502, 504)
RETRY_STATUSES = (500, 503)


def webhook_url_problem(url: str) -> str:
    """Why a URL is not a Discord webhook URL (in words), or "" when it is one."""
    if not url:
        return "The webhook URL is empty."
    if len(url) > MAX_URL:
        return f"The webhook URL is longer than {MAX_URL} characters."
    if _CONTROL.search(url):
        return "The webhook URL contains spaces or control characters."
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "The webhook URL is not a valid URL."
    if parts.scheme != "https":
        return "The webhook URL must start with https://."
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return "The webhook URL must not contain a user name or password."
    if port is not None:
        return "The webhook URL must not name a port."
    if (parts.hostname or "") not in DISCORD_HOSTS:
        return "The webhook URL must be Discord's (https://discord.com/api/webhooks/…)."
    if not _PATH.fullmatch(parts.path) or parts.fragment:
        return "The webhook URL must look like https://discord.com/api/webhooks/<id>/<token>."
    return ""


def is_webhook_url(url: str) -> bool:
    return not webhook_url_problem(url)


def masked(url: str) -> str:
    """What the panel shows of a saved webhook: its last four characters only."""
    return f"…{url[-4:]}" if url else ""


def snowflake_time(message_id: int) -> datetime:
    """When Discord created a message: its id's top 42 bits are milliseconds since 2015."""
    return datetime.fromtimestamp(((message_id >> 22) + DISCORD_EPOCH_MS) / 1000, tz=UTC)


@dataclass
class PostResult:
    ok: bool
    attempts: int
    status: int | None = None
    error: str = ""
    message_id: int | None = None
    uncertain: bool = False  # the message may exist: never posted again automatically

    @property
    def posted_at(self) -> datetime | None:
        return snowflake_time(self.message_id) if self.message_id else None


class _Answer:
    def __init__(self, status: int, body: bytes, retry_after: str | None) -> None:
        self.status, self.body, self.retry_after = status, body, retry_after


class _NotSent(Exception):
    """The request never left: safe to post again."""


class _MaybeSent(Exception):
    """The request left; no answer: the message may exist."""


def _target(url: str, origin: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, path?query) for a saved Discord URL; `origin` (tests only, a
    setting) sends it to a local Discord-like server instead of Discord."""
    parts = urlsplit(url)
    query = "wait=true"
    path = f"{parts.path}?{query}"
    if origin:
        o = urlsplit(origin)
        return o.scheme, o.hostname or "", o.port, path
    return "https", parts.hostname or "", None, path


def _connect(url: str, origin: str, timeout: float) -> http.client.HTTPConnection:
    scheme, host, port, _ = _target(url, origin)
    cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    connection = cls(host, port, timeout=timeout)
    try:
        connection.connect()
    except OSError as exc:
        connection.close()
        raise _NotSent(f"network: {getattr(exc, 'strerror', None) or exc.__class__.__name__}") from None
    return connection


def _exchange(connection: http.client.HTTPConnection, path: str, body: bytes, deadline: float) -> _Answer:
    """One request on an open connection, bounded in time (a watchdog shuts the socket at
    the deadline, so a slow drip ends) and in size (MAX_ANSWER)."""
    sock = connection.sock

    def cut() -> None:
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        try:
            connection.request(
                "POST", path, body=body, headers={"Content-Type": "application/json", "User-Agent": USER_AGENT}
            )
        except (OSError, http.client.HTTPException):
            raise _NotSent("network: the request could not be sent") from None
        try:
            response = connection.getresponse()
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_ANSWER:
                chunk = response.read1(min(16384, MAX_ANSWER + 1 - size)) if size < MAX_ANSWER + 1 else b""
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if time.monotonic() >= deadline:
                raise _MaybeSent("no answer within the deadline")
            return _Answer(response.status, b"".join(chunks)[:MAX_ANSWER], response.getheader("Retry-After"))
        except (OSError, http.client.HTTPException):
            raise _MaybeSent("no answer (timeout or dropped connection)") from None
    finally:
        watchdog.cancel()
        connection.close()


def post_message(
    url: str,
    content: str,
    *,
    max_attempts: int = 4,
    timeout: float = 5.0,
    deadline: float = DEADLINE,
    sleep: Callable[[float], None] = time.sleep,
    origin: str = "",
    connection: http.client.HTTPConnection | None = None,
) -> PostResult:
    """POST `content` to the webhook (see the module's rules); never raises, never posts twice."""
    # allowed_mentions: a line in the game chat must never ping anyone.
    body = json.dumps({"content": content, "allowed_mentions": {"parse": []}}).encode()
    ends = time.monotonic() + deadline
    _, _, _, path = _target(url, origin)
    status: int | None = None
    error = ""
    for attempt in range(1, max_attempts + 1):
        left = ends - time.monotonic()
        if left <= 0:
            return PostResult(False, attempt - 1, status, error or "deadline passed")
        try:
            conn = connection if connection is not None and attempt == 1 else _connect(url, origin, min(timeout, left))
            answer = _exchange(conn, path, body, min(ends, time.monotonic() + timeout))
        except _NotSent as exc:
            error = str(exc)
            sleep(min(0.25 * 2 ** (attempt - 1), 2.0))
            continue
        except _MaybeSent as exc:
            return PostResult(False, attempt, status, f"возможно отправлено: {exc}", uncertain=True)
        status = answer.status
        if 200 <= status < 300:
            return PostResult(True, attempt, status, message_id=_message_id(answer.body))
        if status == 429:
            wait = _retry_after(answer.body, answer.retry_after)
            error = f"429 rate limited (retry after {wait:.2f} s)"
            if wait > MAX_RETRY_AFTER or time.monotonic() + wait >= ends:
                return PostResult(False, attempt, status, error)
            sleep(wait)
            continue
        if status in UNCERTAIN_STATUSES:
            return PostResult(False, attempt, status, f"возможно отправлено: {status} from Discord", uncertain=True)
        if status in RETRY_STATUSES:
            error = f"{status} from Discord"
            sleep(min(0.25 * 2 ** (attempt - 1), 2.0))
            continue
        if 300 <= status < 400:
            return PostResult(False, attempt, status, f"{status}: a redirect (never followed)")
        return PostResult(False, attempt, status, f"{status}: {_discord_message(answer.body)}".rstrip(": "))
    return PostResult(False, max_attempts, status, error)


class PreparedPost:
    """A post whose connection is opened ahead of time (TCP + TLS), so it leaves at its mark.

    The V1 line is due 5 s after the host's click: opening the HTTPS
    connection to Discord during those 5 s takes the handshake out of the
    measured delay. The first attempt uses that connection.
    """

    def __init__(
        self,
        url: str,
        content: str,
        *,
        timeout: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
        origin: str = "",
    ) -> None:
        self.url, self.content, self.timeout, self.sleep, self.origin = url, content, timeout, sleep, origin
        try:
            self.connection: http.client.HTTPConnection | None = _connect(url, origin, timeout)
        except _NotSent:
            self.connection = None  # the send opens a fresh one

    def send(self) -> PostResult:
        connection, self.connection = self.connection, None
        return post_message(
            self.url, self.content, timeout=self.timeout, sleep=self.sleep, origin=self.origin, connection=connection
        )

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def _message_id(payload: bytes) -> int | None:
    try:
        value = json.loads(payload or b"{}").get("id")
        return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else None
    except (ValueError, AttributeError):
        return None


def _discord_message(payload: bytes) -> str:
    """Discord's own short error `message` (JSON), printable and bounded; nothing else of a body."""
    try:
        value = json.loads(payload or b"{}").get("message")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(value, str):
        return ""
    return "".join(ch for ch in value if ch.isprintable())[:100]


def _retry_after(payload: bytes, header: str | None) -> float:
    try:
        value = json.loads(payload or b"{}").get("retry_after")
        if value is not None:
            return max(0.0, float(value))
    except (ValueError, AttributeError, TypeError):
        pass
    try:
        return max(0.0, float(header or 1.0))
    except ValueError:
        return 1.0


__all__ = ["PostResult", "PreparedPost", "masked", "post_message", "snowflake_time", "webhook_url_problem"]
