"""Issue 21: five readings of the penalties and the best move (RULES D6, N7,
W1, F18, F19), and the tolerant replay of logs recorded before them.
Default roles: Sheriff 5, Don 8, Mafia 9, 10."""

from __future__ import annotations

from games.rules import legal_actions, penalty_offer, replay, replay_as_recorded
from games.rules.catalogue import F18_GREY_CARD
from tests.rules.helpers import PLAYERS, G, left, table


def fouls(g: G, seat: int, n: int, **kw: object) -> G:
    for _ in range(n):
        g.do("foul", seat=seat, **kw)
    return g


# --- D6: a tie speech does not use the 3-foul penalty up ------------------------------------------


def test_d6_tie_speech_30s_keeps_the_penalty_for_his_next_speech() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    fouls(g, 3, 3)  # after his Day speech, before the vote
    g.vote({2: [1, 4, 5, 6, 7], 3: [8, 9, 10, 2, 3]})
    g.expect(step="tie_speech", speaker=2, speech_seconds=30).next()
    g.expect(step="tie_speech", speaker=3, speech_seconds=30).next()  # F5: 30 s, not his minute
    g.vote({2: [1, 4, 5, 6, 7, 8, 9, 10]})
    g.expect(step="last_word", speaker=2).next()
    g.quiet_night()
    # D6: «лишается права слова в свою ближайшую минуту» — his Day-2 speech is the lost one.
    g.expect(day=2, step="speech", speaker=3, speech_seconds=0)
    g.nom(3, 4)  # D6: he keeps his nomination right
    g.next().expect(speaker=4, speech_seconds=60)


def test_d6_three_foul_player_tied_twice_then_next_days_speech_lost() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    fouls(g, 3, 3)
    g.vote({2: [1, 4, 5, 6, 7], 3: [8, 9, 10, 2, 3]})  # 5 v 5
    g.next().expect(step="tie_speech", speaker=3, speech_seconds=30).next()
    g.vote({2: [1, 4, 5, 6, 7], 3: [8, 9, 10, 2, 3]})  # 5 v 5 again: lift vote
    g.lift([])  # nobody for the lift: nobody leaves
    g.quiet_night()
    g.expect(day=2, speaker=2, speech_seconds=60).next()
    g.expect(speaker=3, speech_seconds=0)  # D6: the penalty is still his
    g.next().expect(speaker=4, speech_seconds=60)
    # the tie speeches of a second tie on Day 2 are 30 s again, and his later speeches normal
    g.speeches({4: 3, 5: 6})
    g.vote({3: [1, 2, 3, 4, 5], 6: [6, 7, 8, 9, 10]})
    g.expect(step="tie_speech", speaker=3, speech_seconds=30).next()
    g.next().vote({3: [1, 2, 3, 4, 5], 6: [6, 7, 8, 9, 10]}).lift([]).quiet_night()
    g.expect(day=3, step="speech", speaker=3, speech_seconds=60)  # D6: only the nearest speech


def test_d6_the_recorded_speech_of_a_tie_speaker_says_30() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    fouls(g, 3, 3)
    g.vote({2: [1, 4, 5, 6, 7], 3: [8, 9, 10, 2, 3]}).next()
    assert g.s.record.speeches[-1] == {**g.s.record.speeches[-1], "kind": "tie_speech", "seat": 3, "seconds": 30}
    assert 3 in g.s.mute_pending


# --- N7: a best move naming nobody is not accepted -------------------------------------------------


def night1() -> G:
    return G().to_day1().speeches()


def test_n7_best_move_with_no_seat_is_not_accepted() -> None:
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2).expect(step="best_move")
    g.do("best_move", seats=[]).expect(best_move=None, step="last_word", speaker=1)
    entry = g.s.record.best_moves[-1]
    assert (entry["accepted"], entry["how"], entry["seats"], entry["blacks"]) == (False, "not_accepted", [], 0)


def test_n7_one_or_two_seats_are_accepted_as_named() -> None:
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2)
    g.do("best_move", seats=[9, 2]).expect(best_move={"seat": 1, "seats": [9, 2], "blacks": 1})


# --- W1: a deciding shot keeps the N1 best move ------------------------------------------------------


def deciding_n1() -> G:
    """Sheriff 1, Don 2, Mafia 3, 4; three reds removed on Day 1: 3 blacks v 4 reds."""
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6, 7):
        g.do("remove", seat=seat)
    return g.speeches()


def test_w1_deciding_n1_shot_keeps_the_best_move_no_checks() -> None:
    g = deciding_n1().shots({2: 8, 3: 8, 4: 8})
    # W1: black wins at the shot; the checks are not held, his best move is.
    g.expect(
        winner="black", status="running", step="best_move", speaker=None, checks=[], at_table=[1, 2, 3, 4, 8, 9, 10]
    )
    assert [a["do"] for a in legal_actions(g.s)][:2] == ["next", "best_move"]
    g.do("best_move", seats=[2, 3, 9]).expect(best_move={"seat": 8, "seats": [2, 3, 9], "blacks": 2})
    g.expect(
        step="last_word",
        speaker=8,
        phase="night",
        winner="black",
        left=[*g.pub["left"][:3], left(8, "shot", 1, "night")],
    )
    g.next().expect(status="finished", winner="black", best_move={"seat": 8, "seats": [2, 3, 9], "blacks": 2})


def test_w1_deciding_n1_shot_best_move_may_be_left_out() -> None:
    g = deciding_n1().shots({2: 8, 3: 8, 4: 8}).next()  # none left
    g.expect(step="last_word", speaker=8, best_move=None).next().expect(status="finished")


def test_w1_deciding_shot_after_n9_no_best_move() -> None:
    # N9: two left by the Day 1 vote — no best move, the morning at once.
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1().speeches({1: 7, 2: 8})
    g.vote({7: [1, 2, 3, 4, 5], 8: [6, 7, 8, 9, 10]}).next(2)
    g.vote({7: [1, 2, 3, 4, 5], 8: [6, 7, 8, 9, 10]}).lift([1, 2, 3, 4, 5, 6]).next(2)
    g.expect(step="mafia_shot", at_table=[1, 2, 3, 4, 5, 6, 9, 10])
    g.do("remove", seat=5)  # 3 blacks v 4 reds
    g.shots({2: 9, 3: 9, 4: 9}).expect(winner="black", step="last_word", speaker=9, best_move=None)


def test_w1_deciding_removal_in_night1_keeps_the_best_move() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6):
        g.do("remove", seat=seat)
    g.speeches().shots({2: 7, 3: 7, 4: 7}).expect(step="don_check", winner=None)
    g.do("disqualify", seat=8)  # 3 blacks v 1, 9, 10 with 7 counted out
    g.expect(winner="black", step="best_move", at_table=[1, 2, 3, 4, 7, 9, 10])
    g.do("best_move", seats=[3]).expect(step="last_word", speaker=7, best_move={"seat": 7, "seats": [3], "blacks": 1})


def test_w1_deciding_removal_on_a_best_move_under_way_lets_it_go_on() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6):
        g.do("remove", seat=seat)
    g.speeches().shots({2: 7, 3: 7, 4: 7}).next(2).expect(step="best_move")
    g.do("disqualify", seat=8).expect(winner="black", step="best_move")
    g.do("best_move", seats=[2, 3]).expect(step="last_word", speaker=7).next().expect(status="finished")


def test_w1_deciding_shot_of_a_red_best_move_points_in_the_record() -> None:
    g = deciding_n1().shots({2: 8, 3: 8, 4: 8}).do("best_move", seats=[2, 3, 4])
    assert g.s.record.best_moves[-1]["accepted"] is True and g.s.record.best_moves[-1]["blacks"] == 3
    assert g.s.record.shots[-1]["victim"] == 8 and g.s.team_of(8) == "red"


# --- F18: never a 4th foul for the three grey-card offences -----------------------------------------


def test_f18_fourth_foul_for_vote_retraction_refused_grey_card_accepted() -> None:
    g = fouls(G().to_day1(), 4, 3)
    exc = g.refuse("foul", seat=4, reason_code="vote_retraction")
    assert (exc.rule, exc.code, exc.params["grey_card"]) == (
        "F18",
        "f18_grey_card_instead",
        "double_or_removed_vote_three_fouls",
    )
    assert "grey card" in exc.message and "F18" in exc.message
    g.do("grey_card", seat=4, reason_code="double_or_removed_vote_three_fouls")
    g.expect(at_table=table(), fouls={4: 3}, step="speech")
    assert g.s.record.penalties[-1]["kind"] == "grey_card"


def test_f18_each_offence_code_and_the_disqualify_refused() -> None:
    for code in F18_GREY_CARD:
        g = fouls(G().to_day1(), 4, 3)
        assert g.refuse("foul", seat=4, reason_code=code).rule == "F18"
        assert g.refuse("disqualify", seat=4, reason_code=code).rule == "F18"
    g = G().to_day1()
    assert g.refuse("disqualify", seat=4, reason_code="vote_retraction").rule == "F18"  # never a disqualifying one
    g.do("foul", seat=4, reason_code="vote_retraction").expect(fouls={4: 1})  # a 1st foul for it is fine


def test_f18_free_text_reason_is_the_hosts_call_and_other_codes_remove() -> None:
    g = fouls(G().to_day1(), 4, 3).do("foul", seat=4, reason="он снял голос")
    g.expect(at_table=table(4), left=[left(4, "fouls", 1, "day")])
    g = fouls(G().to_day1(), 4, 3).do("foul", seat=4, reason_code="flood_spam")
    g.expect(at_table=table(4))
    g = fouls(G().to_day1(), 4, 3)
    # a log written before reason_code was stored: the catalogue code as the reason
    assert g.refuse("foul", seat=4, reason="vote_retraction").rule == "F18"


def test_f18_the_vote_is_not_cancelled_by_a_refused_fourth_foul() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    fouls(g, 6, 3)
    g.refuse("foul", seat=6, reason_code="gestures_during_vote")
    g.expect(step="voting", nominees=[2, 3])
    assert g.s.cancelled == set()


def test_f18_penalty_offer_withholds_the_three_reasons_for_a_three_foul_player() -> None:
    g = G().to_day1()
    offer = penalty_offer(g.s, 4)
    assert offer["kinds"] == ["foul", "warning", "grey_card", "disqualify", "remove", "ppk"]
    assert "foul" not in offer["withheld"]
    assert sorted(offer["withheld"]["disqualify"]) == sorted(F18_GREY_CARD)
    fouls(g, 4, 3)
    offer = penalty_offer(g.s, 4)
    assert sorted(offer["withheld"]["foul"]) == sorted(F18_GREY_CARD)
    assert "grey_card" not in offer["withheld"]  # the grey card is what is offered


# --- F19: warnings and grey cards after leaving -------------------------------------------------------


def test_f19_warnings_after_leaving_recorded_nobody_removed_second_brings_the_ban() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]}).next()  # 3 leaves by the vote, his last word over
    g.expect(step="mafia_shot")
    g.do("warning", seat=3, reason_code="calm_down").do("warning", seat=3)
    g.expect(at_table=table(3), left=[left(3, "vote", 1, "day")], step="mafia_shot", winner=None)
    first, second = g.s.record.penalties[-2:]
    assert (first["count"], first["after_leaving"], first["ban"], first["removed"]) == (1, True, False, False)
    assert (second["count"], second["after_leaving"], second["ban"], second["removed"]) == (2, True, True, False)
    assert second["cancels_vote_day"] is None and g.s.cancelled == set()
    g.do("grey_card", seat=3).expect(at_table=table(3))
    assert g.s.record.penalties[-1]["after_leaving"] is True


def test_f19_fouls_disqualify_remove_refused_after_leaving() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]}).next()
    for kind in ("foul", "disqualify"):
        exc = g.refuse(kind, seat=3)
        assert (exc.rule, exc.code) == ("F19", "penalty_after_leaving")
    assert g.refuse("remove", seat=3).rule == "X4"
    assert penalty_offer(g.s, 3) == {"kinds": ["warning", "grey_card"], "withheld": {}}


def test_f19_second_warning_on_own_last_word_still_ends_it() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]})
    g.do("warning", seat=3).do("warning", seat=3).expect(step="mafia_shot")
    assert g.s.record.penalties[-1].get("ends_last_word") is True


def test_f19_legal_actions_offer_warning_and_grey_card_to_departed_seats() -> None:
    g = G().to_day1().do("disqualify", seat=6)
    by_do = {a["do"]: a for a in legal_actions(g.s)}
    assert 6 in by_do["warning"]["seats"] and 6 in by_do["grey_card"]["seats"]
    assert (
        6 not in by_do["foul"]["seats"] and 6 not in by_do["disqualify"]["seats"] and 6 not in by_do["remove"]["seats"]
    )


# --- replay_as_recorded: logs recorded under the old readings ------------------------------------------


SETUP = [
    {"do": "seat", "players": list(PLAYERS)},
    {"do": "roles", "sheriff": 5, "don": 8, "mafia": [9, 10]},
    {"do": "start"},
]


def test_replay_as_recorded_skips_what_todays_rules_refuse_and_reports_it() -> None:
    log = [*SETUP, {"do": "next"}, {"do": "next"}]
    log += [{"do": "foul", "seat": 4}] * 3
    log += [{"do": "foul", "seat": 4, "reason_code": "vote_retraction"}]  # accepted before F18: removed him
    log += [{"do": "warning", "seat": 6}]
    state, refused = replay_as_recorded(log)
    assert [(i, v.rule) for i, v in refused] == [(8, "F18")]
    assert state.at_table == table()  # 4 stays: the refused 4th foul is skipped
    assert state.warnings == {6: 1}


def test_replay_as_recorded_equals_replay_when_nothing_is_refused() -> None:
    log = [*SETUP, {"do": "next"}, {"do": "next"}, {"do": "foul", "seat": 2}, {"do": "next"}]
    state, refused = replay_as_recorded(log)
    assert refused == [] and state == replay(log)
    state, refused = replay_as_recorded([*log, {"do": "expect", "step": "speech"}])
    assert refused == []
