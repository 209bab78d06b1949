from typing import Any

from django import template

from games.templatetags import game_words

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


# The players' pages name roles as every page does (games.vocabulary).
register.filter("role_label", game_words.role_label)


@register.filter
def split(value: str) -> list[str]:
    return value.split()


@register.filter
def role_stat(row: Any, role: str) -> tuple[int, int, float | None]:
    result: tuple[int, int, float | None] = row.role(role)
    return result
