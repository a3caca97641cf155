"""The built-in writer's composer as a table: the plan decides each block's material before any
block is written, so the order the writers run in cannot change the page."""

from __future__ import annotations

import random
from typing import Any

import pytest

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from schemas.content.jobs import GenerationBrief
from schemas.content.pages import PageBlock
from tests.workers.briefs import BRIEFS
from tests.workers.heading_briefs import HEADING_BRIEFS
from workers.authoring.blocks import WRITERS, write_block
from workers.authoring.composer import compose_page, page_payload
from workers.authoring.plan import plan_page

CATALOG = load_catalog(Settings().content_dir)


@pytest.mark.parametrize("raw", BRIEFS + HEADING_BRIEFS[:12], ids=lambda raw: raw["slug"])
def test_writing_the_blocks_in_a_shuffled_order_gives_the_same_page(raw: dict[str, Any]) -> None:
    """Each block's writer reads only the material the plan gave it."""
    brief = GenerationBrief.model_validate(raw)
    plan = plan_page(brief, brand=CATALOG.brand, company=CATALOG.company)
    in_order = compose_page(brief, brand=CATALOG.brand, company=CATALOG.company).payload
    order = list(range(len(plan.materials)))
    random.Random(brief.slug).shuffle(order)  # noqa: S311  # a fixed shuffle per brief
    if order == sorted(order):  # a shuffle may leave a short page as it was
        order.reverse()

    written: dict[int, PageBlock] = {i: write_block(plan.materials[i]) for i in order}
    shuffled = page_payload(plan, [written[i] for i in range(len(plan.materials))])

    assert order != sorted(order)
    assert shuffled == in_order


def test_every_block_kind_of_a_page_has_a_writer_returning_its_model() -> None:
    """schemas/content/pages.py's block models are what the writers return."""
    kinds = set()
    for raw in BRIEFS:
        brief = GenerationBrief.model_validate(raw)
        for material in plan_page(brief, brand=CATALOG.brand, company=CATALOG.company).materials:
            block = write_block(material)
            kinds.add(material.kind)

            assert block.type == material.kind

    assert kinds <= set(WRITERS)
    assert {"hero", "features", "steps", "richtext", "faq", "stats", "quote", "cta"} <= kinds
