"""Organizer forms: the tournament, participants, seating, scoring policy, extra points."""

from __future__ import annotations

from dataclasses import fields as dc_fields
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from games.rules.regulations import LIFT_MAJORITIES, Regulations
from tournaments.scoring import DEFAULT_PRESET, PRESETS, TIEBREAKERS, ScoringPolicy

PRESET_LABELS = {
    "cristalix": _("Cristalix (победа 1, ЛХ 0.25/0.5, Ci 0.5+0.5, штрафы за удаление и ППК)"),
    "wins_only": _("Только победы"),
    "club": _("Клубный (ЛХ 0.1/0.3/0.6, Ci 0.4+0.4, серая карточка −0.2)"),
}

TIEBREAKER_LABELS = {
    "total": _("Сумма баллов"),
    "wins": _("Победы"),
    "extra": _("Доп. баллы"),
    "best_move": _("Баллы за лучший ход"),
    "ci": _("Компенсация Ci"),
    "win_rate": _("Доля побед"),
    "sheriff_wins": _("Победы шерифом"),
    "don_wins": _("Победы доном"),
    "penalties": _("Штрафы (меньше — выше)"),
    "fouls": _("Фолы (меньше — выше)"),
}

TIEBREAKER_SLOTS = 6


def preset_choices() -> list[tuple[str, Any]]:
    return [(k, PRESET_LABELS.get(k, k)) for k in PRESETS]


class TournamentCreateForm(forms.Form):
    name = forms.CharField(label=_("Название"), max_length=200)
    starts_on = forms.DateField(label=_("Начало"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    ends_on = forms.DateField(label=_("Окончание"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    preset = forms.ChoiceField(label=_("Система подсчёта"), choices=preset_choices, initial=DEFAULT_PRESET)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("starts_on") and data.get("ends_on") and data["ends_on"] < data["starts_on"]:
            self.add_error("ends_on", _("Окончание раньше начала."))
        return data


class TournamentSettingsForm(forms.Form):
    name = forms.CharField(label=_("Название"), max_length=200)
    starts_on = forms.DateField(label=_("Начало"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    ends_on = forms.DateField(label=_("Окончание"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    organizers = forms.CharField(label=_("Организаторы (логины через запятую)"), required=False)

    def clean_organizers(self) -> list[Any]:
        User = get_user_model()
        names = [n.strip() for n in self.cleaned_data["organizers"].replace(";", ",").split(",") if n.strip()]
        users = list(User.objects.filter(username__in=names))
        missing = sorted(set(names) - {u.username for u in users})
        if missing:
            raise forms.ValidationError(_("Нет таких пользователей: %(names)s") % {"names": ", ".join(missing)})
        return users


# The page's names of the regulations' settings (never the code names), with
# the rule each one comes from.
REGULATION_LABELS = {
    "dogovorka": _("Договорка, с (N0.3)"),
    "free_seating": _("Свободная посадка, с (N0.4)"),
    "speech": _("Речь, с (D1)"),
    "speech_short": _("Короткая речь при 3 фолах, с (F6)"),
    "tie_speech": _("Оправдательная речь, с (V8, F5)"),
    "last_word": _("Последнее слово, с (V12, N5)"),
    "mafia_shot": _("Выстрел мафии, с (N1)"),
    "don_check": _("Проверка Дона, с (N1)"),
    "sheriff_check": _("Проверка Шерифа, с (N1)"),
    "best_move": _("Лучший ход, с (N6)"),
    "tech_pause": _("Технический перерыв, с (D7)"),
    "gesture_countdown": _("Отсчёт перед жестом, с (V1)"),
    "vote_per_candidate": _("Голосование за кандидата, с (V2)"),
    "warning_at": _("Сигнал «10 секунд», с до конца (D1, T2)"),
    "winks_per_player": _("Подмигиваний на игрока (N12)"),
    "tech_pauses_per_player_round": _("Тех. перерывов на игрока за тур (D7)"),
    "tech_pauses_per_player_game": _("Тех. перерывов на игрока за игру (D7)"),
    "tech_pauses_per_round": _("Тех. перерывов за тур (D7)"),
    "tech_pauses_per_game": _("Тех. перерывов за игру (D7)"),
    "fouls_to_mute": _("Фолов до лишения речи (F2, D6)"),
    "fouls_to_remove": _("Фолов до удаления (F3)"),
    "warnings_to_remove": _("Предупреждений до удаления (F4)"),
    "best_move_seats": _("Номеров в лучшем ходе (N6)"),
    "lift_majority": _("Большинство при подъёме всех (V10)"),
    "allow_self_nomination": _("Можно выставить себя (D3)"),
    "day1_split_min": _("Ничья Дня 1: кандидатов для окончания дня (V6)"),
    "short_speech_min_players": _("Короткая речь: от игроков за столом (F6)"),
    "short_speech_max_players": _("Короткая речь: до игроков за столом (F6)"),
    "best_move_blocked_day1_leavers": _("Нет лучшего хода, если ушло в День 1 (N9)"),
    "draw_nights": _("Ночей без изменений для ничьей (W4)"),
}
LIFT_MAJORITY_LABELS = {
    "more_than_half": _("больше половины"),
    "half_or_more": _("половина или больше"),
}


class RegulationsForm(forms.Form):
    """Every setting of games.rules.Regulations, as typed fields (RULES.md INTERP lines)."""

    def __init__(self, *args: Any, initial_regs: Regulations | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        regs = initial_regs or Regulations()
        for f in dc_fields(Regulations):
            value = getattr(regs, f.name)
            label = REGULATION_LABELS.get(f.name, f.name)
            if isinstance(value, bool):
                self.fields[f.name] = forms.BooleanField(label=label, required=False, initial=value)
            elif isinstance(value, int):
                self.fields[f.name] = forms.IntegerField(label=label, min_value=0, max_value=3600, initial=value)
            elif f.name == "lift_majority":
                self.fields[f.name] = forms.ChoiceField(
                    label=label, choices=[(c, LIFT_MAJORITY_LABELS.get(c, c)) for c in LIFT_MAJORITIES], initial=value
                )
            else:
                self.fields[f.name] = forms.CharField(label=label, initial=value)

    def regulations(self) -> Regulations:
        return Regulations.from_dict(dict(self.cleaned_data))


class ParticipantsForm(forms.Form):
    text = forms.CharField(
        label=_("Список участников"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": _("Один ник на строку; можно «ник; логин»")}),
    )
    file = forms.FileField(label=_("или файл CSV / XLSX"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not (data.get("text") or "").strip() and not data.get("file"):
            raise forms.ValidationError(_("Вставьте список или выберите файл."))
        upload = data.get("file")
        if upload is not None:
            from tournaments.services import MAX_PARTICIPANTS_FILE_BYTES

            if upload.size > MAX_PARTICIPANTS_FILE_BYTES:
                self.add_error("file", _("Файл больше 1 МБ; в турнире может быть не больше 1000 участников."))
            elif not upload.name.lower().endswith((".csv", ".txt", ".xlsx", ".xlsm")):
                self.add_error("file", _("Нужен файл .csv или .xlsx."))
        return data


class StageForm(forms.Form):
    name = forms.CharField(label=_("Название этапа"), max_length=100, required=False)


class SeatingForm(forms.Form):
    rounds = forms.IntegerField(label=_("Туров"), min_value=1, max_value=60, initial=10)
    seed = forms.CharField(label=_("Зерно (пусто — случайное)"), max_length=64, required=False)
    other_tournaments = forms.BooleanField(label=_("Учитывать историю игроков из других турниров"), required=False)


class HostForm(forms.Form):
    host = forms.CharField(label=_("Ведущий (логин)"), max_length=150, required=False)

    def clean_host(self) -> Any:
        name = self.cleaned_data["host"].strip()
        if not name:
            return None
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise forms.ValidationError(_("Нет пользователя «%(name)s».") % {"name": name})
        return user


def _dec(label: Any, **kw: Any) -> forms.DecimalField:
    return forms.DecimalField(
        label=label, max_digits=6, decimal_places=2, min_value=Decimal(-100), max_value=Decimal(100), **kw
    )


class PolicyForm(forms.Form):
    """A ScoringPolicy as a form (tournaments/scoring.py; RULES.md X2, N6–N11, F15)."""

    win = _dec(_("Победа"))
    loss = _dec(_("Поражение"))
    draw = _dec(_("Ничья (W4)"))
    best_move_0 = _dec(_("ЛХ: 0 чёрных"))
    best_move_1 = _dec(_("ЛХ: 1 чёрный"))
    best_move_2 = _dec(_("ЛХ: 2 чёрных"))
    best_move_3 = _dec(_("ЛХ: 3 чёрных"))
    ci_enabled = forms.BooleanField(label=_("Компенсация Ci (N10)"), required=False)
    ci_first = _dec(_("Ci: первое значение (N11)"))
    ci_step = _dec(_("Ci: шаг прогрессии (N11)"))
    ci_red_shots_only = forms.BooleanField(
        label=_("Ci: считать только отстрелы красным в N1 (отступление от регламента, N11)"),
        help_text=_(
            "По регламенту (N11) счёт Ci растёт с каждым отстрелом игрока в N1 за этап, за какую бы команду он ни играл: "
            "отстрелянный чёрным Ci не получает (N10), но его следующий отстрел красным в этапе оплачивается на шаг выше. "
            "Эта настройка считает только отстрелы красным — это отступление от текста регламента."
        ),
        required=False,
    )
    extra_min = _dec(_("Доп. баллы: минимум"))
    extra_max = _dec(_("Доп. баллы: максимум"))
    penalty_removed_by_fouls = _dec(_("Штраф: удаление 4-м фолом (F3)"), help_text=_("Положительное число вычитается."))
    penalty_disqualified = _dec(_("Штраф: дисквалификация (F3, F4)"))
    penalty_ppk = _dec(_("Штраф: ППК (W5)"))
    penalty_grey_card = _dec(_("Штраф: серая карточка (F15), за каждую"))
    note = forms.CharField(label=_("Комментарий к изменению"), max_length=300, required=False)

    def __init__(self, *args: Any, policy: ScoringPolicy | None = None, **kwargs: Any) -> None:
        if policy is not None and "initial" not in kwargs:
            kwargs["initial"] = self.initial_from(policy)
        super().__init__(*args, **kwargs)
        choices = [("", "—")] + [(k, TIEBREAKER_LABELS.get(k, k)) for k in TIEBREAKERS]
        for i in range(TIEBREAKER_SLOTS):
            self.fields[f"tiebreaker_{i}"] = forms.ChoiceField(
                label=_("Критерий %(n)s") % {"n": i + 1}, choices=choices, required=False
            )

    @staticmethod
    def initial_from(policy: ScoringPolicy) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for f in dc_fields(ScoringPolicy):
            if f.name == "best_move":
                for i, v in enumerate(policy.best_move):
                    data[f"best_move_{i}"] = v
            elif f.name == "tiebreakers":
                for i, key in enumerate(policy.tiebreakers[:TIEBREAKER_SLOTS]):
                    data[f"tiebreaker_{i}"] = key
            else:
                data[f.name] = getattr(policy, f.name)
        return data

    def tiebreaker_fields(self) -> list[Any]:
        return [self[f"tiebreaker_{i}"] for i in range(TIEBREAKER_SLOTS)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        tbs = [data.get(f"tiebreaker_{i}") for i in range(TIEBREAKER_SLOTS)]
        tbs = [t for t in tbs if t]
        if len(set(tbs)) != len(tbs):
            raise forms.ValidationError(_("Критерий указан дважды."))
        if not tbs:
            raise forms.ValidationError(_("Нужен хотя бы один критерий."))
        if (
            data.get("extra_min") is not None
            and data.get("extra_max") is not None
            and data["extra_min"] > data["extra_max"]
        ):
            self.add_error("extra_max", _("Максимум меньше минимума."))
        data["tiebreakers"] = tuple(tbs)
        return data

    def policy(self) -> ScoringPolicy:
        d = self.cleaned_data
        return ScoringPolicy(
            win=d["win"],
            loss=d["loss"],
            draw=d["draw"],
            best_move=(d["best_move_0"], d["best_move_1"], d["best_move_2"], d["best_move_3"]),
            ci_enabled=d["ci_enabled"],
            ci_first=d["ci_first"],
            ci_step=d["ci_step"],
            ci_red_shots_only=d["ci_red_shots_only"],
            extra_min=d["extra_min"],
            extra_max=d["extra_max"],
            penalty_removed_by_fouls=d["penalty_removed_by_fouls"],
            penalty_disqualified=d["penalty_disqualified"],
            penalty_ppk=d["penalty_ppk"],
            penalty_grey_card=d["penalty_grey_card"],
            tiebreakers=d["tiebreakers"],
        )
