"""The hero image port: one method from a page's slug and topic to a 1200x630 picture.

`hero_files` turns that picture into the stored files: 1200x630 and 600x315, PNG and WebP,
named by slug and a digest of the pixels, so a retried upload rewrites the same names. The
1200x630 PNG comes first: it is the page's hero URL and its share image (link previews such as
LinkedIn's may not show WebP); WebP is an extra source for the page itself.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # PIL loads on the first render, not with the app (bench_startup)
    from PIL import Image

SIZES: tuple[tuple[int, int], ...] = ((1200, 630), (600, 315))
FORMATS: tuple[tuple[str, str, str], ...] = (
    ("png", "PNG", "image/png"),
    ("webp", "WEBP", "image/webp"),
)


class ImageModelError(Exception):
    """The image model failed or refused; the job goes on without a hero image."""


class HeroImager(Protocol):
    """Draws or generates a hero picture."""

    def render(self, *, slug: str, topic: str, palette: dict[str, str]) -> Image.Image:
        """A 1200x630 RGB picture. Raises: ImageModelError."""


@dataclass(frozen=True)
class HeroFile:
    """One stored rendition."""

    name: str
    data: bytes
    content_type: str
    width: int
    height: int


def hero_files(picture: Image.Image, *, slug: str) -> list[HeroFile]:
    """Every rendition of `picture`, the 1200x630 PNG first."""
    master = _fit(picture.convert("RGB"), SIZES[0])
    digest = hashlib.sha256(master.tobytes()).hexdigest()[:12]
    files = []
    for width, height in SIZES:
        sized = (
            master if (width, height) == master.size else master.resize((width, height), _lanczos())
        )
        for ext, pil_format, content_type in FORMATS:
            buffer = io.BytesIO()
            options = {"quality": 86, "method": 4} if pil_format == "WEBP" else {"optimize": True}
            sized.save(buffer, format=pil_format, **options)
            files.append(
                HeroFile(
                    name=f"hero/{slug}/{digest}-{width}x{height}.{ext}",
                    data=buffer.getvalue(),
                    content_type=content_type,
                    width=width,
                    height=height,
                )
            )
    return files


def _fit(picture: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Centre-crop to the aspect ratio of `size`, then resize to it."""
    if picture.size == size:
        return picture
    width, height = picture.size
    target = size[0] / size[1]
    if width / height > target:
        new_width = round(height * target)
        left = (width - new_width) // 2
        picture = picture.crop((left, 0, left + new_width, height))
    else:
        new_height = round(width / target)
        top = (height - new_height) // 2
        picture = picture.crop((0, top, width, top + new_height))
    return picture.resize(size, _lanczos())


def _lanczos() -> Image.Resampling:
    from PIL import Image

    return Image.Resampling.LANCZOS
