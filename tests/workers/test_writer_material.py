"""The built-in writer's material beyond the brief and the company record (the company's
research, blog and careers), and its own promises said without the universal words the gate
warns on."""

from __future__ import annotations

from typing import Any

import pytest

from frontdoor.generation_wiring import build_author
from frontdoor.settings import Settings
from gate.check import check_page
from schemas.content.jobs import GenerationBrief
from tests.workers.briefs import BRIEFS
from tests.workers.test_copy_quality import CATALOG, TERMS, WRITER
from workers.authoring.library import library_of
from workers.authoring.template import TemplateWriter

BRIEF = GenerationBrief(
    slug="landing-tests",
    topic="Landing page experiments for B2B SaaS",
    icp="Heads of growth at Series B SaaS",
    offer="We run landing page tests for your paid traffic.",
    sections=["Buyer approval", "Hiring", "Integrations"],
    goal="Book a call",
)


def prose(writer: TemplateWriter) -> dict[str, str]:
    page = writer.write(BRIEF, brand=CATALOG.brand, company=CATALOG.company, feedback=None)
    return {b["title"]: b["markdown"] for b in page["blocks"] if b["type"] == "richtext"}


def test_a_heading_the_blog_or_careers_answer_is_written_from_them_and_others_stay_out() -> None:
    """Ranked by the same BM25 relevance and floor as the brief and the company record."""
    library = library_of(CATALOG)

    written = prose(TemplateWriter(library=library))
    notes = TemplateWriter(library=library).brief_notes(
        BRIEF, brand=CATALOG.brand, company=CATALOG.company
    )

    assert written["Buyer approval"] in library.blog
    assert written["Hiring"] in library.careers
    assert "Integrations" not in written
    assert [n.field for n in notes] == ["sections.2"]


def test_without_the_library_the_headings_only_it_answers_are_left_out() -> None:
    written = prose(TemplateWriter())

    assert "Hiring" not in written
    assert written["Buyer approval"] not in library_of(CATALOG).blog


def test_the_served_built_in_writer_draws_on_the_catalogs_library() -> None:
    writer = build_author(Settings(), catalog=CATALOG)

    assert isinstance(writer, TemplateWriter)
    assert writer.library == library_of(CATALOG)


@pytest.mark.parametrize("raw", BRIEFS, ids=lambda raw: raw["slug"])
def test_the_writers_own_copy_carries_no_gate_warning_from_any_angle(raw: dict[str, Any]) -> None:
    """The writer says its promises plainly ("checks each output", "you keep the copy")
    rather than with a universal the gate warns on."""
    brief = GenerationBrief.model_validate(raw)

    for angle in range(4):
        writer = TemplateWriter(angle=angle, library=WRITER.library)
        page = writer.write(brief, brand=CATALOG.brand, company=CATALOG.company, feedback=None)
        issues = check_page(page, brand=CATALOG.brand, brief=brief, published=TERMS)

        assert [(i.field, i.code) for i in issues] == []
