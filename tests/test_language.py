"""S4: Russian is the default; English only when the user picks it."""

import pytest
from django.conf import settings


@pytest.mark.django_db
def test_russian_by_default_even_for_an_english_browser(client):
    response = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert response.headers["Content-Language"] == "ru"
    assert "Вход для ведущих" in response.content.decode()


@pytest.mark.django_db
def test_the_switcher_sets_english(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/accounts/login/"})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    page = client.get("/accounts/login/")
    assert page.headers["Content-Language"] == "en"
    assert "Вход для ведущих" not in page.content.decode()


@pytest.mark.django_db
def test_an_unknown_language_cookie_falls_back_to_russian(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "xx"
    assert client.get("/accounts/login/").headers["Content-Language"] == "ru"
