"""Players tests create users: hash their passwords cheaply (tests only)."""

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PLAYERS_RATING_K = 20.0
    settings.PLAYERS_RATING_INITIAL = 1500.0
    # Tests play a handful of games: no rating is provisional unless a test says so
    # (tests/players/test_months.py checks the threshold itself).
    settings.PLAYERS_PROVISIONAL_GAMES = 0
