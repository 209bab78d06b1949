"""The record: what happened, as plain JSON-able dicts with the action index."""

from __future__ import annotations

import json

from tests.rules.helpers import G


def test_record_entries_of_a_game() -> None:
    g = G().to_day1()
    g.do("wink", by=9, target=1).do("tech_pause", seat=3)
    g.speeches({1: 2, 2: 3})
    g.vote({2: [1, 4, 5, 6, 7]})  # 5 v 5 (V4)
    g.next(2).vote({2: [1, 2, 4, 5, 6, 7]})
    g.next()
    g.shots({8: 4, 9: 4}).do("don_check", target=5).do("sheriff_check", target=9)
    g.expect(step="speech", day=2)  # a miss: no best move, no last word
    g.speeches().shots({}).do("foul", seat=6, reason="flood_spam")
    rec = g.s.record
    json.dumps(rec.to_dict())
    assert rec.get("nominations") is rec.nominations and rec["votes"] is rec.votes and rec.get("nope") is None

    assert [(n["day"], n["by"], n["target"], n["result"]) for n in rec.nominations] == [
        (1, 1, 2, "accepted"),
        (1, 2, 3, "accepted"),
    ]
    v1, v2 = rec.votes
    assert (v1["day"], v1["round"], v1["kind"], v1["candidates"], v1["totals"], v1["outcome"], v1["leaving"]) == (
        1,
        1,
        "vote",
        [2, 3],
        {2: 5, 3: 5},
        "tie",
        [],
    )
    assert v1["auto"] == [2, 3, 8, 9, 10]
    assert (v2["round"], v2["kind"], v2["outcome"], v2["leaving"]) == (2, "revote", "leave", [2])
    assert v2["ballots"] == {1: 2, 2: 2, 3: 3, 4: 2, 5: 2, 6: 2, 7: 2, 8: 3, 9: 3, 10: 3}

    shot = rec.shots[0]
    assert (shot["night"], shot["by"], shot["victim"]) == (1, {8: 4, 9: 4, 10: None}, None)  # 10 named nobody: a miss
    assert [(c["night"], c["by"], c["target"], c["result"]) for c in rec.checks] == [
        (1, "don", 5, True),
        (1, "sheriff", 9, "black"),
    ]
    assert all("index" in c for c in rec.checks)
    assert rec.best_moves == []

    p = rec.penalties[-1]
    assert {
        k: p[k]
        for k in ("kind", "seat", "team", "reason", "day", "phase", "count", "removed", "how", "cancels_vote_day")
    } == {
        "kind": "foul",
        "seat": 6,
        "team": "red",
        "reason": "flood_spam",
        "day": 2,
        "phase": "night",
        "count": 1,
        "removed": False,
        "how": None,
        "cancels_vote_day": None,
    }
    assert [(w["by"], w["target"], w["day"], w["phase"]) for w in rec.winks] == [(9, 1, 1, "day")]
    assert [(t["seat"], t["day"], t["phase"]) for t in rec.tech_pauses] == [(3, 1, "day")]
    kinds = [(s["kind"], s["seat"], s["seconds"]) for s in rec.speeches]
    assert kinds[:10] == [("speech", seat, 60) for seat in range(1, 11)]
    assert kinds[10:13] == [("tie_speech", 2, 30), ("tie_speech", 3, 30), ("last_word", 2, 60)]
    indexes = [
        e["index"]
        for name in ("nominations", "votes", "shots", "checks", "penalties", "speeches")
        for e in getattr(rec, name)
    ]
    assert all(0 <= i < g.s.count for i in indexes)
    for e in rec.votes:
        assert g.log[e["index"]]["do"] == "votes"
    for e in rec.nominations:
        assert g.log[e["index"]] == {"do": "nominate", "by": e["by"], "target": e["target"]}


def test_record_best_move_and_result() -> None:
    g = G().to_day1().speeches()
    g.shots({8: 1, 9: 1, 10: 1}).next(2).do("best_move", seats=[9, 9, 3])
    (bm,) = g.s.record.best_moves
    assert (bm["night"], bm["seat"], bm["seats"], bm["accepted"], bm["passed"], bm["how"], bm["blacks"]) == (
        1,
        1,
        [9, 9, 3],
        True,
        False,
        "accepted",
        1,
    )
    assert g.s.record.shots[-1]["victim"] == 1
    assert g.s.record.result is None
    g.do("ppk", team="black")
    assert g.s.record.result == {
        "index": len(g.log) - 1,
        "winner": "red",
        "ppk": "black",
        "annulled": False,
        "reason": "W5",
    }
