"""ProceduralImager: an on-brand hero drawn with Pillow, its composition chosen from the topic.

Each composition (workers/imaging/compositions.py) is its own drawing; the slug seeds its
proportions. Everything stays inside a margin of the 1200x630 frame, so no edge of the drawing
is cut. The same slug and topic always give the same pixels; no network, no clock.
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # PIL loads on the first render, not with the app (bench_startup)
    from collections.abc import Callable

    from PIL import Image, ImageDraw

    Draw = Callable[[ImageDraw.ImageDraw, random.Random, dict[str, str], int, int], None]

from workers.imaging.compositions import composition_for

WIDTH, HEIGHT = 1200, 630
_SCALE = 2  # drawn at twice the size and reduced, for smooth edges


class ProceduralImager:
    """HeroImager with no model: one of seven compositions in the brand palette."""

    def render(self, *, slug: str, topic: str, palette: dict[str, str]) -> Image.Image:
        """A deterministic 1200x630 picture for this slug and topic."""
        seed = int.from_bytes(hashlib.sha256(f"{slug}\n{topic}".encode()).digest()[:8], "big")
        rng = random.Random(seed)  # noqa: S311  # a drawing seed, not a secret
        colours = _colours(palette)
        w, h = WIDTH * _SCALE, HEIGHT * _SCALE
        from PIL import Image, ImageDraw

        picture = Image.new("RGB", (w, h), colours["paper"])
        draw = ImageDraw.Draw(picture)
        _backdrop(draw, rng, colours, w, h)
        _DRAWINGS[composition_for(topic, slug).name](draw, rng, colours, w, h)
        return picture.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


def _colours(palette: dict[str, str]) -> dict[str, str]:
    defaults = {
        "paper": "#faf8f4",
        "surface": "#f1ede6",
        "line": "#ddd8cf",
        "ink": "#17212b",
        "muted": "#5a6470",
        "accent": "#b3471d",
        "accent-soft": "#f6e6dc",
    }
    return {name: palette.get(name, value) for name, value in defaults.items()}


def _backdrop(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    """A soft panel and a faint grid, the same family on every page."""
    m = w // 24
    draw.rounded_rectangle([m, m, w - m, h - m], radius=m, fill=c["surface"])
    step = rng.choice((60, 72, 84)) * _SCALE
    for x in range(2 * m, w - 2 * m, step):
        draw.line([(x, 2 * m), (x, h - 2 * m)], fill=c["line"], width=_SCALE)


def _bars(draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int) -> None:
    count = rng.randint(5, 8)
    left, right, base, top = w * 0.14, w * 0.86, h * 0.8, h * 0.2
    gap = (right - left) / count
    points = []
    for i in range(count):
        height = (base - top) * (0.25 + 0.75 * (i + rng.random() * 0.6) / count)
        x0 = left + i * gap + gap * 0.18
        x1 = x0 + gap * 0.64
        fill = c["accent"] if i == count - 1 else c["ink"] if i % 2 else c["muted"]
        draw.rounded_rectangle([x0, base - height, x1, base], radius=10 * _SCALE, fill=fill)
        points.append(((x0 + x1) / 2, base - height - 28 * _SCALE))
    draw.line(points, fill=c["accent"], width=8 * _SCALE, joint="curve")
    draw.line([(left, base), (right, base)], fill=c["ink"], width=4 * _SCALE)


def _funnel(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    bands = rng.randint(4, 6)
    cx = w * rng.uniform(0.45, 0.55)
    top, bottom = h * 0.16, h * 0.74
    band = (bottom - top) / bands
    for i in range(bands):
        half_top = w * 0.34 * (1 - i / (bands + 0.6))
        half_bottom = w * 0.34 * (1 - (i + 1) / (bands + 0.6))
        y0, y1 = top + i * band, top + (i + 1) * band - 8 * _SCALE
        fill = c["ink"] if i % 2 == 0 else c["muted"]
        draw.polygon(
            [
                (cx - half_top, y0),
                (cx + half_top, y0),
                (cx + half_bottom, y1),
                (cx - half_bottom, y1),
            ],
            fill=fill,
        )
    r = 22 * _SCALE
    draw.ellipse([cx - r, h * 0.8 - r, cx + r, h * 0.8 + r], fill=c["accent"])


def _network(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    nodes = [
        (rng.uniform(w * 0.12, w * 0.88), rng.uniform(h * 0.18, h * 0.82))
        for _ in range(rng.randint(14, 20))
    ]
    for i, (x, y) in enumerate(nodes):
        near = sorted(nodes, key=lambda p: (p[0] - x) ** 2 + (p[1] - y) ** 2)[1:3]
        for nx, ny in near:
            draw.line([(x, y), (nx, ny)], fill=c["line"] if i % 3 else c["muted"], width=3 * _SCALE)
    for i, (x, y) in enumerate(nodes):
        r = (14 if i % 5 else 24) * _SCALE
        draw.ellipse([x - r, y - r, x + r, y + r], fill=c["accent"] if i % 5 == 0 else c["ink"])


def _layers(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    fills = (c["muted"], c["ink"], c["accent-soft"])
    for i, fill in enumerate(fills):
        dx = rng.uniform(-w * 0.04, w * 0.04) * (2 - i)
        x0, y0 = w * 0.16 + dx + i * w * 0.03, h * 0.2 + i * h * 0.08
        draw.rounded_rectangle([x0, y0, x0 + w * 0.5, y0 + h * 0.46], radius=18 * _SCALE, fill=fill)
    x0, y0 = w * 0.52, h * 0.3
    for row in range(4):
        y = y0 + row * h * 0.11
        draw.rounded_rectangle(
            [x0, y, x0 + w * 0.3, y + h * 0.07], radius=8 * _SCALE, fill=c["paper"]
        )
        draw.line(
            [
                (x0 + w * 0.02, y + h * 0.035),
                (x0 + w * 0.035, y + h * 0.05),
                (x0 + w * 0.06, y + h * 0.02),
            ],
            fill=c["accent"],
            width=6 * _SCALE,
        )


def _stairs(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    steps = rng.randint(4, 6)
    left, base = w * 0.14, h * 0.8
    width = w * 0.62 / steps
    rise = h * 0.5 / steps
    for i in range(steps):
        x0 = left + i * width
        fill = c["ink"] if i % 2 == 0 else c["muted"]
        draw.rectangle([x0, base - (i + 1) * rise, x0 + width - 6 * _SCALE, base], fill=fill)
    fx = left + steps * width - width / 2
    fy = base - steps * rise
    draw.line([(fx, fy), (fx, fy - rise * 1.4)], fill=c["ink"], width=6 * _SCALE)
    draw.polygon(
        [(fx, fy - rise * 1.4), (fx + width * 0.7, fy - rise * 1.15), (fx, fy - rise * 0.9)],
        fill=c["accent"],
    )


def _target(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    cx, cy = w * rng.uniform(0.42, 0.58), h * 0.5
    rings = rng.randint(4, 6)
    gap = h * 0.3 / rings
    broken = rng.randrange(1, rings)
    for i in range(rings, 0, -1):
        r = gap * i
        box = [cx - r, cy - r, cx + r, cy + r]
        colour = c["ink"] if i % 2 else c["muted"]
        if i == broken:
            start = rng.randint(0, 300)
            draw.arc(box, start=start + 50, end=start + 360, fill=c["accent"], width=8 * _SCALE)
        else:
            draw.ellipse(box, outline=colour, width=8 * _SCALE)
    r = gap * 0.6
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=c["accent"])


def _wave(draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int) -> None:
    for k in range(rng.randint(3, 5)):
        amplitude = h * rng.uniform(0.08, 0.2)
        period = w * rng.uniform(0.25, 0.45)
        phase = rng.uniform(0, math.tau)
        mid = h * (0.3 + 0.12 * k)
        points = [
            (x, mid + amplitude * math.sin(phase + math.tau * (x - w * 0.1) / period))
            for x in range(int(w * 0.1), int(w * 0.9), 8 * _SCALE)
        ]
        colour = c["accent"] if k == 1 else c["ink"] if k % 2 == 0 else c["muted"]
        draw.line(points, fill=colour, width=(10 if k == 1 else 6) * _SCALE, joint="curve")


_DRAWINGS: dict[str, Draw] = {
    "bars": _bars,
    "funnel": _funnel,
    "network": _network,
    "layers": _layers,
    "stairs": _stairs,
    "target": _target,
    "wave": _wave,
}
