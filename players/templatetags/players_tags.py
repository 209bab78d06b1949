from typing import Any

from django import template
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def rating(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}"


@register.filter
def signed(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:+.1f}".replace("-", "−")


@register.filter
def percent_of(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "—"


@register.filter
def role_label(role: str) -> str:
    return {"civilian": _("Мирный"), "sheriff": _("Шериф"), "mafia": _("Мафия"), "don": _("Дон")}.get(role, role)


@register.filter
def split(value: str) -> list[str]:
    return value.split()


@register.filter
def role_stat(row: Any, role: str) -> tuple[int, int, float | None]:
    result: tuple[int, int, float | None] = row.role(role)
    return result
