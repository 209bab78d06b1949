"""Tournament seating: who plays at which table, on which seat, in every round.

Pure Python, no Django. Terms:

- *block*: the rounds seated together (usually one stage); the generator
  balances games, seats and opponents over the block, starting from the
  *history* (tables of earlier rounds, e.g. earlier stages) for seats and
  opponents.
- *pair history*: how often two players already played together elsewhere
  (e.g. in other tournaments); it only weighs on opponents (step 2), never on
  seats or sit-outs, which are this tournament's own matter.
- *table*: ten players in seat order (seat 1 first).
- *sitting out*: the players without a table in a round when P is not a
  multiple of ten.

What the generator aims for, in this order:

1. Equal games: in every round the players who have played the most games in
   the block sit out (ties: fewest games in the history, then the seeded
   random order), so the counts differ by at most one, and by none when
   10·T·R is a multiple of P.
2. Different opponents: each round's players are split into tables greedily
   (each player joins the table where he has met the fewest players so far),
   then pairs of players are swapped between tables while that lowers the sum
   over pairs at one table of m², m = how often the two met before (squares
   spread the repeats instead of piling them on a few pairs).
3. Seat spread: at each table the seats are given by an optimal assignment
   (Hungarian method) whose cost is how often the player already sat on that
   seat; once every round is placed, seats of two players at one table are
   swapped while that lowers Σ c² over every player's seat counts.

Everything is deterministic given the seed (a string kept with the stage).
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TABLE_SIZE = 10

Table = list[Any]  # player keys in seat order


@dataclass
class Schedule:
    seed: str
    rounds: list[list[Table]]
    sitting_out: list[list[Any]]
    players: list[Any]
    table_size: int = TABLE_SIZE
    history: list[Table] = field(default_factory=list)

    def quality(self, *, include_history: bool = False) -> Quality:
        return measure(
            self.players, self.rounds, table_size=self.table_size, history=self.history if include_history else ()
        )


@dataclass
class Quality:
    players: int
    rounds: int
    tables_per_round: int
    games_min: int
    games_max: int
    seat_max: int  # the most times any player sat on one seat
    seat_ideal: int  # ceil(games / 10) for the player with most games: the best possible seat_max
    seat_excess: int  # Σ over players and seats of max(0, count − ceil(games/10)): 0 is a perfect spread
    seat_spread: float  # mean over players of (most − fewest sittings on one seat)
    pairs_met: int  # distinct pairs that met at least once
    pairs_repeated: int  # Σ over pairs of max(0, times − 1)
    pair_max: int  # most times two players met
    opponents_mean: float  # mean number of different opponents

    @property
    def equal_games(self) -> bool:
        return self.games_max - self.games_min <= 1

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def lines(self) -> list[str]:
        return [
            f"players {self.players}, rounds {self.rounds}, tables/round {self.tables_per_round}",
            f"games per player: {self.games_min}..{self.games_max}",
            f"seat spread: max {self.seat_max} on one seat (ideal {self.seat_ideal}), excess {self.seat_excess}, mean (max−min) {self.seat_spread:.2f}",
            f"opponents: {self.pairs_met} pairs met, {self.pairs_repeated} repeats, max {self.pair_max} together, {self.opponents_mean:.1f} different on average",
        ]

    def __str__(self) -> str:
        return "\n".join(self.lines())


class SeatingError(ValueError):
    pass


def generate(
    players: Sequence[Hashable],
    rounds: int,
    *,
    seed: str,
    table_size: int = TABLE_SIZE,
    history: Sequence[Sequence[Any]] = (),
    pair_history: Mapping[tuple[Any, Any], int] | None = None,
    effort: float = 1.0,
) -> Schedule:
    """Seat `players` for `rounds` rounds (see the module docstring).

    `pair_history`: (a, b) -> games a and b played together before (either order;
    pairs naming a key not in `players` are ignored)."""
    players = list(players)
    p = len(players)
    if len(set(players)) != p:
        raise SeatingError("duplicate players")
    if p < table_size:
        raise SeatingError(f"need at least {table_size} players, got {p}")
    if rounds < 1:
        raise SeatingError("need at least one round")
    rng = random.Random(f"seating:{seed}")
    idx = {key: i for i, key in enumerate(players)}
    tables_n = p // table_size
    met = [[0] * p for _ in range(p)]
    seatc = [[0] * table_size for _ in range(p)]
    hist_games = [0] * p
    for table in history:
        known = [(s, idx[k]) for s, k in enumerate(table) if k in idx]
        for s, a in known:
            if s < table_size:
                seatc[a][s] += 1
            hist_games[a] += 1
            for _, b in known:
                if a != b:
                    met[a][b] += 1
    for (ka, kb), times in (pair_history or {}).items():
        ia, ib = idx.get(ka), idx.get(kb)
        if ia is not None and ib is not None and ia != ib and times > 0:
            met[ia][ib] += times
            met[ib][ia] += times
    games = [0] * p
    order = list(range(p))
    rng.shuffle(order)
    tiebreak = {a: i for i, a in enumerate(order)}
    out_rounds: list[list[list[int]]] = []
    out_sitting: list[list[int]] = []
    for _ in range(rounds):
        # 1. who sits out: most games in the block first (equal games).
        ranked = sorted(range(p), key=lambda a: (-games[a], -hist_games[a], rng.random()))
        sitting = sorted(ranked[: p - tables_n * table_size], key=lambda a: tiebreak[a])
        playing = ranked[p - tables_n * table_size :]
        rng.shuffle(playing)
        # Several seeded restarts of the split (cheap for small fields, where
        # the search space is tight); the lowest Σ m² wins.
        best_cost, groups = None, []
        for _ in range(max(1, int(effort * min(8, 800 // p)))):
            attempt = _split(list(playing), tables_n, table_size, met, rng, effort)
            c = sum(met[a][b] ** 2 for t in attempt for a in t for b in t if a < b)
            if best_cost is None or c < best_cost:
                best_cost, groups = c, attempt
        for group in groups:
            for a in group:
                games[a] += 1
        _count_pairs(groups, met, +1)
        out_rounds.append(groups)
        out_sitting.append(sitting)
    # Coordinate descent over the rounds: take one round out of the counts
    # and re-split it against all the others, so early rounds are not
    # decided blind (a round-by-round greedy piles repeats on the last rounds).
    if tables_n > 1 and rounds > 1:
        for _ in range(max(1, int(3 * effort))):
            before = _pair_cost(out_rounds, met)
            for groups in out_rounds:
                _count_pairs(groups, met, -1)
                groups[:] = _improve(groups, met, rng, effort)
                _count_pairs(groups, met, +1)
            if _pair_cost(out_rounds, met) >= before:
                break
    # 3. seats: a perfect spread over the block, then fitted to the history
    # (a few seeded attempts when there is one; the lowest Σ c² wins).
    best: tuple[int, list[list[list[int]]], list[list[int]]] | None = None
    for _ in range(max(1, int(6 * effort)) if history else 1):
        trial = [[list(tbl) for tbl in rnd] for rnd in out_rounds]
        counts = [list(c) for c in seatc]
        _color_seats(trial, table_size, rng, counts)
        for rnd in trial:
            for tbl in rnd:
                for seat, who in enumerate(tbl):
                    counts[who][seat] += 1
        if history:
            _kempe_improve(trial, counts, table_size)
        _polish_seats(trial, counts, rng)
        score = sum(c * c for crow in counts for c in crow)
        if best is None or score < best[0]:
            best = (score, trial, counts)
    assert best is not None
    out_rounds = best[1]
    return Schedule(
        seed=seed,
        rounds=[[[players[a] for a in t] for t in r] for r in out_rounds],
        sitting_out=[[players[a] for a in s] for s in out_sitting],
        players=players,
        table_size=table_size,
        history=[list(t) for t in history],
    )


def random_schedule(
    players: Sequence[Hashable], rounds: int, *, seed: str, table_size: int = TABLE_SIZE, balance_games: bool = False
) -> Schedule:
    """The baseline: every round a fresh shuffle; the first 10·T players sit in order.

    With `balance_games`, sit-outs rotate as in `generate` (only tables and
    seats are random), to separate the two effects in the benchmark.
    """
    players = list(players)
    p = len(players)
    if p < table_size:
        raise SeatingError(f"need at least {table_size} players, got {p}")
    rng = random.Random(f"random:{seed}")
    tables_n = p // table_size
    games = dict.fromkeys(players, 0)
    out_rounds: list[list[Table]] = []
    out_sitting: list[list[Any]] = []
    for _ in range(rounds):
        order = list(players)
        rng.shuffle(order)
        if balance_games:
            order.sort(key=lambda k: games[k])  # stable: random among equals
        cut = tables_n * table_size
        playing, sitting = order[:cut], order[cut:]
        rng.shuffle(playing)
        tables = [playing[i * table_size : (i + 1) * table_size] for i in range(tables_n)]
        for t in tables:
            for k in t:
                games[k] += 1
        out_rounds.append(tables)
        out_sitting.append(sitting)
    return Schedule(seed=seed, rounds=out_rounds, sitting_out=out_sitting, players=players, table_size=table_size)


def measure(
    players: Sequence[Hashable],
    rounds: Sequence[Sequence[Sequence[Any]]],
    *,
    table_size: int = TABLE_SIZE,
    history: Sequence[Sequence[Any]] = (),
) -> Quality:
    """Quality figures of a seating (optionally counting history tables too)."""
    players = list(players)
    idx = {k: i for i, k in enumerate(players)}
    p = len(players)
    games = [0] * p
    seatc = [[0] * table_size for _ in range(p)]
    pairs: dict[tuple[int, int], int] = {}
    all_tables = list(history) + [t for r in rounds for t in r]
    for table in all_tables:
        known = [(s, idx[k]) for s, k in enumerate(table) if k in idx]
        for s, a in known:
            games[a] += 1
            if s < table_size:
                seatc[a][s] += 1
        for i, (_, a) in enumerate(known):
            for _, b in known[i + 1 :]:
                key = (a, b) if a < b else (b, a)
                pairs[key] = pairs.get(key, 0) + 1
    seat_max = max((max(c) for c in seatc), default=0)
    excess = 0
    spread = 0.0
    for a in range(p):
        cap = math.ceil(games[a] / table_size)
        excess += sum(max(0, c - cap) for c in seatc[a])
        spread += max(seatc[a]) - min(seatc[a])
    opponents = [0] * p
    for a, b in pairs:
        opponents[a] += 1
        opponents[b] += 1
    return Quality(
        players=p,
        rounds=len(rounds),
        tables_per_round=max((len(r) for r in rounds), default=0),
        games_min=min(games, default=0),
        games_max=max(games, default=0),
        seat_max=seat_max,
        seat_ideal=math.ceil(max(games, default=0) / table_size),
        seat_excess=excess,
        seat_spread=spread / p if p else 0.0,
        pairs_met=len(pairs),
        pairs_repeated=sum(c - 1 for c in pairs.values() if c > 1),
        pair_max=max(pairs.values(), default=0),
        opponents_mean=sum(opponents) / p if p else 0.0,
    )


# --- internals ------------------------------------------------------------------


def _count_pairs(groups: list[list[int]], met: list[list[int]], sign: int) -> None:
    for group in groups:
        for a in group:
            row = met[a]
            for b in group:
                if a != b:
                    row[b] += sign


def _pair_cost(rounds: list[list[list[int]]], met: list[list[int]]) -> int:
    seen = {a for r in rounds for t in r for a in t}
    return sum(met[a][b] ** 2 for a in seen for b in seen if a < b)


def _split(
    playing: list[int], tables_n: int, size: int, met: list[list[int]], rng: random.Random, effort: float
) -> list[list[int]]:
    """Partition into tables, minimising Σ m² over pairs at one table."""
    tables: list[list[int]] = [[] for _ in range(tables_n)]
    # Greedy: players in random order; each joins the open table where the
    # added cost is lowest (ties: the emptier table, then random).
    for a in playing:
        row = met[a]
        best_t, best = -1, None
        for t, members in enumerate(tables):
            if len(members) >= size:
                continue
            cost = sum(row[b] * row[b] for b in members)
            key = (cost, len(members), rng.random())
            if best is None or key < best:
                best_t, best = t, key
        tables[best_t].append(a)
    return _improve(tables, met, rng, effort)


def _improve(tables: list[list[int]], met: list[list[int]], rng: random.Random, effort: float) -> list[list[int]]:
    if len(tables) < 2:
        return tables
    playing = [a for t in tables for a in t]
    # Local search: swap two players of different tables while the cost
    # falls. cost[a][t] = Σ m² between a and the members of table t, kept up
    # to date so a candidate swap is judged in O(1).
    where = {a: t for t, members in enumerate(tables) for a in members}
    sq = {a: [met[a][b] * met[a][b] for b in range(len(met))] for a in playing}
    cost = {a: [sum(sq[a][b] for b in members) for members in tables] for a in playing}
    for _ in range(max(1, int(30 * effort))):
        improved = False
        rng.shuffle(playing)
        for i, a in enumerate(playing):
            for b in playing[i + 1 :]:
                ta, tb = where[a], where[b]
                if ta == tb:
                    continue
                m = sq[a][b]
                ca, cb = cost[a], cost[b]
                delta = (ca[tb] - m) + (cb[ta] - m) - ca[ta] - cb[tb]
                if delta < 0:
                    ia, ib = tables[ta].index(a), tables[tb].index(b)
                    tables[ta][ia], tables[tb][ib] = b, a
                    where[a], where[b] = tb, ta
                    for z in playing:
                        cz, sz = cost[z], sq[z]
                        cz[ta] += sz[b] - sz[a]
                        cz[tb] += sz[a] - sz[b]
                    improved = True
        if not improved:
            break
    return tables


def _color_seats(rounds: list[list[list[int]]], size: int, rng: random.Random, prior: list[list[int]]) -> None:
    """Give every table of the block a seat order so that each player's seats differ.

    Seats are the colours of an edge colouring of the bipartite graph tables ×
    players (an edge = a player at a table). Every table has exactly `size`
    edges, so a proper colouring with `size` colours seats each table fully;
    a player of degree ≤ `size` then never repeats a seat (König: a bipartite
    graph of maximum degree Δ has a proper Δ-edge-colouring). A player with
    more games is split into chunks of `size` consecutive games, so no seat
    comes back before he sat on all the others (each seat ≤ ceil(G/size)).
    The colouring is built edge by edge with alternating-path (Kempe) swaps.
    """
    tables = [t for r in rounds for t in r]
    seen: dict[int, int] = {}
    edges: list[tuple[int, tuple[int, int]]] = []
    for ti, t in enumerate(tables):
        for a in t:
            n = seen.get(a, 0)
            seen[a] = n + 1
            edges.append((ti, (a, n // size)))
    at_table: list[list[Any]] = [[None] * size for _ in tables]  # colour -> chunk
    at_chunk: dict[tuple[int, int], list[Any]] = {}  # chunk -> colour -> table
    rng.shuffle(edges)
    colours = list(range(size))
    for ti, ch in edges:
        cslots = at_chunk.setdefault(ch, [None] * size)
        tslots = at_table[ti]
        rng.shuffle(colours)
        # Prefer a seat free at both ends, the one the player used least
        # before this block (`prior`: the history's seat counts).
        hist = prior[ch[0]]
        free = [c for c in colours if tslots[c] is None]
        both = [c for c in free if cslots[c] is None]
        alpha = min(both or free, key=lambda c: hist[c])
        if cslots[alpha] is not None:
            beta = next(c for c in colours if cslots[c] is None)
            # Flip the alpha/beta path that starts at the chunk; it never
            # reaches this table (bipartite), so alpha stays free here.
            path: list[tuple[int, Any, int]] = []  # (table, chunk, colour) edges to flip
            node: Any = ch
            while True:
                t_next = at_chunk[node][alpha]
                if t_next is None:
                    break
                path.append((t_next, node, alpha))
                ch_next = at_table[t_next][beta]
                if ch_next is None:
                    break
                path.append((t_next, ch_next, beta))
                node = ch_next
            for t_e, c_e, col in path:
                at_table[t_e][col] = None
                at_chunk[c_e][col] = None
            for t_e, c_e, col in path:
                new = beta if col == alpha else alpha
                at_table[t_e][new] = c_e
                at_chunk[c_e][new] = t_e
        tslots[alpha] = ch
        cslots[alpha] = ti
    for ti, t in enumerate(tables):
        t[:] = [chunk[0] for chunk in at_table[ti]]


def _chunks(tables: list[list[int]], size: int) -> list[list[tuple[int, int]]]:
    """chunk node of every seat of every table: (player, n // size) for his n-th game."""
    seen: dict[int, int] = {}
    out = []
    for t in tables:
        row = []
        for a in t:
            n = seen.get(a, 0)
            seen[a] = n + 1
            row.append((a, n // size))
        out.append(row)
    return out


def _kempe_improve(rounds: list[list[list[int]]], seatc: list[list[int]], size: int) -> None:
    """Fit the block's seats to the history without losing the block's own spread.

    A Kempe move picks two seats α, β and a connected set of tables (linked
    through players' chunks that sit on α at one table and β at another) and
    swaps seats α and β at all of them: the colouring stays proper, so no
    player repeats a seat within the block. Moves are kept while Σ c² over
    every player's seat counts (history included) falls.
    """
    tables = [t for r in rounds for t in r]
    if not tables:
        return
    pairs = [(x, y) for x in range(size) for y in range(x + 1, size)]
    for _ in range(10):
        improved = False
        chunk = _chunks(tables, size)
        for alpha, beta in pairs:
            parent = list(range(len(tables)))

            def find(i: int, parent: list[int] = parent) -> int:
                while parent[i] != i:
                    parent[i] = parent[parent[i]]
                    i = parent[i]
                return i

            on_alpha: dict[tuple[int, int], int] = {}
            on_beta: dict[tuple[int, int], int] = {}
            for ti, row in enumerate(chunk):
                on_alpha[row[alpha]] = ti
                on_beta[row[beta]] = ti
            for ch, ti in on_alpha.items():
                tj = on_beta.get(ch)
                if tj is not None:
                    parent[find(ti)] = find(tj)
            comps: dict[int, list[int]] = {}
            for ti in range(len(tables)):
                comps.setdefault(find(ti), []).append(ti)
            for members in comps.values():
                change: dict[tuple[int, int], int] = {}
                for ti in members:
                    x, y = tables[ti][alpha], tables[ti][beta]
                    for key, d in (((x, alpha), -1), ((x, beta), 1), ((y, beta), -1), ((y, alpha), 1)):
                        change[key] = change.get(key, 0) + d
                delta = sum((seatc[a][s] + d) ** 2 - seatc[a][s] ** 2 for (a, s), d in change.items() if d)
                if delta < 0:
                    for (a, s), d in change.items():
                        seatc[a][s] += d
                    for ti in members:
                        t = tables[ti]
                        t[alpha], t[beta] = t[beta], t[alpha]
                        row = chunk[ti]
                        row[alpha], row[beta] = row[beta], row[alpha]
                    improved = True
        if not improved:
            break


def _polish_seats(rounds: list[list[list[int]]], seatc: list[list[int]], rng: random.Random) -> None:
    """Swap the seats of two players at one table while Σ c² over seat counts falls."""
    tables = [t for r in rounds for t in r]
    for _ in range(20):
        improved = False
        rng.shuffle(tables)
        for t in tables:
            n = len(t)
            for i in range(n):
                for j in range(i + 1, n):
                    a, b = t[i], t[j]
                    ca, cb = seatc[a], seatc[b]
                    # a: seat i -> j; b: seat j -> i (counts after removing the current sitting)
                    delta = (ca[j] - ca[i] + 1) + (cb[i] - cb[j] + 1)
                    if delta < 0:
                        ca[i] -= 1
                        ca[j] += 1
                        cb[j] -= 1
                        cb[i] += 1
                        t[i], t[j] = b, a
                        improved = True
        if not improved:
            break
