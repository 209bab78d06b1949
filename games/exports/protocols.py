"""What a workbook needs about one game (``GameProtocol``), prepared once from the database."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from games.rules import GameState, Regulations, RuleViolation, apply_in_place, new_state

# --- prepared data -------------------------------------------------------------


@dataclass
class LogEntry:
    """One stored host action (a GameAction row), undone or not."""

    seq: int
    payload: dict[str, Any]
    created_at: datetime | None = None
    by: str = ""
    undone_at: datetime | None = None

    @property
    def undone(self) -> bool:
        return self.undone_at is not None


@dataclass
class Header:
    game_id: int | None = None
    title: str = ""
    tournament: str = ""
    stage: str = ""
    table_no: Any = None
    game_no: Any = None
    date: date | None = None
    host: str = ""


@dataclass
class GameProtocol:
    header: Header
    entries: list[LogEntry]
    state: GameState
    # seq -> (day, phase, step, speaker) of the state the action was recorded in.
    contexts: dict[int, tuple[Any, Any, Any, Any]] = field(default_factory=dict)
    # seq of the active entries by record index (record entries carry the index).
    seq_by_index: list[int] = field(default_factory=list)
    scores: dict[int, dict[str, Any]] | None = None
    error: str = ""
    # seq -> refusal of each stored action today's rules refuse (a log recorded
    # under an earlier reading, issue 21): skipped, as games.rules.replay_as_recorded.
    refused: dict[int, RuleViolation] = field(default_factory=dict)

    def entry_for_index(self, index: Any) -> LogEntry | None:
        if isinstance(index, int) and 0 <= index < len(self.seq_by_index):
            return self._by_seq().get(self.seq_by_index[index])
        return None

    def _by_seq(self) -> dict[int, LogEntry]:
        cached: dict[int, LogEntry] | None = getattr(self, "_seq_map", None)
        if cached is None:
            cached = {e.seq: e for e in self.entries}
            self._seq_map = cached
        return cached


def prepare_protocol(
    *,
    header: Header,
    entries: Sequence[LogEntry],
    regulations: Regulations | None = None,
    scores: dict[int, dict[str, Any]] | None = None,
    journal: bool = True,
) -> GameProtocol:
    """Replay the active entries once; with ``journal`` also note the state each
    action (undone ones included) was recorded in, for the «Журнал» sheet."""
    ordered = sorted(entries, key=lambda e: e.seq)
    state = new_state(regulations)
    contexts: dict[int, tuple[Any, Any, Any, Any]] = {}
    seq_by_index: list[int] = []
    refused: dict[int, RuleViolation] = {}
    for entry in ordered:
        if journal:
            contexts[entry.seq] = (state.day, state.phase, state.step, state.speaker)
        if entry.undone:
            continue
        try:
            apply_in_place(state, entry.payload)  # one state for the whole replay (no copies)
        except RuleViolation as exc:
            # A stored action today's rules refuse: skipped, the rest replays
            # (games.rules.replay_as_recorded); it keeps its record index.
            refused[entry.seq] = exc
            state.count += 1
        seq_by_index.append(entry.seq)
    return GameProtocol(
        header=header,
        entries=list(ordered),
        state=state,
        contexts=contexts,
        seq_by_index=seq_by_index,
        scores=scores,
        refused=refused,
    )


# --- reading games from the database ---------------------------------------------

_TABLE_PATH = "tournament_table__round__stage__tournament"


def _tournament_select_related() -> list[str]:
    """The tournaments app may not have its Table model yet: join only what exists."""
    from games.models import Game

    model: Any = Game
    parts = _TABLE_PATH.split("__")
    for i, name in enumerate(parts):
        try:
            f = model._meta.get_field(name)
        except Exception:  # FieldDoesNotExist: stop at what exists
            return ["__".join(parts[:i])] if i else []
        model = getattr(f, "related_model", None)
        if model is None:
            return ["__".join(parts[: i + 1])]
    return [_TABLE_PATH]


def _header_for(game: Any) -> Header:
    from django.utils import timezone

    table = getattr(game, "tournament_table", None)
    rnd = getattr(table, "round", None)
    stage = getattr(rnd, "stage", None)
    tournament = getattr(stage, "tournament", None)
    host = game.host
    host_name = (host.get_full_name() if hasattr(host, "get_full_name") else "") or host.get_username()
    when = game.created_at
    return Header(
        game_id=game.pk,
        title=game.title,
        tournament=str(getattr(tournament, "name", "") or ""),
        stage=str(getattr(stage, "name", "") or ""),
        table_no=getattr(table, "number", None),
        game_no=getattr(rnd, "number", None),
        date=timezone.localtime(when).date() if when else None,
        host=host_name,
    )


def _scores_for(game: Any) -> dict[int, dict[str, Any]] | None:
    if getattr(game, "tournament_table", None) is None:  # joined already: no query
        return None
    # The one place games imports tournaments (an exception declared in the
    # import contracts of pyproject.toml): a tournament game's protocol sheet
    # shows the points under the tournament's policy, which only tournaments
    # knows. Imported late so games.exports loads without the tournaments app.
    from tournaments.standings import game_seat_scores

    result = game_seat_scores(game)
    return {int(k): dict(v) for k, v in result.items()} if result else None


def _local_naive(value: datetime | None, tz: Any = None) -> datetime | None:
    """Local wall time without tzinfo (Excel has no time zones)."""
    if value is None:
        return None
    if value.tzinfo is not None:
        if tz is None:
            from django.utils import timezone

            tz = timezone.get_current_timezone()
        value = value.astimezone(tz)
    return value.replace(tzinfo=None, microsecond=0)


def collect_protocols(
    games: Iterable[Any],
    *,
    journal: bool = True,
    scores: dict[int, dict[int, dict[str, Any]]] | None = None,
) -> list[GameProtocol]:
    """Protocols of the given games (objects or ids), in the given order.

    Two queries for any number of games (games joined with host and
    tournament table; then all their actions as plain rows — model instances
    for thousands of actions would cost more than the workbook), plus what
    ``tournaments.scoring`` needs for tournament games when ``scores`` is not
    given."""
    from django.utils import timezone

    from games.models import Game, GameAction

    ids = [g if isinstance(g, int) else int(g.pk) for g in games]
    by_id = {g.pk: g for g in Game.objects.filter(pk__in=ids).select_related("host", *_tournament_select_related())}
    rows = (
        GameAction.objects.filter(game_id__in=list(by_id))
        .order_by("game_id", "seq")
        .values_list("game_id", "seq", "payload", "created_at", "undone_at", "created_by__username")
    )
    tz = timezone.get_current_timezone()
    entries: dict[int, list[LogEntry]] = {}
    for game_id, seq, payload, created_at, undone_at, username in rows:
        entries.setdefault(game_id, []).append(
            LogEntry(
                seq=seq,
                payload=payload,
                created_at=_local_naive(created_at, tz),
                by=username or "",
                undone_at=_local_naive(undone_at, tz),
            )
        )
    out = []
    for game_id in ids:
        game = by_id.get(game_id)
        if game is None:
            raise Game.DoesNotExist(f"game {game_id} does not exist")
        regulations = Regulations.from_dict(game.regulations) if game.regulations else None
        game_scores = scores.get(game_id) if scores is not None else _scores_for(game)
        header = _header_for(game)
        game_entries = entries.get(game_id, [])
        if game_entries and game_entries[0].created_at is not None:
            # The day the game was played: its first action (local time), not
            # the day the game row was created or its log imported.
            header.date = game_entries[0].created_at.date()
        out.append(
            prepare_protocol(
                header=header, entries=game_entries, regulations=regulations, scores=game_scores, journal=journal
            )
        )
    return out


def export_log(game: Any) -> dict[str, Any]:
    """The protocol log of FORMAT.md (what ``manage.py export_log`` prints)."""
    from games.reading import game_export_log

    return game_export_log(game=game)
