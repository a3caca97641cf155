"""SPEC quality gate rules 1, 2 and 5 and the schema's codes: hero, ICP, wording, fields, types."""

from __future__ import annotations

from typing import Any

import pytest

from gate.check import check_page
from schemas.catalog import Brand
from tests.gate.pages import ICP_SUB, codes, valid_page, with_value

HERO = {"type": "hero", "title": "Find the leaks", "sub": ICP_SUB}


@pytest.mark.spec("content.gate.hero")
def test_a_page_whose_first_block_is_not_the_hero_fails(brand: Brand) -> None:
    """SPEC gate 1: the hero is the first block."""
    page = valid_page(blocks=[{"type": "logos"}, HERO])

    assert codes(check_page(page, brand=brand)) == [("blocks.0", "hero_not_first")]


def test_a_page_without_a_hero_fails(brand: Brand) -> None:
    """SPEC gate 1: a page's first block is its hero."""
    page = valid_page(blocks=[{"type": "cta", "title": "Talk to us"}])

    assert codes(check_page(page, brand=brand)) == [("blocks.0", "hero_not_first")]


def test_a_second_hero_is_named_by_its_index(brand: Brand) -> None:
    """SPEC gate 1: the hero is the page's only hero."""
    page = valid_page(blocks=[HERO, {"type": "logos"}, HERO, HERO])

    assert codes(check_page(page, brand=brand)) == [
        ("blocks.2", "hero_not_unique"),
        ("blocks.3", "hero_not_unique"),
    ]


@pytest.mark.spec("content.gate.icp")
@pytest.mark.parametrize(
    "sub",
    [
        "Built for Heads of Growth who need pipeline.",
        "For B2B-SaaS teams with a demo form.",
        "For a head of growth with one hire.",
        "If you run RevOps, this is for you.",
        "For CMOs at series B companies.",
        "For go to market teams that sell to IT.",
        "For VPs of Marketing.",
    ],
)
def test_a_hero_sub_naming_an_icp_term_passes(brand: Brand, sub: str) -> None:
    """SPEC gate 2 / DESIGN: a term of the ICP vocabulary, any case, plural or hyphenation."""
    assert check_page(with_value(valid_page(), "blocks.0.sub", sub), brand=brand) == []


@pytest.mark.parametrize(
    "sub",
    [
        "Grow faster with a partner you can trust.",
        "For everyone.",
        "Saasy growth for all.",
        "For cmosphere fans.",
    ],
)
def test_a_hero_sub_without_a_clear_icp_fails(brand: Brand, sub: str) -> None:
    """SPEC gate 2: the hero subcopy names a clear ICP (whole words only)."""
    page = with_value(valid_page(), "blocks.0.sub", sub)

    assert codes(check_page(page, brand=brand)) == [("blocks.0.sub", "icp_missing")]


@pytest.mark.spec("content.gate.icp")
@pytest.mark.parametrize(
    "sub",
    [
        "Not for B2B SaaS companies.",
        "Built for agencies, not for heads of growth.",
        "Never for B2B SaaS founders who want shortcuts; for agencies that do.",
    ],
)
def test_a_hero_sub_that_names_the_icp_only_negated_fails(brand: Brand, sub: str) -> None:
    """SPEC gate 2: 'not for B2B SaaS' says who the page is not for, which names no ICP."""
    page = with_value(valid_page(), "blocks.0.sub", sub)

    assert codes(check_page(page, brand=brand)) == [("blocks.0.sub", "icp_missing")]


def test_a_not_for_clause_beside_the_icp_passes(brand: Brand) -> None:
    """Saying who the page is not for, beside who it is for, is a clear ICP."""
    sub = "For heads of growth at B2B SaaS companies. Not for teams that want a quick trick."

    assert check_page(with_value(valid_page(), "blocks.0.sub", sub), brand=brand) == []


def test_a_negated_brief_icp_fails_on_a_generated_page(brand: Brand) -> None:
    """The brief's ICP in a 'not for' clause is not the page's ICP."""
    brief = {"slug": "s", "topic": "t", "icp": "Sales ops teams at B2B SaaS companies"}
    sub = "Not for sales ops teams at B2B SaaS companies; for agencies."
    page = with_value(valid_page(), "blocks.0.sub", sub)

    assert codes(check_page(page, brand=brand, brief=brief)) == [("blocks.0.sub", "icp_missing")]


def test_a_generated_page_must_name_its_briefs_icp(brand: Brand) -> None:
    """DESIGN: for a generated page the ICP is the brief's."""
    brief = {"slug": "x", "topic": "t", "icp": "hospital procurement officers"}
    matches = with_value(valid_page(), "blocks.0.sub", "For procurement officers at hospitals.")
    vocabulary_only = valid_page()

    assert check_page(matches, brand=brand, brief=brief) == []
    assert codes(check_page(vocabulary_only, brand=brand, brief=brief)) == [
        ("blocks.0.sub", "icp_missing")
    ]


@pytest.mark.spec("content.gate.wording")
@pytest.mark.parametrize(
    ("path", "copy"),
    [
        ("title", "Synergy for your funnel"),
        ("description", "A REVOLUTIONARY audit."),
        ("cta_label", "Get guaranteed results"),
        ("blocks.0.title", "A game changer for demos"),
        ("blocks.0.sub", "For heads of growth who want to leverage data."),
        ("blocks.1.title", "Seamless onboarding"),
    ],
)
def test_banned_wording_is_named_with_its_field(brand: Brand, path: str, copy: str) -> None:
    """SPEC gate 5: off-brand wording is rejected, case-insensitively, hyphen or space."""
    issues = check_page(with_value(valid_page(), path, copy), brand=brand)

    assert codes(issues) == [(path, "off_brand")]


def test_the_off_brand_message_names_the_phrase_and_the_suggestion(brand: Brand) -> None:
    """DESIGN: the message names the phrase and what to say instead."""
    issues = check_page(with_value(valid_page(), "title", "We leverage data"), brand=brand)

    assert "'leverage'" in issues[0].message
    assert "use" in issues[0].message


def test_banned_wording_is_found_in_every_text_field(brand: Brand) -> None:
    """SPEC gate 5: items, bullets, faq, quotes and markdown are copy too."""
    blocks: list[dict[str, Any]] = [
        {
            **HERO,
            "eyebrow": "Turnkey",
            "bullets": ["ok", "Skyrocket replies"],
            "imageAlt": "A ninja",
        },
        {"type": "stats", "items": [{"value": "10x", "label": "pipeline"}]},
        {
            "type": "features",
            "title": "Disrupt",
            "lede": "ok",
            "items": [{"title": "ok", "body": "Unparalleled"}],
        },
        {"type": "faq", "items": [{"q": "Is it AI-powered?", "a": "Cutting-edge, yes"}]},
        {
            "type": "quote",
            "quote": "World-class team",
            "who": "A rockstar",
            "company": "Synergies Inc",
        },
        {"type": "richtext", "markdown": "We **supercharge** growth"},
        {"type": "leadform", "title": "Next-level", "sub": "Move the needle"},
    ]

    found = {
        field
        for field, code in codes(check_page(valid_page(blocks=blocks), brand=brand))
        if code == "off_brand"
    }

    assert found == {
        "blocks.0.eyebrow",
        "blocks.0.bullets.1",
        "blocks.0.imageAlt",
        "blocks.1.items.0.value",
        "blocks.2.title",
        "blocks.2.items.0.body",
        "blocks.3.items.0.q",
        "blocks.3.items.0.a",
        "blocks.4.quote",
        "blocks.4.who",
        "blocks.4.company",
        "blocks.5.markdown",
        "blocks.6.title",
        "blocks.6.sub",
    }


@pytest.mark.parametrize(
    "copy", ["Leveraged buyouts", "Disruption insurance", "A 10xer", "Synergyst"]
)
def test_banned_wording_matches_whole_words_only(brand: Brand, copy: str) -> None:
    """SPEC gate 5: whole words; a longer word that contains a phrase is fine."""
    assert check_page(with_value(valid_page(), "title", copy), brand=brand) == []


def test_invisible_characters_do_not_hide_banned_wording(brand: Brand) -> None:
    """SPEC gate 5: zero-width and full-width tricks are folded away first."""
    page = with_value(
        valid_page(), "title", "syn\u200bergy and \uff53\uff45\uff41\uff4d\uff4c\uff45\uff53\uff53"
    )

    assert len(check_page(page, brand=brand)) == 2


def test_unknown_fields_and_block_types_are_named(brand: Brand) -> None:
    """DESIGN: unknown fields are rejected (`unknown_field`, `unknown_block_type`)."""
    page = valid_page(theme="dark", blocks=[{**HERO, "color": "red"}, {"type": "carousel"}])

    assert sorted(codes(check_page(page, brand=brand))) == [
        ("blocks.0.color", "unknown_field"),
        ("blocks.1", "unknown_block_type"),
        ("theme", "unknown_field"),
    ]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("title", 5),
        ("noindex", "true"),
        ("is_published", 1),
        ("blocks", {}),
        ("blocks.0.bullets", "one"),
        ("blocks.1", []),
    ],
)
def test_wrong_json_types_are_invalid_type(brand: Brand, path: str, value: Any) -> None:
    """DESIGN: a value of the wrong JSON type is `invalid_type` (no coercion of "true")."""
    assert codes(check_page(with_value(valid_page(), path, value), brand=brand))[0] == (
        path,
        "invalid_type",
    )


@pytest.mark.parametrize("payload", [None, 1, "page", [], [valid_page()], True])
def test_a_body_that_is_not_an_object_is_one_issue_on_the_whole_body(
    brand: Brand, payload: object
) -> None:
    """DESIGN: `""` names the whole body."""
    assert codes(check_page(payload, brand=brand)) == [("", "invalid_type")]


@pytest.mark.spec("content.gate.all_at_once")
def test_every_failure_of_one_payload_comes_back_together(brand: Brand) -> None:
    """DESIGN: all gate failures of one payload come back together, never one at a time."""
    page = valid_page(
        title="x" * 61,
        cta_href="javascript:alert(1)",
        og_image_url="http://img.example.com/a.png",
        description="A revolutionary audit",
        blocks=[
            {"type": "logos"},
            {
                "type": "hero",
                "title": "T",
                "sub": "For everyone",
                "imageUrl": "data:image/png;base64,AA",
            },
            {"type": "stats", "items": []},
            HERO,
        ],
    )

    assert sorted(codes(check_page(page, brand=brand))) == sorted(
        [
            ("title", "too_long"),
            ("blocks.2.items", "too_few"),
            ("blocks.0", "hero_not_first"),
            ("blocks.3", "hero_not_unique"),
            ("blocks.1.sub", "icp_missing"),
            ("cta_href", "unsafe_url"),
            ("og_image_url", "unsafe_url"),
            ("blocks.1.imageUrl", "unsafe_url"),
            ("description", "off_brand"),
        ]
    )
