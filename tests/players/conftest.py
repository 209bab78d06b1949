"""Players tests create users: hash their passwords cheaply (tests only)."""

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PLAYERS_RATING_K = 20.0
    settings.PLAYERS_RATING_INITIAL = 1500.0
