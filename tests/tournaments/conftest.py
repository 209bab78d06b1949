"""Tournament tests create many users: hash their passwords cheaply (tests only)."""

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
