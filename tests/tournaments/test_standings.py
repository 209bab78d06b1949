"""Standings from result rows: a generated tournament, Ci (N10/N11), best move, tie-breakers, policy changes."""

import io
import random
import re
from collections import defaultdict
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from games.models import Game, GameStatus, SeatResult
from tests.tournaments.helpers import play_random, play_scripted, seated_tournament
from tournaments import services, standings
from tournaments.exports import tournament_workbook_bytes
from tournaments.models import Table, TableSeat
from tournaments.standings import game_seat_scores

pytestmark = pytest.mark.django_db


@pytest.fixture
def host2(django_user_model):
    return django_user_model.objects.create_user(username="host2", password="host2-pass-123")


def _start_all(t, by):
    for stage in t.stages.order_by("order"):
        for rnd in stage.rounds.order_by("number"):
            res = services.round_start_games(round=rnd, by=by)
            assert not res.skipped, res.skipped


def _seat_of(table, nickname):
    return TableSeat.objects.get(table=table, participant__nickname=nickname).seat_no


def _roles(avoid, *, black=False):
    """Roles with seat `avoid` a civilian (or the Don when black=True)."""
    others = [s for s in range(1, 11) if s != avoid]
    if black:
        return {"sheriff": others[0], "don": avoid, "mafia": (others[1], others[2])}
    return {"sheriff": others[0], "don": others[1], "mafia": (others[2], others[3])}


def _naive(t, policy):
    """An independent recomputation straight from SeatResult rows (the test's own reading of the rules)."""
    totals = defaultdict(Decimal)
    n1 = defaultdict(int)
    tables = Table.objects.filter(round__stage__tournament=t, game__status=GameStatus.FINISHED).order_by(
        "round__stage__order", "round__number", "number"
    )
    for table in tables:
        seats = {s.seat_no: s.participant.nickname for s in table.seats.select_related("participant")}
        extras = {e.seat_no: e.points for e in table.game.extra_points.all()}
        for r in SeatResult.objects.filter(game=table.game):
            nick = seats[r.seat_no]
            pts = policy.draw if r.winner == "draw" else (policy.win if r.won else policy.loss)
            if r.first_night_victim and (r.team == "red" or not policy.ci_red_shots_only):
                # N11: every N1 shot counts (unless the red-only deviation is set).
                n1[(table.round.stage_id, nick)] += 1
            if r.team == "red" and r.first_night_victim:
                pts += policy.ci_first + policy.ci_step * (n1[(table.round.stage_id, nick)] - 1)
                if r.best_move_accepted:
                    pts += policy.best_move[r.best_move_blacks]
            pts += extras.get(r.seat_no, 0)
            pts -= (
                policy.penalty_removed_by_fouls * r.removed_by_fouls
                + policy.penalty_disqualified * r.disqualified
                + policy.penalty_ppk * r.ppk
                + policy.penalty_grey_card * r.grey_cards
            )
            totals[nick] += pts
    return totals


def test_generated_tournament_20_players_10_rounds(host, host2):
    t = seated_tournament(host, [host, host2], players=20, rounds=5, stages=2)
    _start_all(t, host)
    rng = random.Random(7)
    tables = list(
        Table.objects.filter(round__stage__tournament=t).order_by("round__stage__order", "round__number", "number")
    )
    assert len(tables) == 20
    for i, table in enumerate(tables):
        play_random(table, rng)
        if i % 3 == 0:  # some host's extra points
            services.extra_points_set(
                game=table.game, seat_no=1 + i % 10, points=Decimal("0.3"), comment="good play", by=host
            )
    counted = Game.objects.filter(tournament_table__round__stage__tournament=t, status=GameStatus.FINISHED).count()
    assert counted >= 15  # a few random games may be annulled (W6)
    s = standings.compute(t)
    assert s.games == counted
    assert sum(r.games for r in s.rows) == 10 * counted
    # Everyone played the same number of counted games? Not with annulled ones;
    # but every game of the seating was played:
    assert {
        TableSeat.objects.filter(participant__tournament=t, participant__nickname=r.nickname).count() for r in s.rows
    } == {10}
    naive = _naive(t, t.policy)
    assert {r.nickname: r.total for r in s.rows} == {n: naive.get(n, Decimal(0)) for n in (r.nickname for r in s.rows)}
    assert (
        sum(r.wins for r in s.rows)
        == SeatResult.objects.filter(
            game__tournament_table__round__stage__tournament=t, won=True, game__status=GameStatus.FINISHED
        ).count()
    )
    # Ranks follow the tie-breakers (total first).
    assert [r.total for r in s.rows] == sorted((r.total for r in s.rows), reverse=True)
    assert s.rows[0].rank == 1
    # Role statistics add up to the games.
    for r in s.rows:
        assert sum(g for _role, g, _w in r.role_stats) == r.games
        assert sum(w for _role, _g, w in r.role_stats) == r.wins


def test_ci_progression_and_reset_per_stage(host):
    # One table of ten: the same player is shot in N1 as a red in three games of
    # stage 1 and once in stage 2 (RULES.md N10, N11).
    t = seated_tournament(host, [host], players=10, rounds=3, stages=2)
    _start_all(t, host)
    x = "Player01"
    tables = list(Table.objects.filter(round__stage__tournament=t).order_by("round__stage__order", "round__number"))
    played = []
    for i, table in enumerate(tables):
        seat = _seat_of(table, x)
        if i in (0, 1, 2, 3):
            played.append(play_scripted(table, n1_victim=seat, **_roles(seat)))
        else:
            play_scripted(table, n1_victim=None, **_roles(seat))
    ci = [game_seat_scores(g)[_seat_of(tb, x)]["ci"] for g, tb in zip(played, tables, strict=False)]
    assert ci == [0.5, 1.0, 1.5, 0.5]
    st = standings.compute(t).by_participant()
    me = next(r for r in st.values() if r.nickname == x)
    assert me.ci == Decimal("3.5")
    assert me.first_killed == 4
    stage2 = t.stages.get(order=2)
    assert next(r for r in standings.compute(t, stage=stage2).rows if r.nickname == x).ci == Decimal("0.5")


def _red_black_red_then_red(host):
    """Issue 9: Player01 shot in N1 as red, black, red in stage 1, then red in stage 2."""
    t = seated_tournament(host, [host], players=10, rounds=3, stages=2)
    _start_all(t, host)
    x = "Player01"
    tables = list(Table.objects.filter(round__stage__tournament=t).order_by("round__stage__order", "round__number"))
    games = []
    for i, table in enumerate(tables[:4]):
        seat = _seat_of(table, x)
        games.append((play_scripted(table, n1_victim=seat, **_roles(seat, black=(i == 1))), seat))
    for table in tables[4:]:
        play_scripted(table, n1_victim=None, **_roles(_seat_of(table, x)))
    return t, x, games


def test_n11_ci_counts_every_n1_shot_red_black_red_then_next_stage(host):
    # RULES N11 INTERP: the black shot gets no Ci (N10) but advances the count.
    t, x, games = _red_black_red_then_red(host)
    assert [game_seat_scores(g)[seat]["ci"] for g, seat in games] == [0.5, 0, 1.5, 0.5]
    s = standings.compute(t, with_history=True)
    me = next(r for r in s.rows if r.nickname == x)
    assert me.ci == Decimal("2.5") and me.first_killed == 4
    # The player's history shows the same Ci game by game.
    assert [g.score.ci for g in me.history if g.line.first_night_victim] == [
        Decimal("0.5"),
        0,
        Decimal("1.5"),
        Decimal("0.5"),
    ]
    assert [g.score.ci_count for g in me.history if g.line.first_night_victim] == [1, 0, 3, 1]
    assert naive_equals(t)
    # The standings workbook follows the same policy.
    ws = load_workbook(io.BytesIO(tournament_workbook_bytes(t)))["Турнирная таблица"]
    header = next(r for r in ws.iter_rows(values_only=True) if r and r[0] == "Место")
    mine = next(r for r in ws.iter_rows(values_only=True) if r and len(r) > 1 and r[1] == x)
    assert mine[header.index("Ci")] == 2.5


def test_n11_player_page_shows_every_n1_shot_counted(host, client):
    t, x, _games = _red_black_red_then_red(host)
    me = t.participants.get(nickname=x)
    html = client.get(f"/tournaments/{t.pk}/players/{me.pk}/").content.decode()
    cells = re.findall(
        r'<td class="num">[^<]*</td><td class="num">[^<]*</td><td class="num">([^<]*)</td>\s*<td class="num" title',
        html,
    )
    assert cells[:4] == ["0,5", "0", "1,5", "0,5"], cells


def test_n11_red_only_setting_gives_the_old_progression(host):
    t, x, games = _red_black_red_then_red(host)
    services.tournament_set_policy(
        tournament=t, policy=t.policy.with_changes(ci_red_shots_only=True), by=host, note="red only"
    )
    t.refresh_from_db()
    assert [game_seat_scores(g)[seat]["ci"] for g, seat in games] == [0.5, 0, 1.0, 0.5]
    me = next(r for r in standings.compute(t).rows if r.nickname == x)
    assert me.ci == Decimal("2.0")
    assert naive_equals(t)


def test_n11_existing_tournament_keeps_its_stored_policy(host):
    # A tournament stored before the N11 reading (schema 1, red shots only by
    # default) keeps its scoring; a new tournament gets the literal count.
    t, x, games = _red_black_red_then_red(host)
    legacy = {k: v for k, v in t.scoring.items() if k != "ci_red_shots_only"}
    legacy.update(schema=1, ci_counts_black_shots=False)
    type(t).objects.filter(pk=t.pk).update(scoring=legacy)
    t.refresh_from_db()
    assert t.policy.ci_red_shots_only is True
    assert [game_seat_scores(g)[seat]["ci"] for g, seat in games] == [0.5, 0, 1.0, 0.5]
    assert t.scoring == legacy  # reading it changes nothing stored
    fresh = services.tournament_create(name="New cup", organizer=host)
    assert fresh.policy.ci_red_shots_only is False
    assert fresh.scoring_revisions.get(number=1).policy["ci_red_shots_only"] is False


def naive_equals(t):
    naive = _naive(t, t.policy)
    return {r.nickname: r.total for r in standings.compute(t).rows} == {
        r.nickname: naive.get(r.nickname, Decimal(0)) for r in standings.compute(t).rows
    }


def test_ci_also_when_the_n1_victim_is_then_removed(host):
    # N10: shot in N1, then disqualified in that Night: he still gets Ci.
    t = seated_tournament(host, [host], players=10, rounds=2)
    _start_all(t, host)
    t1, t2 = Table.objects.filter(round__stage__tournament=t).order_by("round__number")
    seat = _seat_of(t1, "Player03")
    game = play_scripted(t1, n1_victim=seat, night_penalties=[{"do": "disqualify", "seat": seat}], **_roles(seat))
    row = SeatResult.objects.get(game=game, seat_no=seat)
    assert row.first_night_victim and row.disqualified and row.left_how == "disqualified"
    scores = game_seat_scores(game)[seat]
    assert scores["ci"] == 0.5
    # cristalix preset: red won (ППК of black) 1 + Ci 0.5 − disqualification 0.7
    assert scores["points"] == pytest.approx(0.8)
    # W3: disqualified during his own last word — the penalty still applies.
    seat2 = _seat_of(t2, "Player03")
    game2 = play_scripted(t2, n1_victim=seat2, penalties=[{"do": "disqualify", "seat": seat2}], **_roles(seat2))
    assert game_seat_scores(game2)[seat2]["points"] == pytest.approx(1 + 1.0 - 0.7)  # red won by ППК; second Ci: 1.0


def test_best_move_points_only_for_red_n1_victims(host):
    t = seated_tournament(host, [host], players=10, rounds=2)
    _start_all(t, host)
    t1, t2 = Table.objects.filter(round__stage__tournament=t).order_by("round__number")
    # Game 1: a red shot in N1 names 2 blacks (don, mafia) + a red: 0.25 and Ci 0.5.
    seat = _seat_of(t1, "Player05")
    roles = _roles(seat)
    g1 = play_scripted(t1, n1_victim=seat, best_move=[roles["don"], roles["mafia"][0], roles["sheriff"]], **roles)
    s1 = game_seat_scores(g1)[seat]
    assert (s1["best_move"], s1["ci"], s1["points"]) == (0.25, 0.5, 1.75)  # red won (ППК of black): 1 + 0.25 + 0.5
    # Game 2: the Don shot in N1 names all three blacks: nothing for him.
    seat2 = _seat_of(t2, "Player05")
    roles2 = _roles(seat2, black=True)
    g2 = play_scripted(t2, n1_victim=seat2, best_move=[seat2, *roles2["mafia"]], **roles2)
    assert SeatResult.objects.get(game=g2, seat_no=seat2).best_move_blacks == 3
    s2 = game_seat_scores(g2)[seat2]
    assert (s2["best_move"], s2["ci"], s2["points"]) == (0.0, 0.0, 0.0)


def test_penalties_hand_computed(host):
    t = seated_tournament(host, [host], players=10, rounds=1)
    _start_all(t, host)
    table = Table.objects.get(round__stage__tournament=t)
    # Seat 6 gets four fouls (F3: removed), seat 7 a grey card, then ППК of red by seat 1 (the Sheriff).
    game = play_scripted(
        table,
        sheriff=1,
        penalties=[{"do": "foul", "seat": 6}] * 4 + [{"do": "grey_card", "seat": 7}],
        end={"do": "ppk", "team": "red", "seat": 1},
    )
    sc = game_seat_scores(game)
    assert sc[6]["points"] == -0.5  # cristalix: removal by fouls 0.5
    assert sc[7]["points"] == 0.0  # F15: grey card 0 by default
    assert sc[1]["points"] == -0.7  # ППК 0.7
    assert sc[2]["points"] == 1.0  # the Don wins
    services.tournament_set_policy(
        tournament=t, policy=t.policy.with_changes(penalty_grey_card=Decimal("0.25")), by=host
    )
    assert game_seat_scores(game)[7]["points"] == -0.25


def test_tie_breakers_in_configured_order(host):
    t = seated_tournament(host, [host], players=10, rounds=1)
    _start_all(t, host)
    table = Table.objects.get(round__stage__tournament=t)
    game = play_scripted(table)  # red wins by ППК of black: seats 1, 5..10 win
    # Seat 5 (won, 1 point) and seat 2 (the Don: lost, +1 extra) end on 1 point each.
    services.extra_points_set(game=game, seat_no=2, points="1", comment="brave Don", by=host)
    nick = {s.seat_no: s.participant.nickname for s in table.seats.select_related("participant")}

    def order(tbs):
        services.tournament_set_policy(tournament=t, policy=t.policy.with_changes(tiebreakers=tbs), by=host)
        rows = standings.compute(t).rows
        pos = {r.nickname: (i, r.rank) for i, r in enumerate(rows)}
        return pos[nick[5]], pos[nick[2]]

    (i5, r5), (i2, r2) = order(("total", "wins"))
    assert i5 < i2 and r5 < r2
    (i5, r5), (i2, r2) = order(("total", "extra"))
    assert i2 < i5 and r2 < r5
    # Equal on every tie-breaker: a shared rank.
    (i5, r5), (i2, r2) = order(("total",))
    assert r5 == r2


def test_policy_change_recomputes_and_is_versioned(host):
    t = seated_tournament(host, [host], players=10, rounds=2)
    _start_all(t, host)
    for table in Table.objects.filter(round__stage__tournament=t):
        play_scripted(table)
    before = {r.nickname: r.total for r in standings.compute(t).rows}
    rev = services.tournament_set_policy(
        tournament=t, policy=t.policy.with_changes(win=Decimal(3)), by=host, note="triple"
    )
    assert rev.number == 2 and t.scoring_revisions.count() == 2
    t.refresh_from_db()
    after = {r.nickname: r.total for r in standings.compute(t).rows}
    assert after == {n: v * 3 for n, v in before.items()}
    assert t.scoring_revisions.get(number=1).policy["win"] == 1  # the old version is kept


def test_extra_points_range_and_removal(host, other_user):
    t = seated_tournament(host, [host], players=10, rounds=1)
    _start_all(t, host)
    table = Table.objects.get(round__stage__tournament=t)
    game = play_scripted(table)
    with pytest.raises(services.TournamentError):
        services.extra_points_set(game=game, seat_no=3, points="1.5", by=host)
    services.extra_points_set(game=game, seat_no=3, points="-0.4", comment="late", by=host)
    assert game_seat_scores(game)[3]["extra"] == -0.4
    services.extra_points_set(game=game, seat_no=3, points="0", comment="", by=host)
    assert game_seat_scores(game)[3]["extra"] == 0.0


def test_outside_a_tournament_no_scores(host):
    from games import services as gs

    game = gs.game_create(host=host, players=[f"P{i}" for i in range(10)])
    assert game_seat_scores(game) == {}


def test_running_and_annulled_games_do_not_count(host):
    t = seated_tournament(host, [host], players=10, rounds=2)
    _start_all(t, host)
    t1, t2 = Table.objects.filter(round__stage__tournament=t).order_by("round__number")
    play_scripted(t1, end={"do": "annul"})
    s = standings.compute(t)
    assert s.games == 0 and all(r.games == 0 for r in s.rows) and len(s.rows) == 10


def test_results_match_participants_after_the_host_reseats(host):
    # The host redraws the seating in the game's setup: results follow nicknames.
    from games import services as gs

    t = seated_tournament(host, [host], players=10, rounds=1)
    _start_all(t, host)
    table = Table.objects.get(round__stage__tournament=t)
    game = Game.objects.get(pk=table.game_id)
    players = [s.participant.nickname for s in table.seats.order_by("seat_no").select_related("participant")]
    gs.game_record_action(game=game, action={"do": "seat", "players": players[::-1]}, expected_seq=game.seq, by=host)
    play_scripted(table)  # red wins: seats 1, 5..10 of the game
    winners = set(SeatResult.objects.filter(game=game, won=True).values_list("nickname", flat=True))
    rows = {r.nickname: r for r in standings.compute(t).rows}
    assert {n for n, r in rows.items() if r.wins} == winners
