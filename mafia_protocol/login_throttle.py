"""Throttling of password guessing on the login page and the admin's (issue 22, finding 3).

Terms:

- a *failure* is a refused password (Django's ``user_login_failed`` signal,
  sent by ``authenticate()`` for both login views);
- failures are counted per *account* (the typed username, case-folded) and
  per *address* (the client address; under the documented deployment daphne
  takes it from nginx's X-Forwarded-For, ``--proxy-headers``);
- past LOGIN_THROTTLE_ACCOUNT_FAILURES (per account) or
  LOGIN_THROTTLE_ADDRESS_FAILURES (per address) failures, every further
  login POST for that account or from that address is answered 429 for a
  *lock* that doubles with each further failure, from
  LOGIN_THROTTLE_LOCK_SECONDS up to LOGIN_THROTTLE_MAX_LOCK_SECONDS — even
  with the right password, which is the point: a guesser learns nothing while
  locked. A successful login clears the account's count; counts expire after
  a day without failures. ``manage.py login_unlock`` lifts a lock at once.

Why a small middleware on Django's cache rather than django-axes: the counts
are throwaway state, so they need no tables, migrations or admin pages of
their own (axes writes a row per attempt to the database this issue is
protecting from load); the two login views are the only entry points; and
the ``login_throttle`` cache is Redis when REDIS_URL is set, so every worker
sees the same counts (per-process memory otherwise, for a single `make run`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import caches
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

LOGIN_VIEWS = frozenset({"login", "admin:login"})
DAY = 24 * 3600


def _cache() -> Any:
    return caches["login_throttle"]


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def account_key(username: str) -> str:
    return "login-fail:account:" + username.strip().casefold()[:150]


def address_key(address: str) -> str:
    return "login-fail:address:" + address[:64]


def lock_seconds(failures: int, threshold: int) -> float:
    """No lock below the threshold; then base, 2 x base, 4 x base … capped."""
    if failures < threshold:
        return 0.0
    base = _limit("LOGIN_THROTTLE_LOCK_SECONDS", 60)
    cap = _limit("LOGIN_THROTTLE_MAX_LOCK_SECONDS", 3600)
    return float(min(cap, base * 2 ** min(failures - threshold, 30)))


def _locked_for(key: str, threshold: int, now: float) -> float:
    entry = _cache().get(key)
    if not entry:
        return 0.0
    failures, last = int(entry[0]), float(entry[1])
    return max(0.0, last + lock_seconds(failures, threshold) - now)


def _client_address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _posted_username(request: HttpRequest) -> str:
    return str(request.POST.get("username", ""))


def _record_failure(key: str) -> None:
    entry = _cache().get(key) or (0, 0.0)
    _cache().set(key, (entry[0] + 1, time.time()), DAY)


@receiver(user_login_failed, dispatch_uid="login_throttle_failed")
def _on_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    if request is None:  # authenticate() outside a request (a command): nothing to throttle
        return
    _record_failure(account_key(str(credentials.get("username", ""))))
    _record_failure(address_key(_client_address(request)))


@receiver(user_logged_in, dispatch_uid="login_throttle_logged_in")
def _on_logged_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # The account's own count only: an address that guessed others stays counted.
    _cache().delete(account_key(user.get_username()))


def unlock(*, username: str | None = None, address: str | None = None) -> None:
    if username is not None:
        _cache().delete(account_key(username))
    if address is not None:
        _cache().delete(address_key(address))


def unlock_all() -> None:
    _cache().clear()


class LoginThrottleMiddleware:
    """Answers a login POST 429 while its account or address is locked."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        match = request.resolver_match
        if request.method != "POST" or match is None or match.view_name not in LOGIN_VIEWS:
            return None
        now = time.time()
        wait = max(
            _locked_for(account_key(_posted_username(request)), _limit("LOGIN_THROTTLE_ACCOUNT_FAILURES", 5), now),
            _locked_for(address_key(_client_address(request)), _limit("LOGIN_THROTTLE_ADDRESS_FAILURES", 20), now),
        )
        if wait <= 0:
            return None
        minutes = max(1, math.ceil(wait / 60))
        body = render_to_string("registration/throttled.html", {"minutes": minutes}, request=request)
        response = HttpResponse(body, status=429)
        response["Retry-After"] = str(math.ceil(wait))
        # The one-line refusal log (log_filters.py) says why; never the password.
        request.refusal_reason = "login throttled: too many failed passwords"  # type: ignore[attr-defined]
        return response
