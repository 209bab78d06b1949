"""Language choice: Russian unless the user picked another language.

Django's LocaleMiddleware also follows the browser's Accept-Language, which
would show English to every host with an English browser. The regulations
make Russian the official language (S4), so only an explicit choice (the
language cookie set by the switcher) changes it.
"""

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers


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
