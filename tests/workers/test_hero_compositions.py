"""Hero images distinct per page by composition, chosen from the brief, never clipped."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from workers.imaging.base import hero_files
from workers.imaging.compositions import COMPOSITIONS, composition_for
from workers.imaging.procedural import ProceduralImager

PALETTE = dict(load_catalog(Settings().content_dir).brand.palette)
TOPICS = {
    "bars": "Pipeline growth your board can see",
    "funnel": "A demo form that converts",
    "network": "Outbound to every account on the buying committee",
    "layers": "Attribution your CFO can check in the CRM",
    "stairs": "A plan and a roadmap for your first growth sprint",
    "target": "Positioning and messaging for one segment",
    "wave": "Lifecycle email sequences that earn replies",
}


@pytest.mark.parametrize(("name", "topic"), sorted(TOPICS.items()))
def test_the_topic_chooses_the_composition(name: str, topic: str) -> None:
    """The brief's words pick the drawing: a funnel for a form, bars for growth."""
    assert composition_for(topic, "any-slug").name == name


def test_every_composition_is_a_different_drawing_in_the_same_palette() -> None:
    """Distinct by composition, not only colour: same palette, different shapes."""
    pictures = [
        ProceduralImager().render(slug="page", topic=TOPICS[c.name], palette=PALETTE)
        for c in COMPOSITIONS
    ]

    for i, first in enumerate(pictures):
        for second in pictures[i + 1 :]:
            diff = ImageChops.difference(first.convert("L"), second.convert("L"))
            changed = diff.point(lambda value: 255 if value > 40 else 0).histogram()[255]
            assert changed > 0.05 * 1200 * 630


def test_a_hero_is_1200_by_630_and_its_drawing_stays_inside_the_frame() -> None:
    """Never clipped: every edge column and row is plain background."""
    for c in COMPOSITIONS:
        picture = ProceduralImager().render(slug="edge", topic=TOPICS[c.name], palette=PALETTE)
        assert picture.size == (1200, 630)
        paper = Image.new("RGB", (1200, 630), PALETTE["paper"])
        diff = ImageChops.difference(picture, paper).convert("L")
        assert diff.crop((0, 0, 1200, 20)).getbbox() is None
        assert diff.crop((0, 610, 1200, 630)).getbbox() is None
        assert diff.crop((0, 0, 20, 630)).getbbox() is None
        assert diff.crop((1180, 0, 1200, 630)).getbbox() is None


def test_the_share_image_is_a_png_first_and_webp_is_an_extra_source() -> None:
    """og:image and twitter:image read the first file, the 1200x630 PNG."""
    picture = ProceduralImager().render(slug="s", topic="x", palette=PALETTE)

    files = hero_files(picture, slug="s")

    assert files[0].content_type == "image/png"
    assert files[0].name.endswith("-1200x630.png")
    assert {f.content_type for f in files} == {"image/png", "image/webp"}
