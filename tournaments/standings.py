"""Standings: the ranking of a tournament's participants, computed when read.

Input: the result rows (`games.models.SeatResult`) of the tournament's
finished games, the seats of their tables (which participant sat where) and
the host's extra points. Nothing here replays a game, and nothing is stored:
a policy change, an undo that reopens a game or a new extra point shows in
the next read (DESIGN.md: status that depends on the log is computed).

Matching a result row to a participant: by nickname among the table's
participants first (the host may have re-seated the table in the game's
setup), then by seat number among those not matched yet.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from games.models import GameStatus, Penalty, SeatResult
from games.rules.nicknames import nickname_sort_key
from games.rules.regulations import Regulations
from tournaments import visibility
from tournaments.models import (
    ExtraPoints,
    Participant,
    Stage,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.scoring import (
    TIEBREAKERS,
    ZERO,
    Line,
    ScoringPolicy,
    SeatScore,
    score_lines,
)

ROLES = ("sheriff", "don", "mafia", "civilian")

_RESULT_FIELDS = (
    "game_id",
    "seat_no",
    "nickname",
    "role",
    "team",
    "won",
    "winner",
    "left_how",
    "fouls",
    "warnings",
    "grey_cards",
    "disqualified",
    "removed_by_fouls",
    "ppk",
    "first_night_victim",
    "best_move_accepted",
    "best_move_blacks",
    "best_move_seats",
)


@dataclass
class GameLine:
    """One game of a player, for his history."""

    line: Line
    score: SeatScore
    stage_name: str
    round_no: int
    table_no: int
    table_id: int


@dataclass
class AnnulledGame:
    """A game of a player annulled by the host (W6): kept in his history, never counted."""

    game_id: int
    stage_name: str
    round_no: int
    table_no: int
    seat_no: int
    order: tuple[int, int, int]


def annulled_history(tournament: Tournament, participant_id: int, *, public: bool = False) -> list[AnnulledGame]:
    """The annulled games at the tables where the participant was seated, in tournament order
    (`public`: only the rounds the public standings show)."""
    seats = TableSeat.objects.filter(participant_id=participant_id, table__round__stage__tournament=tournament)
    rounds = visibility.public_round_ids(tournament) if public else None
    if rounds is not None:
        seats = seats.filter(table__round_id__in=rounds)
    seats = seats.select_related("table__round__stage", "table__game").prefetch_related("table__annulled_games")
    out: list[AnnulledGame] = []
    for s in seats:
        tb = s.table
        ids = [g.pk for g in tb.annulled_games.all()]
        if tb.game is not None and tb.game.status == GameStatus.ANNULLED:
            ids.append(tb.game.pk)
        stage = tb.round.stage
        for gid in sorted(ids):
            out.append(
                AnnulledGame(
                    gid, stage.name, tb.round.number, tb.number, s.seat_no, (stage.order, tb.round.number, tb.number)
                )
            )
    out.sort(key=lambda a: (a.order, a.game_id))
    return out


@dataclass
class Standing:
    key: Any
    participant_id: int | None
    nickname: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    base: Decimal = ZERO
    best_move: Decimal = ZERO
    ci: Decimal = ZERO
    extra: Decimal = ZERO
    penalties: Decimal = ZERO
    total: Decimal = ZERO
    fouls: int = 0
    warnings: int = 0
    grey_cards: int = 0
    removed: int = 0  # 4th foul, disqualification, second warning
    ppk: int = 0
    first_killed: int = 0  # shot in N1
    best_moves: int = 0  # accepted best moves as a red N1 victim
    best_move_blacks: int = 0
    roles: dict[str, list[int]] = field(default_factory=lambda: {r: [0, 0] for r in ROLES})  # role -> [games, wins]
    rank: int = 0
    player_id: int | None = None  # the person's page across tournaments (players app)
    history: list[GameLine] = field(default_factory=list)

    @property
    def losses(self) -> int:
        return self.games - self.wins - self.draws

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def best_move_accuracy(self) -> float | None:
        """Blacks found per seat a best move could name (3 per accepted best move)."""
        return self.best_move_blacks / (3 * self.best_moves) if self.best_moves else None

    @property
    def best_move_accuracy_pct(self) -> int | None:
        acc = self.best_move_accuracy
        return None if acc is None else round(acc * 100)

    @property
    def role_stats(self) -> list[tuple[str, int, int]]:
        return [(r, self.roles[r][0], self.roles[r][1]) for r in ROLES]

    def metric(self, key: str) -> Any:
        if key == "sheriff_wins":
            return self.roles["sheriff"][1]
        if key == "don_wins":
            return self.roles["don"][1]
        return getattr(self, key)


@dataclass
class Standings:
    tournament: Tournament
    policy: ScoringPolicy
    rows: list[Standing]
    scores: dict[tuple[int, int], SeatScore]
    lines: list[Line]
    stage: Stage | None = None
    games: int = 0
    # Set when these are the public standings of a tournament whose results are
    # hidden after a round (tournaments.visibility): the last round they count.
    frozen_after: Any = None

    def by_participant(self) -> dict[int | None, Standing]:
        return {r.participant_id: r for r in self.rows}


def tournament_lines(
    tournament: Tournament, *, stage: Stage | None = None, with_seats: bool = False, rounds: list[int] | None = None
) -> tuple[list[Line], dict[int, dict[str, Any]]]:
    """The counted lines of a tournament (optionally one stage, or only the `rounds` given:
    the public view of hidden results), and table info by game id.

    Five queries whatever the size, each filtered by joins (no long IN
    lists: `rounds` is a tournament's handful of rounds); `with_seats` also
    reads the best moves' seats (JSON, for the player history only).
    """
    tables = Table.objects.filter(round__stage__tournament=tournament, game__status=GameStatus.FINISHED)
    games: dict[str, Any] = {
        "game__tournament_table__round__stage__tournament": tournament,
        "game__status": GameStatus.FINISHED,
    }
    if stage is not None:
        tables = tables.filter(round__stage=stage)
        games["game__tournament_table__round__stage"] = stage
    if rounds is not None:
        tables = tables.filter(round_id__in=rounds)
        games["game__tournament_table__round_id__in"] = rounds
    info: dict[int, dict[str, Any]] = {}
    for t in tables.values(
        "id", "game_id", "number", "round__number", "round__stage_id", "round__stage__order", "round__stage__name"
    ):
        info[t["game_id"]] = dict(t)
    if not info:
        return [], info
    seats: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    seat_filter: dict[str, Any] = {
        "table__round__stage__tournament": tournament,
        "table__game__status": GameStatus.FINISHED,
    }
    if stage is not None:
        seat_filter["table__round__stage"] = stage
    if rounds is not None:
        seat_filter["table__round_id__in"] = rounds
    for s in TableSeat.objects.filter(**seat_filter).values_list(
        "table_id", "seat_no", "participant_id", "participant__nickname"
    ):
        seats[s[0]].append((s[1], s[2], s[3]))
    extras: dict[tuple[int, int], tuple[Decimal, str]] = {
        (e["game_id"], e["seat_no"]): (e["points"], e["comment"])
        for e in ExtraPoints.objects.filter(**games).values("game_id", "seat_no", "points", "comment")
    }
    # W3/F3: a removing penalty given during the player's own last word leaves
    # SeatResult's left_how at "shot"/"vote", yet the penalty applies: read
    # the penalty rows and the counts too.
    disqualify = set(Penalty.objects.filter(kind="disqualify", **games).values_list("game_id", "seat"))
    regs = Regulations.from_dict(tournament.regulations or {})
    fields = _RESULT_FIELDS if with_seats else tuple(f for f in _RESULT_FIELDS if f != "best_move_seats")
    results = SeatResult.objects.filter(**games).values(*fields)
    by_game: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        by_game[r["game_id"]].append(r)
    lines: list[Line] = []
    for game_id, rows in by_game.items():
        tinfo = info[game_id]
        players = _match(rows, seats.get(tinfo["id"], []))
        order = (tinfo["round__stage__order"], tinfo["round__stage_id"], tinfo["round__number"], tinfo["number"])
        for r in rows:
            extra, comment = extras.get((game_id, r["seat_no"]), (ZERO, ""))
            lines.append(
                Line(
                    game_id=game_id,
                    seat_no=r["seat_no"],
                    player=players.get(r["seat_no"]) or ("nick", r["nickname"]),
                    stage=tinfo["round__stage_id"],
                    order=order,
                    role=r["role"],
                    team=r["team"],
                    won=r["won"],
                    winner=r["winner"],
                    fouls=r["fouls"],
                    warnings=r["warnings"],
                    grey_cards=r["grey_cards"],
                    disqualified=bool(
                        r["disqualified"]
                        or (game_id, r["seat_no"]) in disqualify
                        or r["warnings"] >= regs.warnings_to_remove
                    ),
                    removed_by_fouls=bool(r["removed_by_fouls"] or r["fouls"] >= regs.fouls_to_remove),
                    ppk=r["ppk"],
                    first_night_victim=r["first_night_victim"],
                    best_move_accepted=r["best_move_accepted"],
                    best_move_blacks=r["best_move_blacks"],
                    best_move_seats=list(r.get("best_move_seats") or []),
                    left_how=r["left_how"],
                    extra=Decimal(extra),
                    extra_comment=comment,
                )
            )
    return lines, info


def _match(rows: list[dict[str, Any]], seats: list[tuple[int, int, str]]) -> dict[int, int]:
    """seat_no -> participant id for one game (see the module docstring)."""
    by_nick = {nick.casefold(): pid for _, pid, nick in seats}
    by_seat = {seat_no: pid for seat_no, pid, _ in seats}
    out: dict[int, int] = {}
    used: set[int] = set()
    for r in rows:
        pid = by_nick.get(str(r["nickname"]).casefold())
        if pid is not None and pid not in used:
            out[r["seat_no"]] = pid
            used.add(pid)
    for r in rows:
        if r["seat_no"] in out:
            continue
        pid = by_seat.get(r["seat_no"])
        if pid is not None and pid not in used:
            out[r["seat_no"]] = pid
            used.add(pid)
    return out


def compute(
    tournament: Tournament,
    *,
    stage: Stage | None = None,
    policy: ScoringPolicy | None = None,
    with_history: bool = False,
    public: bool = False,
) -> Standings:
    """The standings of a tournament (or of one stage) under its policy (or another one).

    `public`: as the public may see them — when the organizer hides the results after
    a round, only the games up to that round count (tournaments.visibility)."""
    policy = policy or tournament.policy
    rounds = visibility.public_round_ids(tournament) if public else None
    lines, info = tournament_lines(tournament, stage=stage, with_seats=with_history, rounds=rounds)
    scores = score_lines(lines, policy)
    linked = list(Participant.objects.filter(tournament=tournament).values_list("pk", "nickname", "player_id"))
    participants = {pk: nick for pk, nick, _player in linked}
    rows = aggregate(lines, scores, participants, info if with_history else None)
    player_of = {pk: player for pk, _nick, player in linked}
    for row in rows:
        row.player_id = player_of.get(row.participant_id) if row.participant_id else None
    rank(rows, policy.tiebreakers)
    frozen = tournament.standings_frozen_after if rounds is not None else None
    return Standings(
        tournament=tournament,
        policy=policy,
        rows=rows,
        scores=scores,
        lines=lines,
        stage=stage,
        games=len(info),
        frozen_after=frozen,
    )


def aggregate(
    lines: Iterable[Line],
    scores: dict[tuple[int, int], SeatScore],
    participants: dict[int, str],
    info: dict[int, dict[str, Any]] | None = None,
) -> list[Standing]:
    """Sum the lines per player; every participant gets a row, also with no game yet."""
    rows: dict[Any, Standing] = {
        pid: Standing(key=pid, participant_id=pid, nickname=nick) for pid, nick in participants.items()
    }
    for line in lines:
        s = scores[(line.game_id, line.seat_no)]
        st = rows.get(line.player)
        if st is None:
            st = rows[line.player] = Standing(key=line.player, participant_id=None, nickname=str(line.player[1]))
        st.games += 1
        if line.winner == "draw":
            st.draws += 1
        elif line.won:
            st.wins += 1
        st.base += s.base
        st.best_move += s.best_move
        st.ci += s.ci
        st.extra += s.extra
        st.penalties += s.penalty
        st.total += s.total
        st.fouls += line.fouls
        st.warnings += line.warnings
        st.grey_cards += line.grey_cards
        st.removed += int(line.removed_by_fouls or line.disqualified)
        st.ppk += int(line.ppk)
        st.first_killed += int(line.first_night_victim)
        if line.first_night_victim and line.team == "red" and line.best_move_accepted:
            st.best_moves += 1
            st.best_move_blacks += min(3, line.best_move_blacks)
        role = st.roles.setdefault(line.role, [0, 0])
        role[0] += 1
        role[1] += int(line.won)
        if info is not None:
            t = info[line.game_id]
            st.history.append(
                GameLine(
                    line=line,
                    score=s,
                    stage_name=t["round__stage__name"],
                    round_no=t["round__number"],
                    table_no=t["number"],
                    table_id=t["id"],
                )
            )
    for st in rows.values():
        st.history.sort(key=lambda g: g.line.order)
    return list(rows.values())


def rank(rows: list[Standing], tiebreakers: Iterable[str]) -> None:
    """Sort by the tie-breakers in order; equal on all of them shares a rank (1, 2, 2, 4)."""
    tbs = list(tiebreakers) or ["total"]

    def key(st: Standing) -> tuple[Any, ...]:
        out: list[Any] = []
        for tb in tbs:
            value = st.metric(tb)
            out.append(-value if TIEBREAKERS[tb] else value)
        return tuple(out)

    rows.sort(key=lambda st: (key(st), nickname_sort_key(st.nickname)))
    previous: tuple[Any, ...] | None = None
    for i, st in enumerate(rows, start=1):
        k = key(st)
        st.rank = rows[i - 2].rank if previous == k else i
        previous = k


def game_scores(game: Any) -> dict[int, SeatScore]:
    """seat_no -> SeatScore of one finished tournament game ({} otherwise)."""
    table = Table.objects.filter(game_id=game.pk).select_related("round__stage__tournament").first()
    if table is None or game.status != GameStatus.FINISHED:
        return {}
    stage = table.round.stage
    tournament = stage.tournament
    # Ci depends on the player's earlier N1 shots in the stage (N11): score the stage.
    lines, _ = tournament_lines(tournament, stage=stage)
    scores = score_lines(lines, tournament.policy)
    return {seat: s for (gid, seat), s in scores.items() if gid == game.pk}


def game_seat_scores(game: Any) -> dict[int, dict[str, float]]:
    """seat_no -> {"points", "extra", "ci", "base", "best_move", "penalty"} of a tournament game.

    "points" is the seat's total in that game under the tournament's policy.
    {} for a game outside a tournament or not finished (annulled games never count).
    For the protocol sheet of the Excel exporter; reads the database.
    """
    return {seat: s.as_floats() for seat, s in sorted(game_scores(game).items())}
