"""Nickname keys: look-alike letters and invisible characters (games/rules/nicknames.py, pure)."""

import pytest

from games.rules import RuleViolation
from games.rules.nicknames import nickname_key, nickname_sort_key
from games.rules.schema import check_nicknames


@pytest.mark.parametrize(
    ("typed", "same_as"),
    [
        ("Чайкa", "Чайка"),  # Latin a
        ("ЧАЙKA", "Чайка"),  # Latin capitals K and A
        ("Bopoнa", "Ворона"),  # Latin B, o, p, a
        ("Mopoз", "Мороз"),  # Latin M, o, p
        ("Tyxoe", "Тухое"),  # Latin T, y, x, o, e
        ("Hoc", "Нос"),  # Latin H, o, c
        ("Бу\u200bрый", "Бурый"),  # zero-width space
        ("Бурый\ufeff", "Бурый"),  # BOM
        ("Бу\u00adрый", "Бурый"),  # soft hyphen
        ("Ёжик", "ежик"),
        ("  Алёна   Ветер ", "алена ветер"),
    ],
)
def test_look_alikes_and_invisible_characters_share_a_key(typed, same_as):
    assert nickname_key(typed) == nickname_key(same_as)


def test_other_letters_and_numbers_stay_apart():
    assert nickname_key("Чайка") != nickname_key("Чайкин")
    assert nickname_key("Max2") != nickname_key("Max3")
    assert nickname_key("Shadow") != nickname_key("Sнadow2")


def test_sort_is_russian_alphabetical_with_yo_beside_ye():
    names = ["Чайка", "Ёж", "Аня", "Ель", "Яна", "ёлка", "Ежевика"]
    assert sorted(names, key=nickname_sort_key) == ["Аня", "Ёж", "Ежевика", "ёлка", "Ель", "Чайка", "Яна"]


def test_s1_a_table_refuses_a_look_alike_of_a_nickname_already_seated():
    with pytest.raises(RuleViolation) as exc:
        check_nicknames(["Чайка", "Чайкa"])
    assert "Чайкa" in str(exc.value)
