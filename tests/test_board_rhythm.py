"""Secrets by rhythm (issue 24): what a spectator can observe never tells a secret.

The differential test of tests/test_board_leaks.py, extended from the content
of one frame to everything a spectator receives over time. Pairs of games that
differ only in secrets — who is Sheriff or Don, whom each black named, what the
checks found, whether a departed player was a captain, an undone night
action, the host's hidden night clock, winks — are played through the
services with the same public actions at the same (frozen) times, in
lockstep. For each game we record:

- every frame sent to the public group `game-<pk>-board`: its second (relative
  to the start), its revision (`seq`, `at`) and its text in every language;
- the reconnect snapshot (the HTTP snapshot, the same text the websocket
  sends on connect) and the public board page, taken after every moment at
  which either game of the pair acted;
- the overlay's public parts: what its page and snapshot answer without the
  token or with a wrong one.

The two records must be identical byte for byte (the game's pk, which differs,
is written as `PK`). A Night must thus give the same frames whichever captains
are at the table and whatever the blacks and the captains did: the host's
night actions cause no public frame at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from channels.layers import get_channel_layer
from django.urls import reverse

from games import services
from games.board import frames as board
from games.rules import apply, new_state, script

NIGHT_STEPS = {"mafia_shot", "don_check", "sheriff_check", "best_move"}
T0 = datetime(2026, 5, 1, 18, 0, 0, tzinfo=UTC)
PLAYERS = ["Кот_Учоный", "Лиса", "Сова", "Ёж", "Бобр", "Заяц", "Волк", "Медведь", "Рысь", "Барсук"]
# Public actions come every SLOT seconds; a Night lasts NIGHT seconds of the
# console's own clock whatever happens in it (the console runs the wake-up of
# a departed captain like a present one: branch console).
SLOT = 7
NIGHT = 75


@dataclass
class Variant:
    """One game of a pair: its secrets, and its host's night actions."""

    roles: dict[str, Any]
    # Night 1, step by step: the host's action on that step (None: `next`).
    shots: dict[str, int | None] | None = None  # None: `next` (nobody named)
    don_check: int | None = None
    sheriff_check: int | None = None
    best_move: list[int] | None = None
    # Host's extra night actions: ("undo_after", step) records the step's
    # action, undoes it and records it again with `redo`; ("clock", step)
    # pauses and resumes the hidden night clock; ("wink", by, target).
    extras: list[tuple[Any, ...]] = field(default_factory=list)
    redo: dict[str, Any] = field(default_factory=dict)
    day_winks: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Public:
    """The public actions both games of a pair share."""

    voted_out: int | None = 7  # Day 1: nominated by seat 1; all vote for him
    other_nominee: int = 8  # nominated by seat 2
    disqualify: int | None = None  # Day 1, during seat 3's speech
    night_tech_pause: int | None = None  # a player asks for a pause when the Night begins
    day2_speeches: int = 2


ROLES = {"sheriff": 1, "don": 2, "mafia": [3, 4]}


def roles(sheriff: int, don: int, mafia: list[int]) -> dict[str, Any]:
    return {"sheriff": sheriff, "don": don, "mafia": mafia}


# --- planning: the host's actions and their times (the pure engine) ----------


def plan(public: Public, v: Variant) -> list[tuple[int, Any]]:
    """[(second, action or a pseudo-action)]; public actions on the shared slots."""
    out: list[tuple[int, Any]] = []
    log: list[dict[str, Any]] = []
    state = new_state(None)
    t = 0

    def do(action: dict[str, Any], at: int) -> None:
        nonlocal state
        state = apply(state, action)
        log.append(action)
        out.append((at, action))

    def public_do(action: dict[str, Any]) -> None:
        nonlocal t
        t += SLOT
        do(action, t)

    def undo(at: int) -> None:
        nonlocal state
        from games.rules import replay

        log.pop()
        state = replay(list(log), None)
        out.append((at, "undo"))

    public_do({"do": "seat", "players": PLAYERS})
    public_do({"do": "roles", **v.roles})
    public_do({"do": "start"})
    public_do({"do": "next"})  # договорка
    for by, target in v.day_winks:
        # Winks are told to the host in private (N12): secret, any time.
        do({"do": "wink", "by": by, "target": target}, t + 1)
    public_do({"do": "next"})  # free seating -> Day 1
    # Day 1.
    while state.step == "speech" and state.day == 1:
        speaker = state.speaker
        if speaker == 1 and public.voted_out:
            public_do({"do": "nominate", "by": 1, "target": public.voted_out})
        if speaker == 2 and public.voted_out:
            public_do({"do": "nominate", "by": 2, "target": public.other_nominee})
        if speaker == 3 and public.disqualify:
            public_do({"do": "disqualify", "seat": public.disqualify})
        public_do({"do": "next"})
    if state.step == "voting":
        voters = [s for s in state.at_table if s != public.other_nominee]
        public_do(
            {"do": "votes", "for": {str(public.voted_out): voters, str(public.other_nominee): [public.other_nominee]}}
        )
    while state.step == "last_word":
        public_do({"do": "next"})
    assert state.phase == "night" and state.step == "mafia_shot", state.public_dict()
    night_start = t
    if public.night_tech_pause:
        public_do({"do": "tech_pause", "seat": public.night_tech_pause})
    # Night 1: secret actions every 4 s; the one that brings the morning at
    # night_start + NIGHT, the same moment in both games.
    secret_t = t
    morning_at = night_start + NIGHT

    def night_action(step: str) -> dict[str, Any]:
        if step == "mafia_shot":
            return {"do": "next"} if v.shots is None else {"do": "shots", "by": v.shots}
        if step == "don_check":
            return {"do": "next"} if v.don_check is None else {"do": "don_check", "target": v.don_check}
        if step == "sheriff_check":
            return {"do": "next"} if v.sheriff_check is None else {"do": "sheriff_check", "target": v.sheriff_check}
        if step == "best_move":
            return {"do": "best_move", "seats": v.best_move} if v.best_move else {"do": "best_move", "pass": True}
        raise AssertionError(step)

    while state.step in NIGHT_STEPS and state.phase == "night":
        step = state.step
        secret_t += 4
        for extra in v.extras:
            if extra[0] == "clock" and extra[1] == step:
                out.append((secret_t, ("clock", "pause")))
                out.append((secret_t + 1, ("clock", "resume")))
                secret_t += 2
            if extra[0] == "wink" and extra[1] == step:
                do({"do": "wink", "by": extra[2], "target": extra[3]}, secret_t)
                secret_t += 1
        action = night_action(step)
        if ("undo_after", step) in v.extras:
            do(action, secret_t)
            undo(secret_t + 1)
            secret_t += 2
            action = v.redo.get(step, action)
        after = apply(state, action)
        ends_night = not (after.step in NIGHT_STEPS and after.phase == "night")
        if ends_night and script.clock_waits_for_host(after):
            # A departed captain's wake-up follows (the console plays it, issue
            # 26-2): the host passes it — the clock's start — at the morning's moment.
            do(action, secret_t)
            out.append((morning_at, ("clock", "start")))
        else:
            do(action, morning_at if ends_night else secret_t)
    assert secret_t < morning_at
    t = morning_at
    # The morning and Day 2.
    while state.step == "last_word":
        public_do({"do": "next"})
    for _ in range(public.day2_speeches):
        if state.step != "speech":
            break
        public_do({"do": "next"})
    return out


# --- playing a pair in lockstep ---------------------------------------------


@dataclass
class Record:
    frames: list[tuple[Any, ...]] = field(default_factory=list)
    snapshots: list[tuple[int, str]] = field(default_factory=list)


def normalise(text: str, pk: int) -> str:
    return re.sub(rf"/games/{pk}/", "/games/PK/", text).replace(f"№{pk}", "№PK")


@pytest.fixture
def captured(monkeypatch):
    layer = get_channel_layer()
    sent: list[tuple[str, dict[str, Any], datetime]] = []
    original = layer.group_send

    async def spy(group, message):
        from django.utils import timezone

        sent.append((group, message, timezone.now()))
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", spy)
    return sent


def play_pair(public: Public, a: Variant, b: Variant, *, host, client, captured, on_commit) -> tuple[Record, Record]:
    plans = [plan(public, a), plan(public, b)]
    games = [services.game_create(host=host, title="Пара"), services.game_create(host=host, title="Пара")]
    records = [Record(), Record()]
    groups = [board.board_group(g.pk) for g in games]
    moments = sorted({t for p in plans for t, _ in p})
    with time_machine.travel(T0, tick=False) as traveller:
        for moment in moments:
            traveller.move_to(T0 + timedelta(seconds=moment))
            for i, game in enumerate(games):
                for t, action in plans[i]:
                    if t != moment:
                        continue
                    game.refresh_from_db()
                    with on_commit(execute=True):
                        if action == "undo":
                            services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
                        elif isinstance(action, tuple):
                            services.game_clock_control(game=game, command=action[1], by=host)
                        else:
                            services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
            # What a spectator who (re)connects now gets (the websocket's
            # first frame and the HTTP snapshot are this text), one second
            # later too: the clock's remaining time is relative to the moment
            # it is sent. The page and the HTTP snapshot themselves at the
            # secret moments (when a single game acted) and every fifth one.
            secret = sum(t == moment for t, _ in plans[0]) != sum(t == moment for t, _ in plans[1]) or any(
                t == moment and not isinstance(a, dict) for p in plans for t, a in p
            )
            for delay in (0, 1):
                traveller.move_to(T0 + timedelta(seconds=moment + delay))
                for i, game in enumerate(games):
                    texts = [board.board_frame_for(game.pk, snapshot=True, lang=lang).html for lang in ("ru", "en")]
                    if delay == 0 and (secret or moments.index(moment) % 5 == 0):
                        for url in (reverse("board:snapshot", args=[game.pk]), reverse("board:board", args=[game.pk])):
                            response = client.get(url)
                            assert response.status_code == 200
                            texts.append(response.content.decode())
                    records[i].snapshots.append((moment + delay, normalise("".join(texts), game.pk)))
    for i, game in enumerate(games):
        for group, message, when in captured:
            if group != groups[i]:
                continue
            second = int((when - T0).total_seconds())
            records[i].frames.append(
                (
                    second,
                    message["seq"],
                    message["at"],
                    normalise(message["html"], game.pk),
                    normalise(json.dumps(message["html_by_lang"], sort_keys=True, ensure_ascii=False), game.pk),
                    sorted(message),
                )
            )
        # The overlay's public parts: no token, a wrong token (it is enabled
        # only now: its frames are the host's, and rendering them costs time).
        services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=120)
        for suffix in ("", "?token=wrong"):
            for name in ("board:overlay", "board:overlay-snapshot"):
                response = client.get(reverse(name, args=[game.pk]) + suffix)
                records[i].snapshots.append(
                    (-1, f"{name}{suffix} {response.status_code} {normalise(response.content.decode(), game.pk)}")
                )
    for game in games:
        game.refresh_from_db()
        assert game.status == "running", "the pair must stay running: after the end the roles are public"
    return records[0], records[1]


def assert_same(ra: Record, rb: Record, name: str) -> None:
    assert len(ra.frames) == len(rb.frames), (
        f"{name}: {len(ra.frames)} public frames against {len(rb.frames)}: {[f[:3] for f in ra.frames]} / {[f[:3] for f in rb.frames]}"
    )
    for fa, fb in zip(ra.frames, rb.frames, strict=True):
        assert fa[:3] == fb[:3], f"{name}: frame (second, seq, at) {fa[:3]} against {fb[:3]}"
        assert fa == fb, f"{name}: frame of second {fa[0]} differs:\n{fa[3]}\n---\n{fb[3]}"
    assert len(ra.snapshots) == len(rb.snapshots)
    for sa, sb in zip(ra.snapshots, rb.snapshots, strict=True):
        assert sa == sb, f"{name}: snapshot at second {sa[0]} differs:\n{sa[1][:1500]}\n---\n{sb[1][:1500]}"


# --- the pairs ----------------------------------------------------------------

KILL5 = {"2": 5, "3": 5, "4": 5}
MISS_SPLIT = {"2": 5, "3": 6, "4": None}

PAIRS: list[tuple[str, Public, Variant, Variant]] = [
    # A departed Sheriff: the player voted out on Day 1 was the Sheriff, or a civilian.
    (
        "departed sheriff, kill",
        Public(),
        Variant(roles(7, 2, [3, 4]), shots=KILL5, don_check=1, best_move=[2, 3, 4]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=2, best_move=[2, 3, 4]),
    ),
    (
        "departed sheriff, miss",
        Public(),
        Variant(roles(7, 2, [3, 4]), shots=MISS_SPLIT, don_check=6),
        Variant(roles(6, 2, [3, 4]), shots=MISS_SPLIT, don_check=6, sheriff_check=3),
    ),
    (
        "departed sheriff, nobody named",
        Public(),
        Variant(roles(7, 2, [3, 4]), shots=None),
        Variant(roles(9, 2, [3, 4]), shots=None, don_check=9, sheriff_check=4),
    ),
    # A departed Don.
    (
        "departed don, kill",
        Public(),
        Variant(roles(1, 7, [3, 4]), shots={"3": 5, "4": 5}, sheriff_check=3, best_move=[3, 4, 6]),
        Variant(roles(1, 2, [3, 4]), shots={"2": 5, "3": 5, "4": 5}, don_check=1, sheriff_check=3, best_move=[3, 4, 6]),
    ),
    (
        "departed don, miss",
        Public(),
        Variant(roles(1, 7, [3, 4]), shots={"3": 5, "4": 6}, sheriff_check=2),
        Variant(roles(1, 2, [3, 4]), shots={"2": 5, "3": 6, "4": 5}, don_check=9, sheriff_check=2),
    ),
    (
        "departed mafia or civilian",
        Public(),
        Variant(roles(1, 2, [3, 7]), shots={"2": 5, "3": 5}, don_check=1, sheriff_check=4, best_move=[9]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=4, best_move=[9]),
    ),
    (
        "both captains departed or none",
        Public(voted_out=7, disqualify=9),
        Variant(roles(7, 9, [3, 4]), shots={"3": 5, "4": 5}),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=6, sheriff_check=3),
    ),
    # A disqualified Don or Sheriff (the vote of Day 1 is then cancelled, F7).
    (
        "disqualified don, kill",
        Public(disqualify=9),
        Variant(roles(1, 9, [3, 4]), shots={"3": 5, "4": 5}, sheriff_check=4, best_move=[2, 3]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=6, sheriff_check=4, best_move=[2, 3]),
    ),
    (
        "disqualified don, miss",
        Public(disqualify=9),
        Variant(roles(1, 9, [3, 4]), shots={"3": 5, "4": 6}),
        Variant(roles(1, 2, [3, 4]), shots={"2": None, "3": 5, "4": 5}, don_check=6),
    ),
    (
        "disqualified sheriff",
        Public(disqualify=9),
        Variant(roles(9, 2, [3, 4]), shots=KILL5, don_check=1, best_move=[1]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=2, best_move=[1]),
    ),
    # The Sheriff (or the Don) shot in Night 1 keeps his check until the morning.
    (
        "sheriff shot in night 1",
        Public(),
        Variant(roles(5, 2, [3, 4]), shots=KILL5, don_check=5, sheriff_check=2, best_move=[2, 3, 4]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=5, sheriff_check=2, best_move=[2, 3, 4]),
    ),
    (
        "don shot by his own team",
        Public(),
        Variant(roles(1, 5, [3, 4]), shots={"5": 5, "3": 5, "4": 5}, don_check=1, sheriff_check=5, best_move=[3, 4]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=5, best_move=[3, 4]),
    ),
    # What the checks found, and whom they named.
    (
        "check targets",
        Public(),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=3, sheriff_check=4, best_move=[6, 8, 10]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=10, sheriff_check=6, best_move=[6, 8, 10]),
    ),
    (
        "check results",
        Public(),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=4),
        Variant(roles(4, 2, [3, 1]), shots={"2": 5, "3": 5, "1": 5}, don_check=1, sheriff_check=4),
    ),
    (
        "a check or none",
        Public(),
        Variant(roles(1, 2, [3, 4]), shots=KILL5),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=2),
    ),
    # How many of the best move's seats are black: never before the end.
    (
        "best move blacks",
        Public(),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, best_move=[2, 3, 4]),
        Variant(roles(9, 6, [8, 10]), shots={"6": 5, "8": 5, "10": 5}, best_move=[2, 3, 4]),
    ),
    (
        "every role elsewhere",
        Public(),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=6, sheriff_check=9, best_move=[2]),
        Variant(roles(10, 9, [8, 6]), shots={"9": 5, "8": 5, "6": 5}, don_check=6, sheriff_check=9, best_move=[2]),
    ),
    # An undo at night publishes nothing a night action would not.
    (
        "undo of a night check",
        Public(),
        Variant(
            roles(1, 2, [3, 4]),
            shots=KILL5,
            don_check=6,
            sheriff_check=4,
            extras=[("undo_after", "sheriff_check")],
            redo={"sheriff_check": {"do": "sheriff_check", "target": 6}},
        ),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=6, sheriff_check=6),
    ),
    (
        "undo of the shot",
        Public(),
        Variant(
            roles(1, 2, [3, 4]),
            shots={"2": 6, "3": 6, "4": 6},
            extras=[("undo_after", "mafia_shot")],
            redo={"mafia_shot": {"do": "shots", "by": KILL5}},
        ),
        Variant(roles(1, 2, [3, 4]), shots=KILL5),
    ),
    (
        "departed sheriff, undo of the don check",
        Public(),
        Variant(
            roles(7, 2, [3, 4]),
            shots=KILL5,
            don_check=3,
            extras=[("undo_after", "don_check")],
            redo={"don_check": {"do": "don_check", "target": 1}},
        ),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=3),
    ),
    # The host's hidden night clock and the winks told to him in private.
    (
        "host pauses the night clock",
        Public(),
        Variant(
            roles(1, 2, [3, 4]), shots=KILL5, don_check=1, extras=[("clock", "mafia_shot"), ("clock", "don_check")]
        ),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1),
    ),
    (
        "winks",
        Public(),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, day_winks=[(2, 5)], extras=[("wink", "don_check", 1, 6)]),
        Variant(roles(1, 2, [3, 4]), shots=KILL5),
    ),
    # A technical pause asked for aloud when the Night begins stays public; the
    # host's night actions during it do not end it on the board.
    (
        "tech pause at night, departed sheriff",
        Public(night_tech_pause=6),
        Variant(roles(7, 2, [3, 4]), shots=KILL5, don_check=1),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=2),
    ),
    (
        "no vote on day 1, departed nobody",
        Public(voted_out=None),
        Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=2, best_move=[2]),
        Variant(roles(5, 3, [2, 4]), shots={"3": 5, "2": 5, "4": 5}, don_check=1, sheriff_check=2, best_move=[2]),
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "public", "a", "b"), PAIRS, ids=[p[0] for p in PAIRS])
def test_pairs_that_differ_only_in_secrets_give_the_same_public_frames(
    name, public, a, b, host, client, captured, django_capture_on_commit_callbacks
):
    board.body_cache.clear()
    ra, rb = play_pair(
        public, a, b, host=host, client=client, captured=captured, on_commit=django_capture_on_commit_callbacks
    )
    assert len(ra.frames) >= 10  # the spy is not blind: the public actions were broadcast
    assert_same(ra, rb, name)


def test_there_are_at_least_twenty_pairs_covering_the_findings():
    names = " / ".join(p[0] for p in PAIRS)
    assert len(PAIRS) >= 20
    for needed in (
        "departed sheriff, kill",
        "departed sheriff, miss",
        "departed don",
        "disqualified don",
        "sheriff shot",
        "undo of a night check",
    ):
        assert needed in names


@pytest.mark.django_db
def test_a_night_gives_one_frame_when_it_begins_and_one_at_the_morning(
    host, client, captured, django_capture_on_commit_callbacks
):
    """The host's night actions publish nothing: between the Night's first
    frame and the morning's there is none, and the revision moves by one."""
    v = Variant(roles(1, 2, [3, 4]), shots=KILL5, don_check=1, sheriff_check=2, best_move=[2, 3])
    ra, _rb = play_pair(
        Public(), v, v, host=host, client=client, captured=captured, on_commit=django_capture_on_commit_callbacks
    )
    night = [f for f in ra.frames if "board-head is-night" in f[3]]
    assert len(night) == 1, [f[:3] for f in night]
    morning = ra.frames[ra.frames.index(night[0]) + 1]
    assert morning[1] == night[0][1] + 1
    assert morning[0] - night[0][0] == NIGHT
    seqs = [f[1] for f in ra.frames]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "a public revision moves by one per public frame"
