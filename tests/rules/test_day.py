"""D1–D7: speeches, order, nominations, three-foul speeches, technical pauses."""

from __future__ import annotations

import pytest

from games.rules import Regulations, RuleViolation, apply, replay
from tests.rules.helpers import G, left, table


def test_d1_every_player_at_the_table_speaks_once_60s() -> None:
    g = G().to_day1()
    seen = []
    while g.s.step == "speech":
        assert g.s.speech_seconds == 60
        seen.append(g.s.speaker)
        g.next()
    assert seen == list(range(1, 11))
    assert [e["seat"] for e in g.s.record.speeches] == seen


def test_d2_day1_opens_with_seat1_and_each_day_with_the_next() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.expect(day=2, step="speech", speaker=2)
    order = []
    while g.s.step == "speech":
        order.append(g.s.speaker)
        g.next()
    assert order == [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]
    g.quiet_night()
    g.expect(day=3, speaker=3)


def test_d2_opener_skips_seats_no_longer_at_the_table() -> None:
    # Day 1 opened by 1; seat 2 leaves by the Day 1 vote: Day 2 opens with 3.
    g = G().to_day1().speeches({1: 2, 3: 4})
    g.vote({2: [1, 3, 4, 5, 6, 7, 8], 4: [9, 10]})
    g.expect(step="last_word", speaker=2).next()
    g.quiet_night()
    g.expect(day=2, speaker=3)
    # Day 3 counts on from the actual opener (3), so 4 opens.
    g.speeches()
    g.quiet_night()
    g.expect(day=3, speaker=4)


def test_d2_opener_wraps_and_skips_the_player_shot() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()  # Day 2: opener 2
    g.speeches()
    g.night(shots={8: 3, 9: 3, 10: 3})  # 3 (the next opener) is shot in Night 2
    g.expect(step="last_word", speaker=3, phase="night").next()
    g.expect(day=3, step="speech", speaker=4)


def test_d2_remaining_speakers() -> None:
    g = G().to_day1()
    assert g.s.remaining_speakers() == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    g.next(3)
    assert g.s.remaining_speakers() == [5, 6, 7, 8, 9, 10]
    g.do("remove", seat=7)
    assert g.s.remaining_speakers() == [5, 6, 8, 9, 10]


def test_d3_only_the_current_speaker_nominates() -> None:
    g = G().to_day1()
    exc = g.refuse("nominate", by=2, target=3)
    assert (exc.rule, exc.code) == ("D3", "not_current_speaker")
    assert exc.params == {"speaker": 1, "by": 2}
    assert "Rule D3" in exc.message and "seat 1" in exc.message
    g.nom(1, 3).expect(nominees=[3])


def test_d3_nominate_only_on_a_speech_step() -> None:
    g = G()
    exc = g.refuse("nominate", by=1, target=2)
    assert (exc.rule, exc.code) == ("D3", "wrong_step")


def test_d3_target_must_be_at_the_table() -> None:
    g = G().to_day1().do("remove", seat=6)
    exc = g.refuse("nominate", by=1, target=6)
    assert (exc.rule, exc.code) == ("D3", "target_not_at_table")


def test_d3_self_nomination_allowed_by_default() -> None:
    G().to_day1().nom(1, 1).expect(nominees=[1])
    g2 = G(regulations=Regulations(allow_self_nomination=False)).to_day1()
    exc = g2.refuse("nominate", by=1, target=1)
    assert exc.code == "self_nomination_not_allowed"


def test_d4_one_accepted_nomination_per_player_per_day() -> None:
    g = G().to_day1().nom(1, 3)
    exc = g.refuse("nominate", by=1, target=4)
    assert (exc.rule, exc.code) == ("D4", "already_nominated_by")
    assert exc.params["first"] == 3


def test_d4_naming_an_already_nominated_candidate_is_supported() -> None:
    g = G().to_day1().nom(1, 3).next()
    # seat 2 supports 3 («Поддерживается»): no change, nomination not used up
    g.nom(2, 3).expect(nominees=[3])
    g.nom(2, 5).expect(nominees=[3, 5])
    # after an accepted one, naming a nominated one is still "supported"
    g.nom(2, 3).expect(nominees=[3, 5])
    results = [(e["by"], e["target"], e["result"]) for e in g.s.record.nominations]
    assert results == [(1, 3, "accepted"), (2, 3, "supported"), (2, 5, "accepted"), (2, 3, "supported")]


def test_d4_nomination_rights_renew_each_day() -> None:
    g = G().to_day1().nom(1, 3).speeches()  # V5: one candidate on Day 1, no vote
    g.quiet_night()
    g.speeches()  # Day 2, opener 2
    g.quiet_night()
    g.expect(day=3)
    g.speeches({1: 4})
    assert g.s.record.nominations[-1]["result"] == "accepted"


def test_d6_three_fouls_lose_the_nearest_speech_but_keep_the_nomination() -> None:
    g = G().to_day1()
    for _ in range(3):
        g.do("foul", seat=4)
    g.next(3).expect(speaker=4, speech_seconds=0, step="speech")
    assert g.s.step_seconds == 0
    g.nom(4, 7).expect(nominees=[7])  # the step exists for his nomination
    g.next().expect(speaker=5, speech_seconds=60)


def test_d6_only_the_nearest_speech_is_lost() -> None:
    g = G().to_day1()
    for _ in range(3):
        g.do("foul", seat=4)
    g.speeches()
    g.quiet_night()
    g.next(2).expect(day=2, speaker=4, speech_seconds=60)


def test_d6_third_foul_during_own_speech_counts_from_the_next_one() -> None:
    g = G().to_day1().next(3).expect(speaker=4)
    for _ in range(3):
        g.do("foul", seat=4)
    g.expect(speech_seconds=60, fouls={4: 3})  # the current speech goes on
    g.speeches()
    g.quiet_night()
    g.next(2).expect(day=2, speaker=4, speech_seconds=0)


def test_d6_f5_tie_speech_is_30s_and_keeps_the_penalty() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    for _ in range(3):
        g.do("foul", seat=3)  # 3rd foul after his Day speech, before the vote
    g.vote({2: [1, 4, 5, 6, 7], 3: [8, 9, 10, 2, 3]})
    g.expect(step="tie_speech", speaker=2, speech_seconds=30).next()
    g.expect(step="tie_speech", speaker=3, speech_seconds=30).next()  # F5
    g.vote({2: [1, 4, 5, 6, 7, 8, 9, 10]})
    g.expect(step="last_word", speaker=2).next()
    g.quiet_night()
    g.expect(day=2, speaker=3, speech_seconds=0)  # RULES D6: a tie speech is not «his minute»


def test_d6_last_word_is_always_60s_and_keeps_the_penalty() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5, 6, 7]})
    for _ in range(3):
        g.do("foul", seat=2)  # on his own last word
    g.expect(step="last_word", speaker=2, speech_seconds=60)


def test_d6_f6_thirty_seconds_at_three_players() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 6, 7, 8, 9, 10):
        g.do("remove", seat=seat)
    g.expect(at_table=[1, 4, 5], winner=None)
    for _ in range(3):
        g.do("foul", seat=4)
    g.next().expect(speaker=4, speech_seconds=30)


def test_d6_f6_thirty_seconds_at_four_players() -> None:
    # Sheriff 1, Don 2, Mafia 3 and 4; blacks 2 and 3 and reds leave until
    # 1, 4, 5, 6 remain (1 black, 3 reds).
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 7, 8, 9, 10):
        g.do("remove", seat=seat)
    g.expect(at_table=[1, 4, 5, 6], winner=None)
    for _ in range(3):
        g.do("foul", seat=5)
    g.next().expect(speaker=4, speech_seconds=60)
    g.next().expect(speaker=5, speech_seconds=30)  # F6: 4 at the table
    g.next().expect(speaker=6, speech_seconds=60)


def test_d6_f6_zero_seconds_at_five_players() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 8, 9, 10):
        g.do("remove", seat=seat)
    g.expect(at_table=[1, 4, 5, 6, 7])
    for _ in range(3):
        g.do("foul", seat=5)
    g.next(2).expect(speaker=5, speech_seconds=0)


def test_d7_tech_pause_limits_per_player_and_round() -> None:
    g = G().to_day1()
    g.do("tech_pause", seat=1)
    exc = g.refuse("tech_pause", seat=1)
    assert (exc.rule, exc.code) == ("D7", "tech_pause_player_round")
    g.do("tech_pause", seat=2)
    exc = g.refuse("tech_pause", seat=3)
    assert (exc.rule, exc.code) == ("D7", "tech_pause_round_total")
    g.speeches()
    # Night 1 is still round 1
    assert g.refuse("tech_pause", seat=3).code == "tech_pause_round_total"
    g.quiet_night()
    g.do("tech_pause", seat=1)  # round 2: his second of the game
    exc = g.refuse("tech_pause", seat=4)
    assert (exc.rule, exc.code) == ("D7", "tech_pause_game_total")  # 3 per game
    assert [e["round"] for e in g.s.record.tech_pauses] == [1, 1, 2]


def test_d7_tech_pause_two_per_player_per_game() -> None:
    g = G(regulations=Regulations(tech_pauses_per_game=10)).do("tech_pause", seat=1)  # round 0 (N0)
    g.to_day1().do("tech_pause", seat=1)
    g.speeches()
    g.quiet_night()
    exc = g.refuse("tech_pause", seat=1)
    assert (exc.rule, exc.code) == ("D7", "tech_pause_player_game")


def test_d7_tech_pause_only_at_the_table() -> None:
    g = G().to_day1().do("remove", seat=3)
    exc = g.refuse("tech_pause", seat=3)
    assert (exc.rule, exc.code) == ("D7", "tech_pause_not_at_table")


def test_d_nominations_recorded_on_a_day_whose_vote_is_cancelled() -> None:
    g = G().do("disqualify", seat=6)  # N0: cancels the Day 1 vote (F10 INTERP)
    g.to_day1().speeches({1: 2, 2: 3})
    g.expect(
        step="mafia_shot", phase="night", nominees=[], at_table=table(6), left=[left(6, "disqualified", 0, "night")]
    )
    assert [e["target"] for e in g.s.record.nominations] == [2, 3]


def test_d4_the_same_candidate_twice_in_one_speech_is_refused() -> None:
    # Issue 13-4: a repeated digit recorded «№1 выставил №10 — поддерживается» 27 times.
    g = G().to_day1().nom(1, 10)
    with pytest.raises(RuleViolation) as info:
        apply(g.s, {"do": "nominate", "by": 1, "target": 10})
    assert (info.value.rule, info.value.code) == ("D4", "repeated_nomination")
    g.next().nom(2, 10)  # another player's speech: a support as before
    with pytest.raises(RuleViolation) as info:
        apply(g.s, {"do": "nominate", "by": 2, "target": 10})
    assert (info.value.rule, info.value.code) == ("D4", "repeated_nomination")
    assert [(e["by"], e["target"]) for e in g.s.record.nominations] == [(1, 10), (2, 10)]
    # A log recorded before this check replays as it was (FORMAT: logs are never rewritten).
    old = [*g.log, {"do": "nominate", "by": 2, "target": 10}]
    assert len(replay(old).record.nominations) == 3
