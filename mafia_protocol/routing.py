"""Websocket URL patterns of every app (wrapped in AllowedHostsOriginValidator in asgi.py)."""

from django.urls import URLPattern, path

from games.consumers import board_socket, overlay_socket

websocket_urlpatterns: list[URLPattern] = [
    path("ws/games/<int:game_id>/board/", board_socket, name="ws-board"),  # type: ignore[arg-type]
    path("ws/games/<int:game_id>/overlay/", overlay_socket, name="ws-overlay"),
]
