"""Host forms: creating a game, and turning a POSTed host action into a log action.

The console posts every host action to one endpoint as plain form fields
(`do` plus that action's fields, FORMAT.md). `parse_action` checks the shape
only — seat numbers, required fields — and names the field it refuses; the
rules themselves are the engine's business (it refuses with the rule id).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from games import vocabulary
from games.rules import RuleViolation, schema
from games.rules.catalogue import reason as catalogue_reason
from games.rules.nicknames import nickname_key
from games.rules.schema import (
    MAX_NICKNAME,
    MAX_REASON,
    parse_action_json,
    validate_action,
)

SEATS = range(1, 11)
# The kinds the console posts: the schema's, which are the engine's (one list,
# derived once: tests/test_vocabulary.py); the penalties given to one seat.
PENALTY_KINDS = vocabulary.SEAT_PENALTY_KINDS
ACTION_KINDS = schema.ACTION_KINDS
MAX_NICK = MAX_NICKNAME


# What the host calls each posted field: a refusal never shows a field's code
# name (issue 12, item 4). A field not listed here is named generically.
FIELD_LABELS = {
    "players": _("Никнеймы"),
    "sheriff": _("Шериф"),
    "don": _("Дон"),
    "mafia": _("Мафия"),
    "by": _("Кто"),
    "target": _("Кого"),
    "seat": _("Место"),
    "seats": _("Лучший ход"),
    "yes": _("Голоса за подъём"),
    "mode": _("Лучший ход"),
    "team": _("Команда"),
    "reason": _("Причина"),
    "action": _("Действие"),
    "do": _("Действие"),
    "expected_seq": _("Ревизия страницы"),
}


def field_label(field: str) -> str:
    if field in FIELD_LABELS:
        return str(FIELD_LABELS[field])
    if field.startswith("shot-"):
        return gettext("Выстрел №%(seat)s") % {"seat": field[5:]}
    if field.startswith("vote-"):
        return gettext("Голос №%(seat)s") % {"seat": field[5:]}
    return gettext("Данные формы")


class ActionFormError(Exception):
    """A malformed host action: names the field in the host's words, changes nothing."""

    code = "bad_field"
    rule = "FORMAT"

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        label = field_label(field)
        self.params = {"field": label, "problem": message}
        self.message = gettext("%(field)s: %(problem)s") % {"field": label, "problem": message}
        super().__init__(self.message)


def split_nicknames(text: str) -> list[str]:
    return [line.strip() for line in (text or "").replace("\r", "").split("\n") if line.strip()]


def check_nicknames(players: list[str], field: str = "players") -> list[str]:
    if len(players) != 10:
        raise ActionFormError(
            field, gettext("нужно ровно 10 никнеймов, по одному в строке (сейчас %(n)s)") % {"n": len(players)}
        )
    too_long = [p for p in players if len(p) > MAX_NICK]
    if too_long:
        raise ActionFormError(
            field, gettext("никнейм длиннее %(n)s символов: %(nick)s") % {"n": MAX_NICK, "nick": too_long[0][:20]}
        )
    seen: set[str] = set()
    for p in players:
        # One nickname whatever its case, ё/е or Latin look-alike letters (games/rules/nicknames.py).
        if nickname_key(p) in seen:
            raise ActionFormError(field, gettext("никнейм повторяется: %(nick)s") % {"nick": p})
        seen.add(nickname_key(p))
    return players


class GameCreateForm(forms.Form):
    title = forms.CharField(label=_("Название"), max_length=200, required=False)
    players = forms.CharField(
        label=_("Игроки"),
        widget=forms.Textarea(attrs={"rows": 10, "autocomplete": "off", "spellcheck": "false"}),
        help_text=_("Десять никнеймов, по одному в строке."),
    )
    seating = forms.ChoiceField(
        label=_("Рассадка"),
        choices=[("random", _("Случайная (S1): жеребьёвка с записанным ключом")), ("typed", _("Как введено"))],
        initial="random",
        widget=forms.RadioSelect,
    )
    rated = forms.BooleanField(label=_("Рейтинговая игра: учитывается в рейтинге игроков"), required=False)

    def clean_title(self) -> str:
        # The input schema's title rule (no control characters, ≤ 200), so that
        # services.game_create never has to refuse what this form let through.
        try:
            return schema.check_title(self.cleaned_data["title"])
        except RuleViolation as exc:
            raise forms.ValidationError(_problem(exc)) from exc

    def clean_players(self) -> list[str]:
        try:
            players = check_nicknames(split_nicknames(self.cleaned_data["players"]), "players")
            return schema.check_nicknames(players)
        except ActionFormError as exc:
            raise forms.ValidationError(exc.params["problem"]) from exc
        except RuleViolation as exc:
            raise forms.ValidationError(_problem(exc)) from exc


def _problem(exc: RuleViolation) -> str:
    """The schema's refusal in the page's language."""
    language = (get_language() or "ru").lower()
    return str(exc.params.get("problem_ru" if language.startswith("ru") else "problem") or exc.message)


# --- host actions ------------------------------------------------------------------------


def _one(data: QueryDict, name: str, *, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None or value.strip() == "":
        if required:
            raise ActionFormError(name, gettext("обязательное поле"))
        return None
    return value.strip()


def _seat_value(value: Any, field: str) -> int:
    # ASCII digits only: int() would also take "١", "+3" or "1_0".
    text = str(value).strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 2):
        raise ActionFormError(field, gettext("нужен номер места 1..10"))
    n = int(text)
    if n not in SEATS:
        raise ActionFormError(field, gettext("нужен номер места 1..10"))
    return n


def _seat(data: QueryDict, name: str, *, required: bool = True) -> int | None:
    value = _one(data, name, required=required)
    return None if value is None else _seat_value(value, name)


def _seats(data: QueryDict, name: str) -> list[int]:
    out: list[int] = []
    for raw in data.getlist(name):
        for piece in str(raw).replace(";", ",").split(","):
            if piece.strip():
                out.append(_seat_value(piece, name))
    return out


def _reason(data: QueryDict) -> tuple[str | None, str | None]:
    """The reason and, for a catalogue pick, its code (F16).

    A typed reason wins over the catalogue's pick. A catalogue pick is
    stored as its Russian wording (the protocol's language is Russian, S4)
    together with its stable code (``reason_code``, an added key of the
    penalty action), so that every reader sees it in his own language.
    """
    typed = (data.get("reason_text") or "").strip()
    picked = (data.get("reason") or "").strip()
    entry = catalogue_reason(picked) if picked else None
    reason = typed or (entry["text_ru"] if entry else picked)
    if len(reason) > MAX_REASON:
        raise ActionFormError("reason", gettext("не длиннее %(n)s символов") % {"n": MAX_REASON})
    code = str(entry["code"]) if entry and not typed else None
    return reason or None, code


def _put_reason(action: dict[str, Any], data: QueryDict) -> None:
    reason, code = _reason(data)
    if reason:
        action["reason"] = reason
    if code:
        action["reason_code"] = code


def parse_action(data: QueryDict, *, index: int | None = None) -> dict[str, Any]:
    """The log action (FORMAT.md) of a POSTed host action.

    A JSON `action` field (scripts, tests, bots) is parsed with bounded work;
    otherwise the form fields of the console are read. Either way the result
    has passed the input schema (games/rules/schema.py), which refuses with
    RuleViolation "bad_action" naming the field (and `index`, the position
    the action would take in the log).
    """
    raw = data.get("action")
    if raw:
        # Untrusted JSON: bounded parsing and the input schema (keys, types,
        # limits) — exactly what the form fields below go through.
        return parse_action_json(raw, index=index)
    return validate_action(_form_action(data), index=index)


def _form_action(data: QueryDict) -> dict[str, Any]:
    do = _one(data, "do")
    if do not in ACTION_KINDS:
        raise ActionFormError("do", gettext("неизвестное действие"))
    action: dict[str, Any] = {"do": do}
    if do == "seat":
        players = data.getlist("players")
        players = split_nicknames(players[0]) if len(players) == 1 else [p.strip() for p in players]
        action["players"] = check_nicknames(players)
    elif do == "roles":
        action["sheriff"] = _seat(data, "sheriff")
        action["don"] = _seat(data, "don")
        mafia = _seats(data, "mafia")
        if len(mafia) != 2:
            raise ActionFormError("mafia", gettext("нужно два места мафии"))
        action["mafia"] = mafia
    elif do == "nominate":
        action["by"] = _seat(data, "by")
        action["target"] = _seat(data, "target")
    elif do == "votes":
        # One radio group per voter: vote-<voter> = <candidate>; an empty value
        # is "did not vote" (V4 gives it to the last candidate).
        ballots: dict[str, list[int]] = {}
        for key in data:
            if not key.startswith("vote-"):
                continue
            voter = _seat_value(key[5:], key)
            value = (data.get(key) or "").strip()
            if value:
                ballots.setdefault(str(_seat_value(value, key)), []).append(voter)
        action["for"] = {c: sorted(v) for c, v in sorted(ballots.items(), key=lambda kv: int(kv[0]))}
    elif do == "lift_vote":
        action["yes"] = sorted(set(_seats(data, "yes")))
    elif do == "shots":
        # shot-<black> = <target>, empty = named nobody (a miss, N2).
        by: dict[str, int | None] = {}
        for key in data:
            if not key.startswith("shot-"):
                continue
            black = _seat_value(key[5:], key)
            value = (data.get(key) or "").strip()
            by[str(black)] = _seat_value(value, key) if value else None
        action["by"] = dict(sorted(by.items(), key=lambda kv: int(kv[0])))
    elif do in ("don_check", "sheriff_check"):
        action["target"] = _seat(data, "target")
    elif do == "best_move":
        mode = (data.get("mode") or "seats").strip()
        if mode == "pass":
            action["pass"] = True
        elif mode == "not_accepted":
            action["accepted"] = False
        elif mode == "seats":
            seats = _seats(data, "seats")
            if len(seats) > 3:
                raise ActionFormError("seats", gettext("не больше трёх номеров (N6)"))
            action["seats"] = seats
        else:
            raise ActionFormError("mode", gettext("«Принято», «Не принят» или «Пас»"))
    elif do in PENALTY_KINDS:
        action["seat"] = _seat(data, "seat")
        _put_reason(action, data)
    elif do == "ppk":
        team = _one(data, "team")
        if team not in ("red", "black"):
            raise ActionFormError("team", gettext("красные или чёрные"))
        action["team"] = team
        seat = _seat(data, "seat", required=False)
        if seat is not None:
            action["seat"] = seat
        _put_reason(action, data)
    elif do == "wink":
        action["by"] = _seat(data, "by")
        action["target"] = _seat(data, "target")
    elif do == "tech_pause":
        action["seat"] = _seat(data, "seat")
    elif do == "annul":
        # W6: no catalogue for an annulment, so no code (the schema allows none).
        reason, _code = _reason(data)
        if reason:
            action["reason"] = reason
    return action


def parse_expected_seq(data: QueryDict) -> int:
    """The revision the page shows: required, so a stale click is always caught."""
    raw = (data.get("expected_seq") or "").strip()
    if not raw:
        raise ActionFormError("expected_seq", gettext("обязательное поле: ревизия, которую показывает страница"))
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
        raise ActionFormError("expected_seq", gettext("нужно целое число"))
    return int(raw)
