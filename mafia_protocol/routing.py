"""Websocket URL patterns of every app (wrapped in AllowedHostsOriginValidator in asgi.py)."""

from channels.auth import AuthMiddlewareStack
from django.urls import URLPattern, path

from discord_bridge.consumers import host_socket
from games.board.consumers import board_socket, overlay_socket
from players.consumers import ratings_socket
from tournaments.consumers import standings_socket

websocket_urlpatterns: list[URLPattern] = [
    path("ws/games/<int:game_id>/board/", board_socket, name="ws-board"),  # type: ignore[arg-type]
    path("ws/games/<int:game_id>/overlay/", overlay_socket, name="ws-overlay"),
    # The host's Discord events: the session identifies the host (AuthMiddlewareStack).
    path("ws/games/<int:game_id>/host/", AuthMiddlewareStack(host_socket), name="ws-host"),
    # The session tells organizers and table hosts (the live table) from the public.
    path(
        "ws/tournaments/<int:tournament_id>/standings/",
        AuthMiddlewareStack(standings_socket),
        name="ws-tournament-standings",
    ),
    path("ws/ratings/", ratings_socket, name="ws-ratings"),
]
