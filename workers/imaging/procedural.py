"""ProceduralImager: an on-brand abstract hero drawn with Pillow, seeded by the slug.

The same slug always gives the same pixels; nothing here touches the network or the clock.
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # PIL loads on the first render, not with the app (bench_startup)
    from PIL import Image, ImageDraw

WIDTH, HEIGHT = 1200, 630
_SCALE = 2  # drawn at twice the size and reduced, for smooth edges


class ProceduralImager:
    """HeroImager with no model: arcs, bands and a dot grid in the brand palette."""

    def render(self, *, slug: str, topic: str, palette: dict[str, str]) -> Image.Image:
        """A deterministic 1200x630 picture for this slug."""
        seed = int.from_bytes(hashlib.sha256(slug.encode()).digest()[:8], "big")
        rng = random.Random(seed)  # noqa: S311  # a drawing seed, not a secret
        colours = _colours(palette)
        w, h = WIDTH * _SCALE, HEIGHT * _SCALE
        from PIL import Image, ImageDraw

        picture = Image.new("RGB", (w, h), colours["paper"])
        draw = ImageDraw.Draw(picture)
        _bands(draw, rng, colours, w, h)
        _arcs(draw, rng, colours, w, h)
        _dots(draw, rng, colours, w, h)
        _mark(draw, rng, colours, w, h)
        return picture.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


def _colours(palette: dict[str, str]) -> dict[str, str]:
    defaults = {
        "paper": "#faf8f4",
        "surface": "#f1ede6",
        "line": "#ddd8cf",
        "ink": "#17212b",
        "accent": "#b3471d",
        "accent-soft": "#f6e6dc",
    }
    return {name: palette.get(name, value) for name, value in defaults.items()}


def _bands(
    draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int
) -> None:
    x = rng.randint(w // 3, w // 2)
    for fill in (c["surface"], c["accent-soft"], c["surface"]):
        width = rng.randint(w // 10, w // 5)
        slant = rng.randint(-h // 3, h // 3)
        draw.polygon([(x, 0), (x + width, 0), (x + width + slant, h), (x + slant, h)], fill=fill)
        x += width + rng.randint(w // 40, w // 12)


def _arcs(draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int) -> None:
    cx, cy = rng.randint(w // 2, w), rng.randint(0, h)
    for index in range(rng.randint(4, 7)):
        radius = h // 4 + index * rng.randint(h // 14, h // 8)
        start = rng.randint(0, 360)
        colour = c["accent"] if index % 3 == 0 else c["ink"] if index % 3 == 1 else c["line"]
        draw.arc(
            [cx - radius, cy - radius, cx + radius, cy + radius],
            start=start,
            end=start + rng.randint(90, 250),
            fill=colour,
            width=rng.choice((6, 10, 16)) * _SCALE,
        )


def _dots(draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int) -> None:
    step = rng.choice((36, 44, 52)) * _SCALE
    x0, y0 = rng.randint(w // 20, w // 8), rng.randint(h // 10, h // 4)
    cols, rows = rng.randint(5, 9), rng.randint(4, 7)
    for row in range(rows):
        for col in range(cols):
            if rng.random() < 0.18:
                continue
            r = (5 if rng.random() < 0.85 else 9) * _SCALE
            x, y = x0 + col * step, y0 + row * step
            fill = c["accent"] if rng.random() < 0.12 else c["ink"]
            draw.ellipse([x - r, y - r, x + r, y + r], fill=fill)


def _mark(draw: ImageDraw.ImageDraw, rng: random.Random, c: dict[str, str], w: int, h: int) -> None:
    # A wing-like chevron, the kestrel's silhouette reduced to two strokes.
    x, y = rng.randint(w // 12, w // 4), rng.randint(int(h * 0.68), int(h * 0.82))
    span = rng.randint(w // 10, w // 7)
    lift = rng.randint(h // 12, h // 7)
    draw.line(
        [(x, y), (x + span, y - lift), (x + 2 * span, y)],
        fill=c["accent"],
        width=18 * _SCALE,
        joint="curve",
    )
