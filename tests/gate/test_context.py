"""The gate reads phrases in context: negation, customer quotes and inflating words."""

from __future__ import annotations

from typing import Any

import pytest

from gate.check import check_page
from schemas.catalog import Brand
from tests.gate.pages import ICP_SUB, codes, valid_page

BRIEF: dict[str, Any] = {
    "slug": "outbound",
    "topic": "Outbound that books meetings",
    "icp": "heads of growth at B2B SaaS companies",
    "proof": [
        "18 of 20 clients hit their pipeline target in the first quarter",
        "Reply rates rose 24% after we cut sequences to three touches",
        "\u201cIt was a game-changer for our team, and the reporting is honest.\u201d"
        " - Dana Ruiz, VP Marketing at Loomstack",
    ],
}


def _page(markdown: str) -> dict[str, Any]:
    return valid_page(
        blocks=[
            {"type": "hero", "title": "Outbound that books meetings", "sub": ICP_SUB},
            {"type": "richtext", "title": "How it works", "markdown": markdown},
        ]
    )


def _issues(markdown: str, brand: Brand) -> list[tuple[str, str]]:
    return codes(check_page(_page(markdown), brand=brand, brief=BRIEF))


@pytest.mark.spec("content.gate.brand")
@pytest.mark.parametrize(
    "copy",
    [
        "No guaranteed meeting counts: we commit to the work and the reporting.",
        "We do not promise guaranteed results.",
        "It is not a turnkey package; we need an hour of your time each week.",
    ],
)
def test_a_banned_word_the_brand_allows_negated_passes_when_negated(
    brand: Brand, copy: str
) -> None:
    """Brand rules: `allow: ["negated"]` lets "no guaranteed meetings" through."""
    assert _issues(copy, brand) == []


def test_the_same_word_unnegated_is_still_off_brand(brand: Brand) -> None:
    """A negation allowance covers the negated phrase only."""
    assert _issues("Guaranteed meetings from week one.", brand) == [
        ("blocks.1.markdown", "off_brand")
    ]


def test_without_an_allowance_the_gate_stays_strict(brand: Brand) -> None:
    """The default is strict: a rule with no `allow` refuses the negated phrase too."""
    strict = brand.model_copy(
        update={
            "banned_wording": [b.model_copy(update={"allow": []}) for b in brand.banned_wording]
        }
    )

    issues = codes(check_page(_page("No guaranteed meeting counts."), brand=strict, brief=BRIEF))

    assert issues == [("blocks.1.markdown", "off_brand")]


def test_a_banned_word_inside_the_proofs_quote_passes_where_the_brand_allows_it(
    brand: Brand,
) -> None:
    """Brand rules: `allow: ["proof_quote"]` lets a customer's own words stand."""
    page = valid_page(
        blocks=[
            {"type": "hero", "title": "Outbound that books meetings", "sub": ICP_SUB},
            {
                "type": "quote",
                "quote": "It was a game-changer for our team, and the reporting is honest",
                "who": "Dana Ruiz",
            },
        ]
    )

    assert check_page(page, brand=brand, brief=BRIEF) == []


def test_a_scare_quoted_phrase_is_not_a_customer_quote(brand: Brand) -> None:
    """Quoted words with no attribution are not presented as anyone's words."""
    assert _issues("No \u201cjust checking in\u201d emails, ever.", brand) == []


def test_quoted_words_with_an_attribution_must_come_from_the_proof(brand: Brand) -> None:
    """Quoted words with an attribution are a customer quote, so the proof must give them."""
    assert _issues("\u201cBest agency we have hired\u201d - Sam Lee, CMO at Northwind.", brand) == [
        ("blocks.1.markdown", "unsupported_claim")
    ]


def test_a_proof_quote_matches_whatever_its_punctuation_and_case(brand: Brand) -> None:
    """The model turned the quote's comma into a full stop and its case changed: still proof."""
    page = valid_page(
        blocks=[
            {"type": "hero", "title": "Outbound that books meetings", "sub": ICP_SUB},
            {
                "type": "quote",
                "quote": "It was a game-changer for our team. And the reporting is honest!",
                "who": "Dana Ruiz",
            },
        ]
    )

    assert check_page(page, brand=brand, brief=BRIEF) == []


@pytest.mark.spec("content.gate.claims")
@pytest.mark.parametrize(
    "copy",
    [
        "We hit the pipeline target for every client in the first quarter.",
        "Reply rates nearly doubled once sequences were cut to three touches.",
        "Pipeline targets are always hit in the first quarter.",
    ],
)
def test_a_claim_that_inflates_the_proof_without_a_number_is_unsupported(
    brand: Brand, copy: str
) -> None:
    """The proof says 18 of 20 and 24%: "every client" and "nearly doubled" say more."""
    assert _issues(copy, brand) == [("blocks.1.markdown", "unsupported_claim")]


@pytest.mark.parametrize(
    "copy",
    [
        "Every client gets a named senior strategist.",
        "We read every reply before it reaches your inbox.",
        "Double-check the numbers with your CFO.",
    ],
)
def test_universal_words_that_claim_no_outcome_pass(brand: Brand, copy: str) -> None:
    """A commitment ("every client gets a strategist") is not an inflated result."""
    assert _issues(copy, brand) == []
