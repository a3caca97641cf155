"""The built-in template writer and the procedural hero image: no network, on brand, only proof."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from gate.check import check_page
from schemas.content.jobs import GenerationBrief
from schemas.errors import Issue
from workers.authoring.template import TemplateWriter
from workers.imaging.base import hero_files
from workers.imaging.procedural import ProceduralImager

CATALOG = load_catalog(Settings().content_dir)
BANNED = [b.phrase for b in CATALOG.brand.banned_wording]


def write(feedback: list[Issue] | None = None, **fields: Any) -> dict[str, Any]:
    base = {"slug": "audit", "topic": "A funnel audit", "icp": "Growth leads at Series B SaaS"}
    brief = GenerationBrief.model_validate({**base, **fields})
    return TemplateWriter().write(
        brief, brand=CATALOG.brand, company=CATALOG.company, feedback=feedback
    )


def copy_of(page: dict[str, Any]) -> str:
    return str(page).lower()


@pytest.mark.spec("content.generate")
def test_the_hero_sub_names_the_briefs_icp_and_the_page_passes_the_gate() -> None:
    """SPEC gate rule 2 for a generated page: the hero sub names the brief's ICP."""
    brief = GenerationBrief(
        slug="audit", topic="A funnel audit", icp="Growth leads at Series B SaaS"
    )

    page = TemplateWriter().write(
        brief, brand=CATALOG.brand, company=CATALOG.company, feedback=None
    )

    assert "growth leads at series b saas" in page["blocks"][0]["sub"].lower()
    assert check_page(page, brand=CATALOG.brand, brief=brief) == []


@pytest.mark.spec("content.generate")
def test_banned_wording_in_the_brief_never_reaches_the_page() -> None:
    """Brand rules: the writer drops or replaces every banned phrase the brief carries."""
    page = write(
        topic="A seamless, revolutionary funnel audit",
        offer="We leverage world-class agents. Guaranteed results in a turnkey package.",
        goal="Supercharge your pipeline",
    )

    text = copy_of(page)
    assert [
        phrase for phrase in BANNED if re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text)
    ] == []


@pytest.mark.spec("content.generate")
def test_numbers_outside_the_proof_are_left_out() -> None:
    """SPEC brief `proof`: a number in the offer or topic is not a fact the writer may state."""
    page = write(
        topic="Cut CAC by 40% in 30 days",
        offer="Our 12-week program. A report every Friday.",
        proof=["Cut cost per opportunity by 32% across 14 clients"],
    )

    numbers = set(re.findall(r"(?<![a-z])\d+%?", copy_of(page)))
    assert numbers <= {"32%", "32", "14"}


@pytest.mark.spec("content.generate")
def test_sections_are_followed_in_order_and_unknown_ones_become_richtext() -> None:
    """SPEC brief `sections`: the page follows them; a section the registry lacks is prose."""
    page = write(
        sections=["Questions", "How it works", "Weekly reports"],
        proof=["Cut cost per opportunity by 32% across 14 clients"],
    )

    types = [block["type"] for block in page["blocks"]]
    assert types[:4] == ["hero", "faq", "steps", "richtext"]
    assert page["blocks"][3]["title"] == "Weekly reports"


@pytest.mark.spec("content.generate")
def test_the_tone_changes_the_voice() -> None:
    """SPEC brief `tone`: formal and warm briefs read differently."""
    formal = write(tone="formal, for executives")
    warm = write(tone="warm and friendly")

    assert formal["blocks"][-1]["sub"] != warm["blocks"][-1]["sub"]


@pytest.mark.spec("content.generate")
def test_feedback_drops_the_flagged_blocks() -> None:
    """The gate's issues on a block make the template writer leave that block out."""
    first = write(proof=["Cut cost per opportunity by 32% across 14 clients"])
    stats_at = [b["type"] for b in first["blocks"]].index("stats")

    second = write(
        [Issue(field=f"blocks.{stats_at}.items.0.value", code="unsupported_claim", message="x")],
        proof=["Cut cost per opportunity by 32% across 14 clients"],
    )

    assert "stats" not in [b["type"] for b in second["blocks"]]


@settings(max_examples=25, deadline=None)
@given(
    topic=st.text(
        st.characters(codec="ascii", categories=["L", "N", "Zs", "P"]), min_size=1, max_size=120
    ),
    icp=st.sampled_from(["RevOps leads", "Heads of growth at Series A SaaS", "CMOs at fintechs"]),
    proof=st.lists(
        st.sampled_from(["Cut CAC by 32% across 14 clients", "Booked 41 meetings in 90 days"]),
        max_size=2,
    ),
)
def test_any_brief_gives_a_page_that_passes_the_gate(
    topic: str, icp: str, proof: list[str]
) -> None:
    """Whatever the topic, the template writer's page passes the gate on the first draft."""
    if not topic.strip():
        return
    brief = GenerationBrief(slug="any", topic=topic, icp=icp, proof=proof)

    page = TemplateWriter().write(
        brief, brand=CATALOG.brand, company=CATALOG.company, feedback=None
    )

    assert check_page({**page, "is_published": False}, brand=CATALOG.brand, brief=brief) == []


def test_the_hero_image_is_deterministic_per_brief_in_two_sizes_and_two_formats() -> None:
    """The procedural image: same slug and topic, same bytes; 1200x630 and 600x315, PNG first."""
    palette = dict(CATALOG.brand.palette)
    imager = ProceduralImager()

    first = hero_files(imager.render(slug="audit", topic="x", palette=palette), slug="audit")
    again = hero_files(imager.render(slug="audit", topic="x", palette=palette), slug="audit")
    other = hero_files(imager.render(slug="other", topic="x", palette=palette), slug="other")

    assert [f.data for f in first] == [f.data for f in again]
    assert first[0].data != other[0].data
    assert [(f.width, f.height, f.content_type) for f in first] == [
        (1200, 630, "image/png"),
        (1200, 630, "image/webp"),
        (600, 315, "image/png"),
        (600, 315, "image/webp"),
    ]
    assert first[0].name.startswith("hero/audit/")
