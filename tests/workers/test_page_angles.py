"""Variants of one brief from the built-in writer: `angle` 0 is the page as it always was, 1
another headline, 2 another proof first, 3 another voice; every variant is gated like any page."""

from __future__ import annotations

from typing import Any

import pytest

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from gate.check import check_page
from schemas.content.jobs import GenerationBrief
from schemas.errors import errors_of
from tests.workers.briefs import BRIEFS
from workers.authoring.pricing import company_terms
from workers.authoring.template import TemplateWriter

CATALOG = load_catalog(Settings().content_dir)
PUBLISHED = company_terms(CATALOG.company)
BRIEF = GenerationBrief(
    slug="pipeline-review",
    topic="A pipeline review your board trusts",
    icp="CFOs at Series B SaaS companies",
    offer="We rebuild your pipeline report from CRM data in one week. You keep the model.",
    proof=["Reviewed 1,200 open deals in 5 days", "Cut forecast error from 28% to 11%"],
    tone="direct",
    goal="Book a call",
)


def write(brief: GenerationBrief, angle: int) -> dict[str, Any]:
    writer = TemplateWriter(angle=angle)
    return writer.write(brief, brand=CATALOG.brand, company=CATALOG.company, feedback=None)


def test_four_angles_of_one_brief_give_four_distinct_hero_headlines_each_passing_the_gate() -> None:
    """A variant's hero is visibly another one."""
    pages = [write(BRIEF, angle) for angle in range(4)]

    heroes = [page["blocks"][0]["title"] for page in pages]
    assert len(set(heroes)) == 4
    assert heroes[2] in BRIEF.proof  # another proof first
    for page in pages:
        assert (
            errors_of(check_page(page, brand=CATALOG.brand, brief=BRIEF, published=PUBLISHED)) == []
        )


def test_angle_zero_is_the_page_the_writer_always_gave() -> None:
    assert write(BRIEF, 0) == TemplateWriter().write(
        BRIEF, brand=CATALOG.brand, company=CATALOG.company, feedback=None
    )


@pytest.mark.parametrize("raw", BRIEFS, ids=lambda raw: raw["slug"])
def test_every_angle_of_each_brief_passes_the_gate_with_its_own_hero(raw: dict[str, Any]) -> None:
    brief = GenerationBrief.model_validate(raw)

    pages = [write(brief, angle) for angle in range(4)]

    assert len({page["blocks"][0]["title"] for page in pages}) == 4
    for page in pages:
        issues = check_page(page, brand=CATALOG.brand, brief=brief, published=PUBLISHED)
        assert errors_of(issues) == []


def test_the_voice_variant_is_written_in_another_voice_and_says_so() -> None:
    writer = TemplateWriter(angle=3)

    notes = writer.brief_notes(BRIEF, brand=CATALOG.brand, company=CATALOG.company)

    assert [(n.field, n.code) for n in notes if n.field == "tone"] == [("tone", "not_used")]
    assert "warm voice" in notes[-1].message


def test_an_angle_outside_zero_to_three_is_refused() -> None:
    with pytest.raises(ValueError, match="angle must be 0 to 3"):
        TemplateWriter(angle=4)
