"""Websocket URL patterns of every app."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
