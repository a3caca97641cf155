"""The gate reads phrases in context: negation, customer quotes and inflating words."""

from __future__ import annotations

from typing import Any

import pytest

from gate.check import check_page
from schemas.catalog import Brand
from tests.gate.pages import ICP_SUB, codes, valid_page, warning_codes

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


@pytest.mark.spec("content.gate.claims")
@pytest.mark.parametrize(
    "copy",
    [
        "Every client gets a named senior strategist.",
        "We read every reply before it reaches your inbox.",
        "We report every result, including the numbers that did not move.",
        "We never skip the strategist's review.",
        "Your strategist checks every sequence before your team hears about it.",
        "You always keep the copy and the data.",
    ],
)
def test_a_promise_about_the_service_is_a_warning_never_an_error(brand: Brand, copy: str) -> None:
    """DESIGN gate severities: a universal word in a promise is a judgement call, not a claim."""
    issues = check_page(_page(copy), brand=brand, brief=BRIEF)

    assert codes(issues) == []
    assert warning_codes(issues) == [("blocks.1.markdown", "universal_promise")]


@pytest.mark.spec("content.gate.claims")
@pytest.mark.parametrize(
    "copy",
    [
        "All our customers saw reply rates rise within a quarter.",
        "Every client we work with grew pipeline in the first quarter.",
        "We doubled pipeline for our clients.",
        "Our clients never miss their pipeline target.",
    ],
)
def test_a_result_claim_the_proof_does_not_state_is_an_error(brand: Brand, copy: str) -> None:
    """The proof says 18 of 20 and 24%: a universal result about clients says more."""
    assert _issues(copy, brand) == [("blocks.1.markdown", "unsupported_claim")]


def test_a_stat_caption_that_inflates_the_proof_is_an_error(brand: Brand) -> None:
    """A stat caption is a measured result: 'for all our clients' where the proof says 18/20."""
    page = valid_page(
        blocks=[
            {"type": "hero", "title": "Outbound that books meetings", "sub": ICP_SUB},
            {
                "type": "stats",
                "items": [{"value": "24%", "label": "higher reply rates for all our clients"}],
            },
        ]
    )

    assert codes(check_page(page, brand=brand, brief=BRIEF)) == [
        ("blocks.1.items.0.label", "unsupported_claim")
    ]


@pytest.mark.parametrize(
    "copy",
    [
        "Every Friday you get a written report.",
        "All six agents work from one brief.",
        "Does every reply reach a rep?",
        "Not every test wins, and we say so.",
        "Double-check the numbers with your CFO.",
        "Double counting is the most common finding.",
    ],
)
def test_time_expressions_counts_questions_and_negations_are_not_judged(
    brand: Brand, copy: str
) -> None:
    """Nothing universal is asserted: no error and no warning."""
    assert check_page(_page(copy), brand=brand, brief=BRIEF) == []


def test_a_universal_the_partner_wrote_in_the_brief_is_theirs(brand: Brand) -> None:
    """The proof says 'every client renewed': the page may say it too, without a warning."""
    brief = BRIEF | {"proof": ["Every client renewed after the first quarter"]}
    page = _page("Every client renewed after the first quarter.")

    assert check_page(page, brand=brand, brief=brief) == []


def test_without_a_brief_a_result_claim_is_a_warning(brand: Brand) -> None:
    """A page sent whole has no proof to compare: the claim is flagged, never refused."""
    issues = check_page(_page("All our customers saw reply rates rise."), brand=brand)

    assert codes(issues) == []
    assert warning_codes(issues) == [("blocks.1.markdown", "unverified_claim")]
