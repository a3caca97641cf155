"""DESIGN `unsupported_claim`: a generated page states only numbers and quotes its brief gives."""

from __future__ import annotations

from typing import Any

import pytest

from gate.check import check_page
from schemas.catalog import Brand
from tests.gate.pages import ICP_SUB, codes, valid_page

BRIEF: dict[str, Any] = {
    "slug": "demo-form",
    "topic": "Shorter demo forms",
    "icp": "heads of growth at B2B SaaS companies",
    "offer": "A 2-week form audit for $9,500",
    "proof": [
        "Demo requests rose 24.8% after cutting the form from nine fields to four"
        " (n=1,240 sessions).",
        "\u201cWe cut our form to four fields and doubled qualified demos.\u201d"
        " Dana Ruiz, Head of Growth at Loomstack",
        "Replies came 3x faster.",
    ],
}


def _page_with(*blocks: dict[str, Any]) -> dict[str, Any]:
    return valid_page(
        blocks=[{"type": "hero", "title": "Shorter demo forms", "sub": ICP_SUB}, *blocks]
    )


@pytest.mark.spec("content.gate.claims")
@pytest.mark.parametrize("value", ["24.8%", "24.80 %", "3x", "3\u00d7", "$9,500", "$9500", "1,240"])
def test_a_number_from_the_brief_passes_however_it_is_written(brand: Brand, value: str) -> None:
    """DESIGN: numbers in the brief's proof (normalised) are supported."""
    page = _page_with({"type": "stats", "items": [{"value": value, "label": "measured"}]})

    assert check_page(page, brand=brand, brief=BRIEF) == []


@pytest.mark.parametrize("value", ["31%", "24.9%", "4x", "$9,000", "1,500"])
def test_a_number_not_in_the_brief_is_an_unsupported_claim(brand: Brand, value: str) -> None:
    """DESIGN: a number or percentage not found in the brief's proof."""
    page = _page_with({"type": "stats", "items": [{"value": value, "label": "measured"}]})

    assert codes(check_page(page, brand=brand, brief=BRIEF)) == [
        ("blocks.1.items.0.value", "unsupported_claim")
    ]


SCALED = BRIEF | {"proof": ["Merged 1.2 million CRM records", "$2.4M in sourced pipeline"]}


@pytest.mark.spec("content.gate.claims")
@pytest.mark.parametrize("value", ["1.2M", "1.2 million", "1.2m", "$2.4M", "$2.4 million"])
def test_a_number_keeping_the_proofs_scale_passes(brand: Brand, value: str) -> None:
    """A scale as a word or a letter is the same number: '1.2M' is the proof's '1.2 million'."""
    page = _page_with({"type": "stats", "items": [{"value": value, "label": "measured"}]})

    assert check_page(page, brand=brand, brief=SCALED) == []


@pytest.mark.spec("content.gate.claims")
@pytest.mark.parametrize("value", ["1.2", "$2.4", "1.2k", "$2.4bn"])
def test_a_number_that_drops_or_changes_the_proofs_scale_is_unsupported(
    brand: Brand, value: str
) -> None:
    """'1.2' where the proof says '1.2 million' is not the proof's number."""
    page = _page_with({"type": "stats", "items": [{"value": value, "label": "records merged"}]})

    assert codes(check_page(page, brand=brand, brief=SCALED)) == [
        ("blocks.1.items.0.value", "unsupported_claim")
    ]


def test_small_counts_in_copy_are_not_claims(brand: Brand) -> None:
    """DESIGN: bare whole numbers up to ten are ordinary copy ("3 steps")."""
    page = _page_with(
        {
            "type": "steps",
            "title": "3 steps in 2 weeks",
            "items": [{"title": "One", "body": "Call 1"}],
        }
    )

    assert check_page(page, brand=brand, brief=BRIEF) == []


def test_a_quote_from_the_proof_passes_and_an_invented_one_fails(brand: Brand) -> None:
    """DESIGN: a quote not found in the brief's proof is an unsupported claim."""
    real = _page_with(
        {"type": "quote", "quote": "We cut our form to four fields and doubled qualified demos."}
    )
    invented = _page_with({"type": "quote", "quote": "Best partner we ever hired."})
    inline = _page_with(
        {"type": "richtext", "markdown": 'Clients say "they are the best partner we ever hired".'}
    )

    assert check_page(real, brand=brand, brief=BRIEF) == []
    assert codes(check_page(invented, brand=brand, brief=BRIEF)) == [
        ("blocks.1.quote", "unsupported_claim")
    ]
    assert codes(check_page(inline, brand=brand, brief=BRIEF)) == [
        ("blocks.1.markdown", "unsupported_claim")
    ]


def test_without_a_brief_claims_are_not_checked(brand: Brand) -> None:
    """DESIGN: `unsupported_claim` is for generated pages only."""
    page = _page_with({"type": "stats", "items": [{"value": "31%", "label": "measured"}]})

    assert check_page(page, brand=brand) == []


def test_a_brief_may_be_a_pydantic_model(brand: Brand) -> None:
    """The generation pipeline passes its validated brief model."""
    from pydantic import BaseModel

    class Brief(BaseModel):
        icp: str
        proof: list[str]

    page = _page_with({"type": "stats", "items": [{"value": "31%", "label": "measured"}]})

    issues = check_page(page, brand=brand, brief=Brief(icp=BRIEF["icp"], proof=["31% more demos"]))

    assert issues == []
