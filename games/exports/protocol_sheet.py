"""The «Протокол» sheet, laid out like the FIIM paper protocol, with one voting block per Day."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openpyxl import Workbook

from games.exports.cells import (
    _Grid,
    _new_sheet,
    _page_setup,
    _styles,
    _widths,
    lines_needed,
    text_units,
)
from games.exports.labels import (
    FOUL_MARK,
    HOW_LEFT,
    LABELS,
    REMOVAL_HOWS,
    ROLE_LETTERS,
    normalize_lang,
    removal_mark,
)
from games.exports.protocols import GameProtocol
from games.exports.record import (
    _best_move_verdict,
    _check_answer,
    _int_keys,
    _left_by_seat,
    _Night,
    _nights,
    _points,
    _seat_name,
    _short_phase,
    _shot_outcome,
    _winner_text,
)
from games.rules import GameState

# --- the «Протокол» sheet ----------------------------------------------------------------

# Columns: A № | B player | C role | D–G fouls | H removal | I left | J points |
# K extra | L Ci | M best-move points | N discipline marks | O gap | P vote
# labels | Q… one column per candidate (at least _MIN_CANDIDATE_COLS; together
# at least _CANDIDATES_WIDTH wide, so a Day's notes fit beside its label —
# fewer, wider columns are fewer cells). B grows with the longest nickname,
# up to _NICK_MAX_WIDTH (then the nickname wraps and its row grows).
_PROTOCOL_WIDTHS = [6, 20, 5.5, 3.6, 3.6, 3.6, 3.6, 5.5, 18, 7, 6, 6, 6, 11, 2, 15]
_NICK_COL = 2
_NICK_MIN_WIDTH = 20.0
_NICK_MAX_WIDTH = 40.0
_LAST_LEFT_COL = 14  # the players' block: A..N
_CANDIDATE_WIDTH = 5
_CANDIDATES_WIDTH = 40
_MIN_CANDIDATE_COLS = 4
_VOTE_LABEL_COL = 16
_FIRST_CAND_COL = 17
_ROW_LINE = 13.0  # points per line of 10 pt text
_PLAYER_ROW = 16.0


def _protocol_widths(proto: GameProtocol, ncols: int) -> list[float]:
    widths = list(_PROTOCOL_WIDTHS)
    longest = max((text_units(p) for p in proto.state.players or []), default=0.0)
    # Two lines at most for the longest nickname, within the bounds.
    widths[_NICK_COL - 1] = min(_NICK_MAX_WIDTH, max(_NICK_MIN_WIDTH, longest / 2 + 2))
    return [*widths, *([_candidate_width(ncols)] * ncols)]


def _span(widths: list[float], col: int, col2: int) -> float:
    return sum(widths[col - 1 : col2])


def _candidate_width(ncols: int) -> float:
    return max(_CANDIDATE_WIDTH, round(_CANDIDATES_WIDTH / max(ncols, 1), 1))


@dataclass
class _DayBlock:
    day: int
    candidates: list[int]
    nominators: dict[int, int]
    rounds: list[dict[str, Any]]
    leaving: list[int]
    notes: list[str]


def _day_blocks(state: GameState) -> list[_DayBlock]:
    if state.status == "setup" or not state.day:
        return []
    blocks = {d: _DayBlock(d, [], {}, [], [], []) for d in range(1, int(state.day) + 1)}
    for e in state.record.nominations:
        block = blocks.get(e["day"])
        if block is not None and e.get("result") != "supported" and e["target"] not in block.candidates:
            block.candidates.append(e["target"])
            block.nominators[e["target"]] = e["by"]
    for e in state.record.votes:
        block = blocks.get(e["day"])
        if block is None:
            continue
        block.rounds.append(e)
        if e.get("outcome") == "night":
            block.notes.append("note_split")
        elif e.get("outcome") == "no_elimination":
            block.notes.append("note_no_elimination" if e.get("kind") == "lift" else "note_v11")
    for e in state.record.events:
        block = blocks.get(e.get("day"))  # type: ignore[arg-type]
        key = f"note_{e.get('kind')}"
        if block is None or key not in LABELS["ru"] or key in block.notes or key == "note_draw":
            continue
        if key == "note_no_nominees" and not block.candidates:
            continue  # the block already says «нет выставленных»
        block.notes.append(key)
    for e in state.record.penalties:
        # F7–F10: the removal that cancels a Day's vote, noted on that Day even
        # before the vote would have been held.
        block = blocks.get(e.get("cancels_vote_day"))  # type: ignore[arg-type]
        if block is not None and "note_vote_cancelled" not in block.notes:
            block.notes.append("note_vote_cancelled")
    for e in state.left:
        if e.get("phase") == "day" and e.get("how") in ("vote", "lift_vote"):
            block = blocks.get(e["day"])
            if block is not None:
                block.leaving.append(int(e["seat"]))
    return [blocks[d] for d in sorted(blocks)]


def _discipline_marks(state: GameState, lang: str) -> dict[int, str]:
    """Per seat, the compact marks of the «Дисц.» column (see the legend):
    warnings (F4), grey cards (F15), the ППК offender (W5), tech pauses (D7)."""
    L = LABELS[lang]
    warnings: dict[int, int] = {}
    grey: dict[int, int] = {}
    ppk: set[int] = set()
    for e in state.record.penalties:
        seat = e.get("seat")
        if not isinstance(seat, int):
            continue
        kind = e.get("kind")
        if kind == "warning":
            warnings[seat] = warnings.get(seat, 0) + 1
        elif kind == "grey_card":
            grey[seat] = grey.get(seat, 0) + 1
        elif kind == "ppk":
            ppk.add(seat)
    pauses: dict[int, int] = {}
    for e in state.record.tech_pauses:
        seat = e.get("seat")
        if isinstance(seat, int):
            pauses[seat] = pauses.get(seat, 0) + 1
    out: dict[int, str] = {}
    for seat in range(1, 11):
        marks = []
        if warnings.get(seat):
            marks.append(f"{L['mark_warning']}{warnings[seat]}")
        if grey.get(seat):
            marks.append(L["mark_grey"] + (str(grey[seat]) if grey[seat] > 1 else ""))
        if seat in ppk:
            marks.append(L["mark_ppk"])
        if pauses.get(seat):
            marks.append(f"{L['mark_pause']}{pauses[seat]}")
        if marks:
            out[seat] = " ".join(marks)
    return out


def _wrapped(g: _Grid, r: int, col: int, col2: int, text: Any, style: str, *, size: float = 10) -> None:
    """A merged cell whose row is as tall as its wrapped text needs."""
    g.merge(r, col, r, col2, text, style)
    lines = lines_needed(text, _span(g.widths, col, col2) * 10 / size)
    g.height(r, max(_PLAYER_ROW, lines * _ROW_LINE * size / 10 + 3))


def _generated_names(title: str, stage: str, lang: str) -> tuple[str, str]:
    """The app's generated game title and stage name in the workbook's language."""
    from django.utils.translation import override

    from games.titles import game_title, stage_name

    with override(lang):
        return game_title(title or ""), stage_name(stage or "")


def _draw_protocol(proto: GameProtocol, lang: str) -> _Grid:
    L = LABELS[lang]
    state = proto.state
    h = proto.header
    title, stage = _generated_names(h.title, h.stage, lang)
    g = _Grid()
    blocks = _day_blocks(state)
    g.ncols = max([_MIN_CANDIDATE_COLS, *(len(b.candidates) for b in blocks)])
    g.widths = _protocol_widths(proto, g.ncols)
    right = _LAST_LEFT_COL
    last = _FIRST_CAND_COL + g.ncols - 1
    g.merge(1, 1, 1, right, L["title"], "title")
    g.height(1, 24)
    g.merge(
        1,
        _VOTE_LABEL_COL,
        1,
        last,
        f"{L['game']} #{h.game_id}" + (f" — {title}" if title else "") if h.game_id else title,
        "section",
    )
    # Header: label / value pairs on three rows.
    g.merge(2, 1, 2, 2, L["tournament"], "label")
    _wrapped(g, 2, 3, 8, h.tournament, "value_bold")
    g.merge(2, 9, 2, 9, L["date"], "label")
    # The day the game was played (its first action), a real date cell.
    g.merge(2, 10, 2, right, h.date, "value_date")
    g.merge(3, 1, 3, 2, L["stage"], "label")
    _wrapped(g, 3, 3, 8, stage, "value")
    g.put(3, 9, L["table_no"], "label")
    g.put(3, 10, h.table_no, "td_bold")
    g.merge(3, 11, 3, 12, L["game_no"], "label")
    g.merge(3, 13, 3, right, h.game_no, "td_bold")
    g.merge(4, 1, 4, 2, L["host"], "label")
    _wrapped(g, 4, 3, right, h.host, "value")
    # Players.
    top = 6
    g.merge(top, 1, top + 1, 1, L["seat"], "th")
    g.merge(top, 2, top + 1, 2, L["player"], "th")
    g.merge(top, 3, top + 1, 3, L["role"], "th")
    g.merge(top, 4, top, 7, L["fouls"], "th")
    for i in range(4):
        g.put(top + 1, 4 + i, i + 1, "th")
    for col, key in (
        (8, "removed"),
        (9, "left"),
        (10, "points"),
        (11, "extra"),
        (12, "ci"),
        (13, "bm_points"),
        (14, "discipline"),
    ):
        g.merge(top, col, top + 1, col, L[key], "th")
    g.height(top + 1, 14)
    roles = _int_keys(state.roles)
    left = _left_by_seat(state)
    fouls = _int_keys(state.fouls)
    marks = _discipline_marks(state, lang)
    players = state.players or []
    nick_width = g.widths[_NICK_COL - 1]
    for seat in range(1, 11):
        r = top + 1 + seat
        nickname = players[seat - 1] if seat <= len(players) else ""
        # A long nickname wraps: the row grows with it (rows do not grow by
        # themselves when the file is opened).
        left_text = ""
        if seat in left:
            e = left[seat]
            how = e.get("how", "")
            left_text = f"{_short_phase(lang, e.get('day'), e.get('phase'))} {HOW_LEFT[lang].get(how, how)}".strip()
        lines = max(lines_needed(nickname, nick_width), lines_needed(left_text, g.widths[8]))
        g.height(r, lines * _ROW_LINE + 3 if lines > 1 else _PLAYER_ROW)
        role = roles.get(seat, "civilian")
        black = role in ("don", "mafia")
        g.put(r, 1, seat, "td_bold")
        g.put(r, 2, nickname, "td_left")
        g.put(r, 3, ROLE_LETTERS[lang].get(role, ""), "td_black" if black else "td_bold")
        n = int(fouls.get(seat, 0))
        for i in range(4):
            g.put(r, 4 + i, FOUL_MARK if i < n else None, "td_mark" if i < n else "td")
        how = (left.get(seat) or {}).get("how", "")
        g.put(r, 8, removal_mark(lang) if how in REMOVAL_HOWS else None, "td_mark" if how in REMOVAL_HOWS else "td")
        g.put(r, 9, left_text or None, "td_left")
        points, extra, ci, best_move = _points(proto, seat, lang)
        g.put(r, 10, points, "td" if isinstance(points, str) else "td_num")
        g.put(r, 11, extra, "td_num")
        g.put(r, 12, ci, "td_num")
        g.put(r, 13, best_move, "td_num")
        g.put(r, 14, marks.get(seat), "td_marks")
    r = top + 13
    # Result.
    g.merge(r, 1, r, 2, L["result"], "label")
    _wrapped(g, r, 3, right, _winner_text(state, lang), "value_bold")
    g.height(r, 18)
    # Best move: the player's seat, up to three seats, the verdict.
    r += 2
    bms = state.record.best_moves
    bm = bms[-1] if bms else None
    g.merge(r, 1, r + 1, 2, L["best_move"], "label")
    g.put(r, 3, L["bm_player"], "th")
    g.merge(r, 4, r, 6, L["bm_seats"], "th")
    g.merge(r, 7, r, right, L["bm_verdict"], "th")
    seats = list((bm or {}).get("seats") or [])
    g.put(r + 1, 3, (bm or {}).get("seat"), "td_bold")
    for i in range(3):
        g.put(r + 1, 4 + i, seats[i] if i < len(seats) else None, "td_bold")
    g.merge(r + 1, 7, r + 1, right, _best_move_verdict(bm, lang), "td_left")
    # Nights in brief (the «Ночи» sheet has the detail); wrapped text sizes its row.
    r += 3
    nights = _nights(state)
    # The Night's number in A; the shot in B, as wide as the nicknames; the
    # checks share the rest (a name of 64 characters then takes two lines).
    g.put(r, 1, L["night"], "th")
    g.put(r, 2, L["shot"], "th")
    g.merge(r, 3, r, 9, L["don_check"], "th")
    g.merge(r, 10, r, right, L["sheriff_check"], "th")
    for night in nights or [_Night(0)]:
        r += 1
        don = f"{_seat_name(state, night.don['target'])} — {_check_answer(night.don, lang)}" if night.don else ""
        sheriff = (
            f"{_seat_name(state, night.sheriff['target'])} — {_check_answer(night.sheriff, lang)}"
            if night.sheriff
            else ""
        )
        g.put(r, 1, night.night or None, "td_bold")
        _wrapped(g, r, 2, 2, _shot_outcome(state, night, lang), "td_left_9", size=9)
        _wrapped(g, r, 3, 9, don, "td_left_9", size=9)
        _wrapped(g, r, 10, right, sheriff, "td_left_9", size=9)
    # Legend of the marks.
    r += 1
    _wrapped(g, r, 1, right, L["legend"], "note", size=8)
    # Protest and the signatures: the host, and the chief judge or organizer.
    r += 2
    g.merge(r, 1, r + 1, 2, L["protest"], "label")
    g.merge(r, 3, r + 1, right, None, "value")
    r += 3
    g.merge(r, 1, r, 2, L["host"], "label")
    _wrapped(g, r, 3, 8, h.host, "value_bold")
    g.merge(r, 9, r, 10, L["signature"], "label")
    g.merge(r, 11, r, right, None, "sign")
    r += 2
    g.merge(r, 1, r, 2, L["judge"], "label")
    g.merge(r, 3, r, 8, None, "sign")
    g.merge(r, 9, r, 10, L["signature"], "label")
    g.merge(r, 11, r, right, None, "sign")
    g.height(r, 20)
    if proto.error:
        r += 2
        _wrapped(g, r, 1, right, L["replay_error"].format(error=proto.error), "small", size=8)
    if proto.refused:
        r += 2
        listed = ", ".join(f"#{seq} ({exc.rule})" for seq, exc in sorted(proto.refused.items()))
        _wrapped(g, r, 1, right, L["refused_note"].format(list=listed), "small", size=8)
    _draw_votes(g, state, blocks, lang, top, last)
    return g


def _draw_votes(g: _Grid, state: GameState, blocks: list[_DayBlock], lang: str, top: int, last: int) -> None:
    L = LABELS[lang]
    lc, fc = _VOTE_LABEL_COL, _FIRST_CAND_COL
    g.merge(top, lc, top, last, L["votes_title"], "th")
    r = top
    for block in blocks:
        r += 1
        g.put(r, lc, f"{L['day']} {block.day}", "day")
        if not block.candidates:
            g.merge(r, fc, r, last, L["no_candidates"], "day")
        else:
            col_of = {seat: fc + i for i, seat in enumerate(block.candidates[: last - fc + 1])}
            for c in range(fc, last + 1):
                g.put(r, c, None, "day_seat")
            for seat, c in col_of.items():
                g.put(r, c, seat, "td_mark" if seat in block.leaving else "day_seat")
            r += 1
            g.put(r, lc, L["nominated_by"], "label")
            for c in range(fc, last + 1):
                g.put(r, c, None, "td")
            for seat, c in col_of.items():
                g.put(r, c, block.nominators.get(seat), "td")
            revotes = 0
            for vote in block.rounds:
                r += 1
                kind = vote.get("kind")
                if kind == "lift":
                    yes = len(vote.get("yes") or [])
                    voters = yes + len(vote.get("no") or [])
                    carried = vote.get("outcome") == "leave"
                    g.put(r, lc, L["lift"], "label")
                    g.put(r, fc, yes, "td_bold")
                    _wrapped(
                        g, r, fc + 1, last, (L["lift_yes"] if carried else L["lift_no"]).format(n=voters), "td_left"
                    )
                    continue
                if kind == "revote":
                    revotes += 1
                    label = L["revote"] + (f" {revotes}" if revotes > 1 else "")
                else:
                    label = L["vote"]
                g.put(r, lc, label, "label")
                totals = _int_keys(vote.get("totals"))
                if not totals:  # count the ballots if the engine gave no totals
                    for cand in _int_keys(vote.get("ballots")).values():
                        totals[int(cand)] = totals.get(int(cand), 0) + 1
                cands = {int(c) for c in vote.get("candidates") or totals}
                for c in range(fc, last + 1):
                    g.put(r, c, None, "td")
                for seat, c in col_of.items():
                    if seat in cands:
                        g.put(r, c, int(totals.get(seat, 0)), "td_bold")
        r += 1
        g.put(r, lc, L["left_by_vote"], "label")
        # The Day still being played has no outcome yet.
        in_progress = (
            block.day == state.day and state.phase == "day" and state.status == "running" and not block.leaving
        )
        names = ", ".join(_seat_name(state, s) for s in block.leaving) or ("—" if in_progress else L["nobody"])
        _wrapped(g, r, fc, last, names, "td_left_mark" if block.leaving else "td_left")
        if block.notes:
            r += 1
            text = "; ".join(L[n] for n in block.notes)
            g.merge(r, lc, r, last, text, "note")
            # Rows do not grow by themselves when the file is opened: give a
            # long note the lines it needs (≈ 1.3 characters of 8 pt per width unit).
            room = (15 + _candidate_width(last - fc + 1) * (last - fc + 1)) * 1.3
            g.height(r, 11.5 * max(1, -(-len(text) // int(room))))


def write_protocol_sheet(workbook: Workbook, proto: GameProtocol, lang: str = "ru", title: str | None = None) -> Any:
    lang = normalize_lang(lang)
    ws = _new_sheet(workbook, title or LABELS[lang]["sheet_protocol"])
    grid = _draw_protocol(proto, lang)
    _widths(ws, grid.widths)
    ws.freeze_panes = "A6"
    _page_setup(ws)
    grid.write(ws, _styles(workbook))
    return ws
