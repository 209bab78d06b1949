"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")

# Django must be set up before the routing imports consumers and models.
django_asgi_app = get_asgi_application()

from django.conf import settings  # noqa: E402

from mafia_protocol.access_log import install_daphne_masking  # noqa: E402

install_daphne_masking()  # overlay tokens never in daphne's access log

if settings.DEBUG:
    # `make run` serves with the daphne CLI, which (unlike `runserver`) does
    # not serve static files: without this the pages have no CSS and no htmx.
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

    django_asgi_app = ASGIStaticFilesHandler(django_asgi_app)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from mafia_protocol.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
    }
)
