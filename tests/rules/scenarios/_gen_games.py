"""Scenarios: whole games in the style of a recorded tournament game, with a checkpoint after every action."""

from _lib import Scenario, left


def s_game_red_win():
    s = Scenario(
        "GAME",
        "red_win_full_game",
        "A full game: supported nomination, Don voted out on Day 1, Sheriff shot in N1 (no Don check step, "
        "his own check kept, best move 3 blacks), Day 2 tie -> revote tie -> lift vote 4 of 8 fails, N2 with "
        "no captain left, Day 3 and 4 votes, red win with the W2 last word.",
    )
    s.setup(sheriff=3, don=6, mafia=(2, 9))
    s.a("wink", by=6, target=3)
    s.x(step="dogovorka")
    s.to_day1()
    s.speeches(range(1, 11), noms={1: 6, 2: 5, 3: 6, 5: 2})
    s.x(step="voting", nominees=[6, 5, 2])
    s.vote({6: [1, 3, 4, 7, 8], 5: [2, 6, 9]})  # 5, 10 -> 2
    s.x(step="last_word", speaker=6, left=[left(6, "vote", 1, "day")], nominees=[6, 5, 2])
    s.nx()
    s.x(step="mafia_shot", phase="night", day=1)
    s.a("shots", by={"2": 3, "9": 3})
    s.x(step="sheriff_check")
    s.a("sheriff_check", target=9)
    s.x(step="best_move", checks=[{"night": 1, "by": "sheriff", "target": 9, "result": "black"}])
    s.a("best_move", seats=[9, 2, 6])
    s.x(step="last_word", speaker=3, best_move={"seat": 3, "seats": [9, 2, 6], "blacks": 3})
    s.nx()
    s.x(step="speech", day=2, speaker=2, at_table=[1, 2, 4, 5, 7, 8, 9, 10])
    s.speeches([2, 4, 5, 7, 8, 9, 10, 1], noms={2: 4, 4: 9, 5: 2})
    s.x(step="voting", nominees=[4, 9, 2])
    s.vote({4: [2, 9, 10], 9: [1, 4, 5], 2: [7, 8]})
    s.x(step="tie_speech", speaker=4, nominees=[4, 9])
    s.nx()
    s.x(step="tie_speech", speaker=9)
    s.nx()
    s.x(step="voting", nominees=[4, 9])
    s.vote({4: [2, 9, 10, 5], 9: [1, 4, 7, 8]})
    s.x(step="lift_vote", nominees=[4, 9])
    s.a("lift_vote", yes=[1, 4, 7, 8])
    s.x(step="mafia_shot", phase="night", day=2, at_table=[1, 2, 4, 5, 7, 8, 9, 10], nominees=[])
    s.a("shots", by={"2": 1, "9": 1})
    s.x(step="last_word", speaker=1, phase="night", day=2)
    s.nx()
    s.x(step="speech", day=3, speaker=4, at_table=[2, 4, 5, 7, 8, 9, 10])
    s.speeches([4, 5, 7, 8, 9, 10, 2], noms={4: 9, 7: 2})
    s.vote({9: [4, 5, 7, 8]})  # 10, 2, 9 -> 2
    s.x(
        step="last_word",
        speaker=9,
        winner=None,
        left=[
            left(6, "vote", 1, "day"),
            left(3, "shot", 1, "night"),
            left(1, "shot", 2, "night"),
            left(9, "vote", 3, "day"),
        ],
    )
    s.nx()
    s.x(step="mafia_shot", day=3)
    s.a("shots", by={"2": 5})
    s.x(step="last_word", speaker=5)
    s.nx()
    s.x(step="speech", day=4, speaker=7, at_table=[2, 4, 7, 8, 10])
    s.speeches([7, 8, 10, 2, 4], noms={7: 2})
    s.x(step="voting", nominees=[2])
    s.vote({2: []})
    s.x(step="last_word", speaker=2, winner="red", status="running")
    s.nx()
    s.x(
        status="finished",
        step="finished",
        winner="red",
        at_table=[4, 7, 8, 10],
        left=[
            left(6, "vote", 1, "day"),
            left(3, "shot", 1, "night"),
            left(1, "shot", 2, "night"),
            left(9, "vote", 3, "day"),
            left(5, "shot", 3, "night"),
            left(2, "vote", 4, "day"),
        ],
        checks=[{"night": 1, "by": "sheriff", "target": 9, "result": "black"}],
        best_move={"seat": 3, "seats": [9, 2, 6], "blacks": 3},
    )
    return s


def s_game_black_win():
    s = Scenario(
        "GAME",
        "black_win_fouls_and_cancelled_day",
        "A full game: 3rd foul during a tie speech of another player (his nearest speech is the Day 2 speech, "
        "0 s), Sheriff shot in N1, the 4th foul on Day 2 cancels the vote, N2 kill gives blacks = reds: black "
        "wins at the shot (W1), no Don check that Night; the morning and the W2 last word.",
    )
    s.setup(sheriff=10, don=1, mafia=(4, 7))
    s.to_day1()
    s.x(step="speech", speaker=1)
    s.a("foul", seat=5)
    s.a("foul", seat=5)
    s.speeches(range(1, 11), noms={1: 2, 3: 3})
    s.x(step="voting", nominees=[2, 3], fouls={"5": 2})
    s.vote({2: [1, 4, 7, 3, 5], 3: [2, 6, 8, 9, 10]})
    s.x(step="tie_speech", speaker=2)
    s.nx()
    s.x(step="tie_speech", speaker=3)
    s.a("foul", seat=5)
    s.nx()
    s.vote({2: [1, 4, 7, 3, 5, 6]})
    s.x(step="last_word", speaker=2, left=[left(2, "vote", 1, "day")], fouls={"5": 3})
    s.nx()
    s.night(shots={1: 10, 4: 10, 7: 10}, don=10, sheriff=1)
    s.x(
        step="best_move",
        checks=[
            {"night": 1, "by": "don", "target": 10, "result": True},
            {"night": 1, "by": "sheriff", "target": 1, "result": "black"},
        ],
    )
    s.a("best_move", seats=[1, 4, 7])
    s.x(step="last_word", speaker=10, best_move={"seat": 10, "seats": [1, 4, 7], "blacks": 3})
    s.nx()
    s.x(step="speech", day=2, speaker=3, speech_seconds=60, at_table=[1, 3, 4, 5, 6, 7, 8, 9])
    s.speeches([3, 4])
    s.x(step="speech", speaker=5, speech_seconds=0)
    s.a("nominate", by=5, target=1)
    s.nx()
    s.x(step="speech", speaker=6)
    s.a("warning", seat=6)
    s.speeches([6, 7, 8], noms={8: 4})
    s.x(step="speech", speaker=9, nominees=[1, 4])
    s.a("foul", seat=5)
    s.x(
        step="speech",
        speaker=9,
        nominees=[1, 4],
        fouls={"5": 4},
        at_table=[1, 3, 4, 6, 7, 8, 9],
        left=[left(2, "vote", 1, "day"), left(10, "shot", 1, "night"), left(5, "fouls", 2, "day")],
    )
    s.nx()
    s.x(step="speech", speaker=1)
    s.nx()
    s.x(step="mafia_shot", phase="night", day=2, nominees=[])
    s.a("shots", by={"1": 3, "4": 3, "7": 3})
    s.x(
        step="last_word", speaker=3, phase="night", day=2, winner="black", status="running", at_table=[1, 4, 6, 7, 8, 9]
    )
    s.nx()
    s.x(
        status="finished",
        step="finished",
        winner="black",
        left=[
            left(2, "vote", 1, "day"),
            left(10, "shot", 1, "night"),
            left(5, "fouls", 2, "day"),
            left(3, "shot", 2, "night"),
        ],
        checks=[
            {"night": 1, "by": "don", "target": 10, "result": True},
            {"night": 1, "by": "sheriff", "target": 1, "result": "black"},
        ],
    )
    return s


SCENARIOS = [s_game_red_win, s_game_black_win]
