"""Overlay tokens never reach a log (issue 22, finding 5).

An overlay URL carries its secret: `/games/7/overlay/<token>/`, or
`?token=<token>` on the overlay's snapshot and websocket. daphne's access log
(`--access-log -`, deploy/mafia-protocol@.service) writes every request's path
and query, and the one-line refusal log (log_filters.py) the path: both go
through `mask_tokens`. daphne has no hook for its access-log line, so
`install_daphne_masking` wraps its writer once, when the ASGI application is
imported (mafia_protocol/asgi.py) — before daphne serves anything.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "***"
# A path segment after /overlay/ that is a token (192-bit URL-safe: 32
# characters), not one of the overlay's own words (state, settings).
_PATH_TOKEN = re.compile(r"(/overlay/)[A-Za-z0-9_\-]{16,}")
_QUERY_TOKEN = re.compile(r"([?&;]token=)[^&;#\s\"]*", re.IGNORECASE)


def mask_tokens(text: str) -> str:
    return _QUERY_TOKEN.sub(r"\1" + MASK, _PATH_TOKEN.sub(r"\1" + MASK, text))


def install_daphne_masking() -> None:
    try:
        from daphne.access import AccessLogGenerator
    except ImportError:  # served by something else: nothing to wrap
        return
    if getattr(AccessLogGenerator.write_entry, "masks_tokens", False):
        return
    original = AccessLogGenerator.write_entry

    def write_entry(self: Any, host: Any, date: Any, request: str, *args: Any, **kwargs: Any) -> None:
        original(self, host, date, mask_tokens(str(request)), *args, **kwargs)

    write_entry.masks_tokens = True  # type: ignore[attr-defined]
    AccessLogGenerator.write_entry = write_entry
