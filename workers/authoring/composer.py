"""The built-in writer's composer: a brief in, a page payload and the writer's notes out.

The plan (plan.py) decides every block's material before any block is written; each block is
then written by its kind's writer (blocks.py) into its model, and the page is dumped once, at
the end. What the plan draws on is made beside it: the brief read once (desk.py), the pool and
its screen (material.py), the proof sorted into quotes, stats and prose (proof.py), the agents
a brief is about (agents.py), the brief's own timeline (scope.py). `goal` only steers (the
request, the form); it is never printed. The same brief always gives the same page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from schemas.content.pages import PageBlock
from schemas.public import Company
from workers.authoring.agents import name_strangers
from workers.authoring.blocks import dump_blocks, write_block
from workers.authoring.library import Library
from workers.authoring.plan import PagePlan, plan_page
from workers.authoring.promises import unpromise_page
from workers.brief_fields import with_brief_fields

MAX_BLOCKS = 30


@dataclass(frozen=True)
class ComposedPage:
    payload: dict[str, Any]  # SitePageInput shape
    notes: tuple[BriefNote, ...]  # sections left out and a goal the page cannot serve


def compose_page(
    brief: GenerationBrief,
    *,
    brand: Brand,
    company: Company,
    angle: int = 0,
    library: Library | None = None,
) -> ComposedPage:
    """The built-in page for `brief` from `angle` (desk.py), drawing also on the company's
    research, blog and careers (`library`): planned, each block written, dumped once."""
    plan = plan_page(brief, brand=brand, company=company, angle=angle, library=library)
    blocks = [write_block(material) for material in plan.materials]
    return ComposedPage(payload=page_payload(plan, blocks), notes=plan.notes)


def page_payload(plan: PagePlan, blocks: Sequence[PageBlock]) -> dict[str, Any]:
    """The page payload of a plan and its written blocks (in the plan's order)."""
    dumped = dump_blocks(blocks)
    name_strangers(dumped, plan.agents)
    # The writer's own promises, said without the universal words the gate warns on.
    dumped = unpromise_page(dumped, stated=plan.stated)
    payload: dict[str, Any] = {"title": plan.title, "blocks": dumped[:MAX_BLOCKS]}
    if plan.button is not None:
        payload["cta_label"], payload["cta_href"] = plan.button.label, plan.button.href
    if plan.description:
        payload["description"] = plan.description
    return with_brief_fields(payload, plan.brief, live=True)
