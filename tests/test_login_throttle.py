"""Password guessing is throttled on the login page and the admin's (issue 22, finding 3).

The probe: ~2 guesses a second, limited only by PBKDF2, and the right password
still worked afterwards. Now: past 5 failures per account (20 per address)
every login POST is answered 429 with a lock that doubles, the right password
included, until it runs out or `manage.py login_unlock` lifts it.
"""

from __future__ import annotations

import pytest
import time_machine
from django.core.management import call_command

from mafia_protocol import login_throttle


@pytest.fixture(autouse=True)
def _fast_hasher_and_clean_counts(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    login_throttle.unlock_all()
    yield
    login_throttle.unlock_all()


@pytest.fixture
def victim(db, django_user_model):
    return django_user_model.objects.create_user(username="victim", password="right-pass-123", is_staff=True)


def _login(client, path, username, password, address="203.0.113.7"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_a_hundred_wrong_passwords_are_throttled_and_the_right_one_waits_too(client, victim, path):
    statuses = [_login(client, path, "victim", f"guess-{i}").status_code for i in range(100)]
    assert statuses[:5] == [200] * 5  # the form again, «wrong password»
    assert set(statuses[5:]) == {429}
    r = _login(client, path, "victim", "right-pass-123")
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    assert "Слишком много неверных паролей" in r.content.decode()
    assert "_auth_user_id" not in client.session
    call_command("login_unlock", "victim", "--address", "203.0.113.7")
    r = _login(client, path, "victim", "right-pass-123")
    assert r.status_code == 302 and client.session["_auth_user_id"] == str(victim.pk)


def test_the_lock_runs_out_and_doubles_with_each_further_failure(client, victim):
    with time_machine.travel("2026-12-01 12:00:00+00:00", tick=False) as clock:
        for i in range(5):
            _login(client, "/accounts/login/", "victim", f"guess-{i}")
        r = _login(client, "/accounts/login/", "VICTIM", "right-pass-123")  # the account, however typed
        assert r.status_code == 429 and r["Retry-After"] == "60"
        clock.shift(61)
        assert _login(client, "/accounts/login/", "victim", "guess-5").status_code == 200  # the 6th failure
        r = _login(client, "/accounts/login/", "victim", "right-pass-123")
        assert r.status_code == 429 and r["Retry-After"] == "120"
        clock.shift(121)
        assert _login(client, "/accounts/login/", "victim", "right-pass-123").status_code == 302


def test_one_address_guessing_many_accounts_is_locked_and_others_are_not(client, victim, django_user_model):
    for i in range(20):
        _login(client, "/accounts/login/", f"user{i}", "guess")  # one try each: no account reaches 5
    r = _login(client, "/accounts/login/", "victim", "right-pass-123")
    assert r.status_code == 429
    r = _login(client, "/accounts/login/", "victim", "right-pass-123", address="198.51.100.1")
    assert r.status_code == 302  # the victim from his own address


def test_a_successful_login_clears_the_accounts_count(client, victim):
    for i in range(4):
        _login(client, "/accounts/login/", "victim", f"guess-{i}")
    assert _login(client, "/accounts/login/", "victim", "right-pass-123").status_code == 302
    client.logout()
    for i in range(4):
        assert _login(client, "/accounts/login/", "victim", f"again-{i}", address="198.51.100.2").status_code == 200
    assert _login(client, "/accounts/login/", "victim", "right-pass-123", address="198.51.100.2").status_code == 302


def test_the_throttled_page_speaks_english_when_asked(client, victim):
    for i in range(5):
        _login(client, "/accounts/login/", "victim", f"guess-{i}")
    client.cookies["django_language"] = "en"
    r = client.post("/accounts/login/", {"username": "victim", "password": "x"}, REMOTE_ADDR="203.0.113.7")
    assert r.status_code == 429 and "Too many wrong passwords" in r.content.decode()
