from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from mafia_protocol.health import healthz, healthz_live

# The site's own 500 page, and a 503 naming the reason when the database is
# down, full or read-only (mafia_protocol/errors.py).
handler500 = "mafia_protocol.errors.server_error"


def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers ask for /favicon.ico whatever the page's <link rel="icon"> says (issue 26-9).

    Sent to the site's SVG icon, named as {% static %} names it (the hashed
    file in production); temporary, so that a new hash is followed, and cached
    for a day.
    """
    response = HttpResponseRedirect(static("favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response


urlpatterns = [
    # For the proxy, the supervisor and the rolling update: no auth, plain HTTP allowed.
    path("healthz", healthz, name="healthz"),  # readiness (the database reads and writes)
    path("healthz/ready", healthz, name="healthz-ready"),
    path("healthz/live", healthz_live, name="healthz-live"),  # liveness (the process answers)
    path("favicon.ico", favicon, name="favicon"),
    path("", RedirectView.as_view(pattern_name="games:list", permanent=False)),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("games/", include("games.console.urls")),  # host pages (namespace "games")
    path("games/", include("games.board.urls")),  # public board, overlay (namespace "board")
    path("games/", include("games.exports.urls")),  # xlsx / json exports (namespace "exports")
    path("games/", include("discord_bridge.urls")),  # the host's Discord panel (namespace "discord")
    path("tournaments/", include("tournaments.urls")),
    path("", include("players.urls")),  # players, ratings (namespace "players")
]
