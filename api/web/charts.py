"""The kitty history as an SVG step chart, drawn on the server (no JavaScript).

The x axis counts the kitty's changes, oldest first (change 0 is the empty kitty before
the first), or for a long history its deals or days; the y axis is the chips in the kitty
after each. The chart has a
<title> and <desc> for screen readers, and each point a <title> with its reason and rule;
the page shows the same entries as a table beside it. Inline in HTML, the <svg> needs
no namespace attribute, so the page names no outside address.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 48
INK, GRID, LINE, FILL = "#1b1f24", "#c9d1d9", "#0b57d0", "#dbe7fb"


def nice_step(span: float, ticks: int = 5) -> int:
    """A whole step of 1, 2 or 5 times a power of ten giving about `ticks` intervals."""
    raw = max(span / ticks, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return int(factor * power)
    return int(10 * power)


def kitty_chart(entries: Sequence[dict[str, Any]], *, title: str, chart_id: str = "kitty"
                ) -> Markup:
    """`entries` are the kitty's statement rows, oldest first, each with the kitty after it
    (`balance_after`, or `kitty_after` as the API names it), `change`, `rule` and `reason`.
    Returns the <svg> element, a point per change."""
    values = [int(e["kitty_after"] if "kitty_after" in e else e["balance_after"])
              for e in entries]
    tips = []
    for i, entry in enumerate(entries, start=1):
        change = int(entry["change"])
        sign = f"+{change}" if change > 0 else str(change)
        tips.append(f"Change {i}: {sign}, the kitty holds {values[i - 1]} "
                    f"({entry.get('rule')}): {entry.get('reason')}")
    n = len(values)
    desc = (f"{n} change{'s' if n != 1 else ''} of the kitty, oldest first: it went from 0 to "
            f"{values[-1]} chip{'s' if values[-1] != 1 else ''}; highest {max(0, *values)}, "
            f"lowest {min(0, *values)}." if n else "The kitty has not changed yet.")
    return step_chart([0, *values], [str(i) for i in range(n + 1)], tips, title=title,
                      desc=desc, x_label="Change number (oldest first)", chart_id=chart_id)


def kitty_chart_by(points: Sequence[tuple[str, int]], *, by: str, title: str,
                   chart_id: str = "kitty") -> Markup:
    """The kitty at the end of each deal (`by` "deal") or day ("day"), oldest first: a
    readable line however many changes there were (10,000 changes are a few hundred days
    or a few thousand deals, drawn as one path)."""
    n = len(points)
    values = [value for _, value in points]
    desc = (f"{_counted(points, by)}: it ended at {values[-1]}; highest {max(values)}, "
            f"lowest {min(values)}." if n else "No changes in this period.")
    tips = [f"{'Deal' if by == 'deal' else ''} {label}: the kitty holds {value}".strip()
            for label, value in points]
    return step_chart(values, [label for label, _ in points], tips, title=title, desc=desc,
                      x_label="Deal number" if by == "deal" else "Day (UTC)",
                      chart_id=chart_id)


BETWEEN_DEALS = "·"  # the label of a put-up or top-up between deals, a point of its own


def _counted(points: Sequence[tuple[str, int]], by: str) -> str:
    """What the points are, counted as the chart draws them: per deal, the deals (by
    number), and apart from them the put-ups between deals; per day, the days."""
    if by != "deal":
        return (f"The kitty at the end of each of {len(points)} day"
                f"{'s' if len(points) != 1 else ''}, from {points[0][0]} to {points[-1][0]}")
    deals = [label for label, _ in points if label != BETWEEN_DEALS]
    between = len(points) - len(deals)
    said = f"The kitty after each of {len(deals)} deal{'s' if len(deals) != 1 else ''}"
    if deals:
        said += f", from deal {deals[0]} to deal {deals[-1]}"
    if between:
        said += f", and after each of {between} put-up{'s' if between != 1 else ''} " \
                "between deals"
    return said


POINTS_MARKED = 200  # above this, points are not marked one by one (they would be a smear)


def step_chart(values: Sequence[int], labels: Sequence[str], tips: Sequence[str], *,
               title: str, desc: str, x_label: str, chart_id: str) -> Markup:
    """A step line of `values` (x: their index, labelled by `labels`), with a tip per point
    after the first when `tips` has one for each and there are few enough to mark."""
    n = len(values) - 1
    top, low = max(0, *values), min(0, *values)
    step = nice_step(top - low or 1)
    y_max = max(step, math.ceil(top / step) * step)
    y_min = math.floor(low / step) * step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: float) -> float:
        return LEFT + (plot_w * i / n if n > 0 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (y_max - v) / (y_max - y_min)

    out: list[str] = []
    add = out.append
    add(f'<svg class="chart" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-labelledby="{chart_id}-title {chart_id}-desc" '
        f'font-family="system-ui, sans-serif" '
        f'font-size="12" data-points="{len(values)}">')
    add(f'<title id="{chart_id}-title">{escape(title)}</title>')
    add(f'<desc id="{chart_id}-desc">{escape(desc)}</desc>')
    for value in range(y_min, y_max + 1, step):  # y grid and labels
        yy = y(value)
        add(f'<line x1="{LEFT}" y1="{yy:.1f}" x2="{WIDTH - RIGHT}" y2="{yy:.1f}" '
            f'stroke="{GRID}" stroke-width="1"/>')
        add(f'<text x="{LEFT - 8}" y="{yy + 4:.1f}" text-anchor="end" fill="{INK}">'
            f'{value}</text>')
    # x ticks: at most about six labels, so dates and five-digit numbers never overlap
    every = max(1, math.ceil(n / 6)) if n > 0 else 1
    for i in range(0, max(n, 0) + 1, every):
        xx = x(i)
        add(f'<line x1="{xx:.1f}" y1="{TOP + plot_h}" x2="{xx:.1f}" y2="{TOP + plot_h + 5}" '
            f'stroke="{INK}" stroke-width="1"/>')
        add(f'<text x="{xx:.1f}" y="{TOP + plot_h + 18}" text-anchor="middle" fill="{INK}">'
            f'{escape(labels[i]) if i < len(labels) else i}</text>')
    add(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="{INK}" '
        f'stroke-width="1.5"/>')
    add(f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - RIGHT}" y2="{TOP + plot_h}" '
        f'stroke="{INK}" stroke-width="1.5"/>')
    add(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle" '
        f'fill="{INK}">{escape(x_label)}</text>')
    add(f'<text transform="translate(14 {TOP + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle" fill="{INK}">Chips in the kitty</text>')
    if n > 0:
        path = [f"M{x(0):.1f},{y(values[0]):.1f}"]
        for i in range(1, n + 1):
            path.append(f"H{x(i):.1f}V{y(values[i]):.1f}")
        line = "".join(path)
        add(f'<path d="{line}V{y(max(y_min, 0)):.1f}H{x(0):.1f}Z" fill="{FILL}" '
            f'stroke="none"/>')
        add(f'<path class="series" d="{line}" fill="none" stroke="{LINE}" stroke-width="2" '
            f'stroke-linejoin="round"/>')
    offset = len(values) - len(tips)  # a leading point without a tip (the empty kitty)
    if len(tips) <= POINTS_MARKED:
        for i, tip in enumerate(tips, start=offset):
            add(f'<circle class="point" cx="{x(i):.1f}" cy="{y(values[i]):.1f}" r="4" '
                f'fill="{LINE}" stroke="#ffffff" stroke-width="1.5">'
                f'<title>{escape(tip)}</title></circle>')
    add("</svg>")
    return Markup("".join(out))
