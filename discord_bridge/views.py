"""The host's Discord panel in the console: thin views over discord_bridge.services.

Every view is the game's host's (or its tournament's organizers') alone: the
panel shows DMs' contents and the webhook URL. The panel is an include of
the console page (templates/discord_bridge/console_hook.html), refreshed by
static/js/discord.js when the host group (`game-<pk>-host`) says something
arrived.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from discord_bridge import core, services, webhook
from discord_bridge.models import ChatPost, DiscordLink, PostState, Proposal
from games import reading as game_reading
from games import services as game_services
from games.console import protocol_text as pt
from games.console.forms import ActionFormError, parse_expected_seq
from games.console.views import _editable_game, host_required
from games.models import Game
from games.rules import RuleViolation

PANEL = "discord_bridge/panel.html"
STATUS_LABELS = {
    core.OK: "",
    core.LATE: "поздно",
    core.NOT_HIS_TURN: "не его ход",
    core.REPEAT: "повтор (считается первое, N4)",
    core.MISMATCH: "не его место",
    core.UNKNOWN: "не понято",
    core.BEFORE_LINE: "до черты — не голос (V1)",
    core.AFTER_LINE: "после черты — возможное нарушение (V1), решает ведущий",
    core.WITHDRAWN: "снят отправителем",
    core.RECORDED: "уже записано",
}


def panel_context(game: Game, *, error: str = "", notice: str = "") -> dict[str, Any]:
    link = DiscordLink.objects.filter(game=game).first()
    state = game_reading.game_state(game)
    pre = services.prefill(game) if link else {"action": None, "proposal_ids": [], "step": state.step}
    proposals = services.open_proposals(game) if link else []
    action = pre["action"]
    rows: list[dict[str, Any]] = []
    for p in proposals:
        rows.append(
            {"p": p, "label": _recorded(p) or _label(p.status), "nick": _nick(game, p.seat), "edited": _edited(p)}
        )
    winks = [r for r in rows if r["p"].kind == "wink"]
    shots = []
    if action and action.get("do") == "shots":
        shots = [{"by": int(b), "target": t} for b, t in action["by"].items()]
    votes = []
    if action and action.get("do") == "votes":
        votes = [{"candidate": int(c), "voters": ",".join(str(v) for v in vs)} for c, vs in action["for"].items()]
    tally = services.vote_tally(game) if link and state.step == "voting" else None
    pluses = []
    if link and state.step == "voting":
        for p in Proposal.objects.filter(game=game, kind="plus", step_key=game.clock_key).order_by(
            "sent_at", "message_id"
        ):
            status, candidate = tally.marks.get(p.message_id, (p.status, p.target)) if tally else (p.status, p.target)
            if p.status == core.WITHDRAWN:
                status = core.WITHDRAWN
            pluses.append(
                {
                    "p": p,
                    "candidate": candidate,
                    "status": status,
                    "label": _label(status),
                    "deleted": p.deleted_at is not None,
                }
            )
    line_posted = bool(link and link.vote_key == game.clock_key and link.vote_line_at is not None)
    return {
        "game": game,
        "link": link,
        **seat_picker(game, link),
        "bot_online": services.bot_online(),
        "step": state.step,
        "nominees": list(state.nominees),
        # The ok proposals already in the pre-filled form are not listed twice.
        "rows": [r for r in rows if r["p"].kind != "wink" and not (action and r["p"].pk in pre["proposal_ids"])],
        "winks": winks,
        "action": action,
        "shots": shots,
        "votes": votes,
        "plus_marks": tally.marks if tally else {},
        "pluses": pluses,
        "line_posted": line_posted,
        "deleted_votes": services.deleted_votes(game) if link and state.step == "voting" else [],
        "webhook_masked": webhook.masked(link.webhook_url) if link else "",
        "proposal_ids": ",".join(str(i) for i in pre["proposal_ids"]),
        "failed_posts": list(
            ChatPost.objects.filter(
                game=game, state__in=[PostState.FAILED, PostState.UNCERTAIN, PostState.EXPIRED]
            ).order_by("-created_at")[:5]
        ),
        "error": error,
        "notice": notice,
    }


def seat_picker(game: Game, link: DiscordLink | None) -> dict[str, Any]:
    """The settings form's seats: the linked id, and a select of the voice channel's members,
    pre-selected with the linked member if present, else the one whose display name is the
    seat's nickname (case and ё/е aside). Names and ids: the host's eyes only."""
    nicknames = dict(game.seats.values_list("seat_no", "nickname"))
    linked = link.seat_map() if link else core.SeatMap({})
    snapshot = services.voice_snapshot(game) if link else None
    members = snapshot.voice_members() if snapshot else []
    present = {m.user_id for m in members}
    matched = core.match_seats_to_members(nicknames, members)
    rows = []
    for seat in core.SEATS:
        user = linked.user_of(seat)
        if user is not None and user in present:
            picked = user
        elif user is None and matched.get(seat) not in (None, *linked.by_seat.values()):
            picked = matched[seat]
        else:
            picked = None
        state, label = _seat_state(link, seat)
        rows.append(
            {
                "seat": seat,
                "nick": nicknames.get(seat, ""),
                "user": str(user) if user is not None else "",
                "picked": str(picked) if picked else "",
                "state": state,
                "proof": label,
            }
        )
    return {
        **link_proofs(link),
        "seats_form": rows,
        "voice_members": [{"id": str(m.user_id), "name": m.display_name} for m in members],
        "voice_taken_at": snapshot.taken_at if snapshot else None,
    }


def _label(status: str) -> str:
    text = STATUS_LABELS.get(status, status)
    return gettext(text) if text else ""


def _recorded(p: Proposal) -> str:
    """A DM for a step the host had already recorded (issue 25-3): the log's answer beside it."""
    if p.status != core.RECORDED:
        return ""
    said = str(p.target) if p.target is not None else "никого"
    if said == p.recorded:
        return gettext("уже записано: %(recorded)s — совпадает") % {"recorded": p.recorded}
    return gettext("уже записано: %(recorded)s (в сообщении: %(said)s)") % {"recorded": p.recorded, "said": said}


def link_proofs(link: DiscordLink | None) -> dict[str, Any]:
    """Issue 25-8: what is proven of the link, for the host (nothing is routed until it is)."""
    if link is None:
        return {"channels_state": [], "channels_problem": "", "channels_checking": False}
    rows = []
    for kind, channel, name in (
        ("text", link.text_channel_id, gettext("текстовый канал")),
        ("voice", link.voice_channel_id, gettext("голосовой канал")),
    ):
        if channel is None:
            continue
        how = link.channel_proof(kind)
        label = {"bot": gettext("подтверждён ботом"), "organizer": gettext("задан организатором")}.get(
            how, gettext("не подтверждён")
        )
        rows.append({"kind": kind, "name": name, "proven": bool(how), "label": label})
    return {
        "channels_state": rows,
        "channels_problem": link.channels_problem,
        "channels_checking": link.channels_check_due,
    }


def _seat_state(link: DiscordLink | None, seat: int) -> tuple[str, str]:
    """(state, label) of a seat's member: proven (by voice or «да»), pending, refused."""
    if link is None:
        return "", ""
    proof = (link.seat_proofs or {}).get(str(seat)) or {}
    if seat in link.proven_seat_map().by_seat:
        return "proven", gettext("подтверждён: в голосовом канале") if proof.get("by") == "voice" else gettext(
            "подтверждён: ответил «да»"
        )
    if link.seat_map().user_of(seat) is not None:
        if proof.get("problem"):
            return "pending", gettext("не подтверждён: %(problem)s") % {"problem": proof["problem"]}
        if proof.get("asked"):
            return "pending", gettext("не подтверждён: ждём «да» в личке")
        return "pending", gettext("не подтверждён")
    if proof.get("refused"):
        return "refused", gettext("отказался (%(user)s)") % {"user": proof["refused"]}
    return "", ""


def _edited(p: Proposal) -> str:
    """«изменено: 6 → 5» for an edited DM (the host's eyes only)."""
    if not p.edited_from or p.kind == "plus":
        return ""
    return gettext("изменено: %(before)s → %(after)s") % {"before": p.edited_from, "after": p.text}


def _nick(game: Game, seat: int | None) -> str:
    if seat is None:
        return ""
    row = game.seats.filter(seat_no=seat).values_list("nickname", flat=True).first()
    return row or ""


def _panel(request: HttpRequest, game: Game, *, error: str = "", notice: str = "", status: int = 200) -> HttpResponse:
    return render(request, PANEL, panel_context(game, error=error, notice=notice), status=status)


@never_cache  # it holds DMs and the webhook URL
@host_required
@require_GET
def panel(request: HttpRequest, pk: int) -> HttpResponse:
    return _panel(request, _editable_game(request, pk))


@host_required
@require_POST
def link_settings(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    data = request.POST
    try:
        existing = DiscordLink.objects.filter(game=game).values_list("webhook_url", flat=True).first() or ""
        typed = data.get("webhook_url") or ""
        if len(typed) > webhook.MAX_URL * 4:
            raise core.BridgeError(f"The webhook URL is longer than {webhook.MAX_URL} characters.")
        # The panel never shows the saved URL: an empty field keeps it, «-» removes it.
        url = "" if typed.strip() == "-" else (typed.strip() or existing)
        services.link_save(
            game=game,
            guild_id=_snowflake(data, "guild_id"),
            text_channel_id=_snowflake(data, "text_channel_id"),
            voice_channel_id=_snowflake(data, "voice_channel_id"),
            webhook_url=url,
            seats={str(s): _seat_user(data, s) for s in core.SEATS},
            by=request.user,
        )
    except core.BridgeError as exc:
        return _panel(request, game, error=str(exc), status=422)
    return _panel(request, game, notice=gettext("Связь с Discord сохранена."))


def _seat_user(data: QueryDict, seat: int) -> str:
    """A member picked from the voice channel wins over the typed id / @mention field."""
    picked = (data.get(f"seat_pick_{seat}") or "").strip()
    return (picked or (data.get(f"seat_{seat}") or "").strip())[:100]


def _snowflake(data: QueryDict, name: str) -> int | None:
    """One schema for Discord ids (core.parse_snowflake): ASCII digits within 64 bits, so
    SQLite and PostgreSQL answer the same 422."""
    raw = (data.get(name) or "").strip()
    if not raw:
        return None
    return core.parse_snowflake(raw[:40], name)


def _seat(raw: str | None, field: str, *, allow_none: bool = False) -> int | None:
    raw = (raw or "").strip()
    if not raw and allow_none:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ActionFormError(field, gettext("нужен номер места 1..10")) from None
    return value


def action_from_post(data: QueryDict) -> dict[str, Any]:
    """The action the host confirmed (possibly edited) in the Discord panel."""
    do = (data.get("do") or "").strip()
    if do == "shots":
        by: dict[str, int | None] = {}
        for key in data:
            if key.startswith("shot_"):
                by[key.removeprefix("shot_")] = _seat(data.get(key), key, allow_none=True)
        return {"do": "shots", "by": by}
    if do == "roles":
        mafia = [_seat(v, "mafia") for v in (data.get("mafia") or "").replace(" ", "").split(",") if v]
        return {
            "do": "roles",
            "sheriff": _seat(data.get("sheriff"), "sheriff"),
            "don": _seat(data.get("don"), "don"),
            "mafia": mafia,
        }
    if do in ("don_check", "sheriff_check"):
        return {"do": do, "target": _seat(data.get("target"), "target")}
    if do == "wink":
        return {"do": "wink", "by": _seat(data.get("by"), "by"), "target": _seat(data.get("target"), "target")}
    if do == "votes":
        votes: dict[str, list[int]] = {}
        for key in data:
            if key.startswith("for_"):
                raw = (data.get(key) or "").replace(" ", "")
                votes[key.removeprefix("for_")] = [
                    s for s in (_seat(v, key) for v in raw.split(",") if v) if s is not None
                ]
        return {"do": "votes", "for": votes}
    raise ActionFormError("do", gettext("это предложение нельзя подтвердить"))


@host_required
@require_POST
def confirm(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    try:
        expected = parse_expected_seq(request.POST)
        action = action_from_post(request.POST)
        ids = [int(i) for i in (request.POST.get("proposal_ids") or "").split(",") if i.strip().isdigit()]
        services.confirm(game=game, action=action, proposal_ids=ids, expected_seq=expected, by=request.user)
    except (RuleViolation, ActionFormError, game_services.StaleRevision) as exc:
        game.refresh_from_db()
        return _panel(request, game, error=pt.violation_text(exc), status=422)
    except services.AlreadyApplied:
        game.refresh_from_db()
        return _panel(
            request, game, error=gettext("Это предложение уже записано; повторно оно не применяется."), status=409
        )
    game.refresh_from_db()
    response = _panel(request, game, notice=gettext("Записано."))
    response["HX-Trigger"] = "discord-applied"
    return response


@host_required
@require_POST
def dismiss(request: HttpRequest, pk: int, proposal_pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    services.dismiss(game=game, proposal_id=proposal_pk)
    return _panel(request, game)


@host_required
@require_POST
def chat(request: HttpRequest, pk: int) -> HttpResponse:
    """The chat chores: «кто за N» (V2), the 5 s count before the line (V1), the fouls line (X3), a retry."""
    game = _editable_game(request, pk)
    if not DiscordLink.objects.filter(game=game).exists():
        return _panel(request, game, error=gettext("Игра не связана с Discord."), status=422)
    what = request.POST.get("what", "")
    if what == "vote_click":
        try:
            candidate = _seat(request.POST.get("candidate"), "candidate")
        except ActionFormError as exc:
            return _panel(request, game, error=pt.violation_text(exc), status=422)
        assert candidate is not None
        try:
            services.vote_click(game=game, candidate=candidate)
        except core.BridgeError as exc:
            return _panel(request, game, error=str(exc), status=422)
    elif what == "count":
        try:
            services.vote_count_start(game=game)
        except core.BridgeError as exc:
            return _panel(request, game, error=str(exc), status=422)
    elif what == "fouls":
        services.request_fouls(game=game)
    elif what == "retry" and (request.POST.get("post") or "").isdigit():
        services.retry_post(game=game, post_id=int(request.POST["post"]))
    else:
        return _panel(request, game, error=gettext("Неизвестная команда."), status=422)
    return _panel(request, game)


__all__ = ["Proposal"]
