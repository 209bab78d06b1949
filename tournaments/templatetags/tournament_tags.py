"""`points`: a score with no needless zeros (2, 0,5, 0,25), in the page's locale;
`stage_label`: a stage name, the default one in the reader's language."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils import formats

register = template.Library()


@register.filter
def stage_label(name: Any) -> str:
    """A stage's name; the app's default («Этап 1») in the reader's language."""
    from games.titles import stage_name

    return stage_name(str(name or ""))


@register.filter
def points(value: Any) -> str:
    if value is None or value == "":
        return ""
    try:
        d = Decimal(str(value)).quantize(Decimal("0.001"))
    except (InvalidOperation, ValueError):
        return str(value)
    d = d.normalize()
    if d == d.to_integral_value():
        d = d.quantize(Decimal(1))
    places = max(0, -d.as_tuple().exponent)  # type: ignore[operator]
    return str(formats.number_format(d, decimal_pos=places))
