"""Language choice and the Content-Security-Policy.

Language choice: Russian unless the user picked another language.

Django's LocaleMiddleware also follows the browser's Accept-Language, which
would show English to every host with an English browser. The regulations
make Russian the official language (S4), so only an explicit choice (the
language cookie set by the switcher) changes it.
"""

from collections.abc import Callable
from typing import cast

from django.conf import settings
from django.core.exceptions import DisallowedHost, PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csp import ContentSecurityPolicyMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.csp import CSP


class ExplicitLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.supported = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        language = chosen if chosen in self.supported else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        patch_vary_headers(response, ("Cookie",))
        response.headers.setdefault("Content-Language", language)
        return response


class SameHostContentSecurityPolicyMiddleware(ContentSecurityPolicyMiddleware):
    """Django's CSP middleware, with connect-src naming this host's websockets.

    The live board and the standings open ws:// or wss:// to the host the page
    came from. CSP level 3 lets 'self' cover that, but not every browser a
    spectator or OBS uses implements it, so the policy names the host
    explicitly. The host is the validated one (ALLOWED_HOSTS); a request whose
    host is refused keeps the static policy, which still allows 'self'.
    """

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        policy = cast(dict[str, list[str]], settings.SECURE_CSP)
        if settings.DEBUG and response.status_code in (404, 500) and not hasattr(response, "_csp_config"):
            # Django's DEBUG error pages style themselves inline; production
            # error pages are ours and carry the policy.
            response._csp_config = {}  # type: ignore[attr-defined]
        if policy and not hasattr(response, "_csp_config"):
            try:
                host = request.get_host()
            except DisallowedHost:
                host = ""
            if host:
                sources = [*policy.get("connect-src", [CSP.SELF]), f"ws://{host}", f"wss://{host}"]
                response._csp_config = {**policy, "connect-src": sources}  # type: ignore[attr-defined]
        result: HttpResponse = super().process_response(request, response)
        return result


class RefusalReasonMiddleware:
    """Keeps why a view refused (Http404, PermissionDenied) on the request, so
    that the one-line log of the refusal can say it (log_filters.py)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        if isinstance(exception, Http404 | PermissionDenied):
            request.refusal_reason = str(exception)  # type: ignore[attr-defined]
