"""`points`: a score with no needless zeros (2, 0,5, 0,25), in the page's locale.
`score`: a score as the workbook writes it (games.exports.cells.POINTS_FORMAT):
two decimals and the typographic minus (−0,50), for the standings table."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils import formats

register = template.Library()


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


@register.filter
def score(value: Any) -> str:
    """Two decimals in the page's locale, negatives with "−" (U+2212): the number
    format of the standings sheet of the workbook."""
    if value is None or value == "":
        return ""
    try:
        d = Decimal(str(value)).quantize(Decimal("0.01"))
    except (InvalidOperation, ValueError):
        return str(value)
    text = str(formats.number_format(abs(d), decimal_pos=2))
    return f"\u2212{text}" if d < 0 else text


@register.filter
def negate(value: Any) -> Any:
    """−value (penalties are stored positive and shown as a deduction)."""
    try:
        return -Decimal(str(value))
    except (InvalidOperation, ValueError):
        return value
