"""The rating history chart: a server-rendered SVG (pure: no Django).

Readable on a phone (it scales to the width of the page through its
viewBox), accessible (a <title>, a <desc> with the values in words, and each
point's value in its own <title>); the page also prints the values as a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

MAX_POINTS = 300  # the latest points drawn (older ones would be denser than a pixel on a phone)


@dataclass(frozen=True)
class Point:
    label: str  # e.g. the date of the game
    value: float


def rating_svg(
    points: Sequence[Point],
    *,
    title: str,
    desc: str,
    band: Sequence[float] = (),
    width: int = 640,
    height: int = 220,
    pad: int = 34,
    max_points: int = MAX_POINTS,
) -> str:
    """An SVG line chart of the points (the latest `max_points` only); `band`, one
    half-width per point, shades value ± half-width behind the line (how sure the
    rating is at that point: players/rating.py uncertainty)."""
    pts = list(points)[-max_points:]
    widths = list(band)[-max_points:] if band else []
    head = f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart" viewBox="0 0 {width} {height}" role="img" aria-labelledby="rating-chart-title rating-chart-desc" preserveAspectRatio="xMidYMid meet">'
    parts = [
        head,
        f'<title id="rating-chart-title">{escape(title)}</title>',
        f'<desc id="rating-chart-desc">{escape(desc)}</desc>',
    ]
    if not pts:
        parts.append("</svg>")
        return "".join(parts)
    lo = min(p.value - (widths[i] if widths else 0.0) for i, p in enumerate(pts))
    hi = max(p.value + (widths[i] if widths else 0.0) for i, p in enumerate(pts))
    if hi - lo < 20:
        mid = (hi + lo) / 2
        lo, hi = mid - 10, mid + 10
    span_x = max(1, len(pts) - 1)

    def x(i: int) -> float:
        return pad + (width - 2 * pad) * i / span_x

    def y(v: float) -> float:
        return height - pad - (height - 2 * pad) * (v - lo) / (hi - lo)

    for v in (lo, (lo + hi) / 2, hi):
        parts.append(
            f'<line class="grid" x1="{pad}" x2="{width - pad}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ccc" stroke-width="1"/>'
        )
        parts.append(
            f'<text class="axis" x="{pad - 4}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">{v:.0f}</text>'
        )
    if widths:
        upper = [f"{x(i):.1f},{y(p.value + widths[i]):.1f}" for i, p in enumerate(pts)]
        lower = [f"{x(i):.1f},{y(p.value - widths[i]):.1f}" for i, p in reversed(list(enumerate(pts)))]
        parts.append(
            f'<path class="band" d="M{" L".join(upper + lower)} Z" fill="#b22" fill-opacity="0.12" stroke="none"/>'
        )
    path = " ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f},{y(p.value):.1f}" for i, p in enumerate(pts))
    parts.append(f'<path d="{path}" fill="none" stroke="#b22" stroke-width="2"/>')
    for i, p in enumerate(pts):
        parts.append(
            f'<circle cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="3" fill="#b22"><title>{escape(p.label)}: {p.value:.0f}</title></circle>'
        )
    parts.append(f'<text class="axis" x="{pad}" y="{height - 8}" font-size="11">{escape(pts[0].label)}</text>')
    parts.append(
        f'<text class="axis" x="{width - pad}" y="{height - 8}" font-size="11" text-anchor="end">{escape(pts[-1].label)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
