"""Matching typed nicknames to players (players/matching.py, pure)."""

from players.matching import AMBIGUOUS, KNOWN, NEW, SUGGEST, NameIndex, normalize


def index() -> NameIndex:
    return NameIndex(
        [
            (1, "Ёжик", "Ёжик"),
            (1, "Ёжик", "Hedgehog"),  # an alias
            (2, "Алёна Ветер", "Алёна Ветер"),
            (3, "Kraken", "Kraken"),
            (4, "Shadow", "Shadow"),
            (5, "Shadow2", "Shadow2"),
            (5, "Shadow2", "Tень"),
            (6, "Призрак", "Призрак"),
            (7, "Ghost", "Ghost"),
            (7, "Ghost", "Призрак"),  # two people once used it
        ]
    )


def test_normalize_folds_case_yo_and_whitespace():
    assert normalize("  ЁЖИК  ") == "ежик"
    assert normalize("Алёна   Ветер") == normalize("алена ветер") == "алена ветер"
    assert normalize("Kraken\t") == normalize("kraken")
    assert normalize("Kraken") == "кrакеn"  # Latin look-alikes read as Cyrillic (games/rules/nicknames.py)


def test_exact_match_ignores_case_and_yo():
    for typed in ("ежик", "ЕЖИК", " Ёжик ", "ёжик"):
        m = index().match(typed)
        assert m.status == KNOWN and m.player is not None
        assert m.player.player_id == 1 and m.player.nickname == "Ёжик"


def test_alias_matches_and_names_the_player():
    m = index().match("hedgehog")
    assert m.status == KNOWN and m.player is not None
    assert (m.player.player_id, m.player.nickname, m.player.via) == (1, "Ёжик", "Hedgehog")


def test_multi_word_nickname_with_extra_spaces():
    m = index().match("алена  ветер")
    assert m.status == KNOWN and m.player is not None and m.player.player_id == 2


def test_a_name_of_two_players_is_ambiguous_and_offers_both():
    m = index().match("призрак")
    assert m.status == AMBIGUOUS and m.player is None
    assert [c.player_id for c in m.suggestions] == [6, 7]


def test_close_nicknames_are_suggested_never_linked():
    m = index().match("Krakken")
    assert m.status == SUGGEST and m.player is None
    assert [c.player_id for c in m.suggestions] == [3]
    m = index().match("Shadov")
    assert m.status == SUGGEST
    assert {c.player_id for c in m.suggestions} >= {4}


def test_unknown_nickname_is_new():
    m = index().match("Совсем Другой")
    assert m.status == NEW and m.suggestions == []


def test_names_with_other_numbers_are_other_players_not_suggestions():
    numbered = NameIndex([(1, "Игрок_01", "Игрок_01"), (2, "Max2", "Max2"), (3, "Ночной Волк", "Ночной Волк")])
    assert numbered.match("Игрок_02").status == NEW
    assert numbered.match("Max3").status == NEW
    # The same numbers (leading zeros aside) misspelt are still offered.
    assert [c.player_id for c in numbered.match("Игрок_1").suggestions] == [1]
    assert [c.player_id for c in numbered.match("Ночной Вол").suggestions] == [3]
