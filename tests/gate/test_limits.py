"""Every limit of SPEC's Resources tables at its boundary: the last that passes, the next fails."""

from __future__ import annotations

from typing import Any

import pytest

from gate.check import check_page
from schemas.catalog import Brand
from tests.gate.pages import ICP_SUB, codes, text, valid_page, with_value

HERO = {"type": "hero", "title": "Find the leaks", "sub": ICP_SUB}


def _with_block(block: dict[str, Any]) -> dict[str, Any]:
    return valid_page(blocks=[HERO, block])


def _card(title: int = 10, body: int = 10) -> dict[str, str]:
    return {"title": text(title), "body": text(body)}


def _stat(value: int = 3, label: int = 10) -> dict[str, str]:
    return {"value": text(value), "label": text(label)}


def _items(kind: str, count: int) -> dict[str, Any]:
    makers = {"stats": _stat, "features": _card, "steps": _card}
    if kind == "faq":
        return {"type": "faq", "items": [{"q": "Why?", "a": "Because."}] * count}
    return {"type": kind, "items": [makers[kind]()] * count}


# (what, page at the limit, page one past it, the field that fails, its code)
STRING_LIMITS: list[tuple[str, str, int]] = [
    ("title", "title", 60),
    ("description", "description", 160),
    ("slug", "slug", 80),
    ("cta_label", "cta_label", 40),
    ("hero title", "blocks.0.title", 90),
    ("hero eyebrow", "blocks.0.eyebrow", 120),
    ("hero ctaLabel", "blocks.0.ctaLabel", 40),
    ("cta title", "blocks.1.title", 120),
    ("cta ctaLabel", "blocks.1.ctaLabel", 40),
]


@pytest.mark.spec("content.gate.lengths")
@pytest.mark.parametrize(
    ("path", "limit"),
    [(p, n) for _w, p, n in STRING_LIMITS],
    ids=[w for w, _p, _n in STRING_LIMITS],
)
def test_a_top_level_or_hero_string_passes_at_its_limit_and_fails_one_past(
    brand: Brand, path: str, limit: int
) -> None:
    """SPEC Resources: SitePageInput and PageBlock max lengths."""
    page = valid_page()

    at_limit = check_page(with_value(page, path, text(limit)), brand=brand)
    past = check_page(with_value(page, path, text(limit + 1)), brand=brand)

    assert at_limit == []
    assert codes(past) == [(path, "too_long")]


def test_the_hero_sub_passes_at_220_and_fails_at_221(brand: Brand) -> None:
    """SPEC Resources: hero sub max 220."""
    page = valid_page()

    at_limit = check_page(with_value(page, "blocks.0.sub", text(220, ICP_SUB)), brand=brand)
    past = check_page(with_value(page, "blocks.0.sub", text(221, ICP_SUB)), brand=brand)

    assert at_limit == []
    assert codes(past) == [("blocks.0.sub", "too_long")]


def test_hero_bullets_allow_five_of_100_characters(brand: Brand) -> None:
    """SPEC Resources: hero bullets max 5 items, each max 100."""
    five = valid_page(blocks=[{**HERO, "bullets": [text(100)] * 5}])
    six = valid_page(blocks=[{**HERO, "bullets": [text(10)] * 6}])
    long = valid_page(blocks=[{**HERO, "bullets": [text(10), text(101)]}])

    assert check_page(five, brand=brand) == []
    assert codes(check_page(six, brand=brand)) == [("blocks.0.bullets", "too_many")]
    assert codes(check_page(long, brand=brand)) == [("blocks.0.bullets.1", "too_long")]


@pytest.mark.parametrize(
    ("kind", "low", "high"), [("stats", 1, 4), ("features", 1, 8), ("steps", 1, 8), ("faq", 1, 12)]
)
def test_item_lists_pass_within_their_bounds_and_fail_outside(
    brand: Brand, kind: str, low: int, high: int
) -> None:
    """SPEC Resources: stats 1 to 4 items, features and steps 1 to 8, faq 1 to 12."""
    assert check_page(_with_block(_items(kind, low)), brand=brand) == []
    assert check_page(_with_block(_items(kind, high)), brand=brand) == []
    assert codes(check_page(_with_block(_items(kind, 0)), brand=brand)) == [
        ("blocks.1.items", "too_few")
    ]
    assert codes(check_page(_with_block(_items(kind, high + 1)), brand=brand)) == [
        ("blocks.1.items", "too_many")
    ]


ITEM_LIMITS = [
    (
        "stat value",
        {"type": "stats", "items": [{"value": "V", "label": "L"}]},
        "blocks.1.items.0.value",
        24,
    ),
    (
        "stat label",
        {"type": "stats", "items": [{"value": "V", "label": "L"}]},
        "blocks.1.items.0.label",
        80,
    ),
    ("feature title", {"type": "features", "items": [_card()]}, "blocks.1.items.0.title", 80),
    ("feature body", {"type": "features", "items": [_card()]}, "blocks.1.items.0.body", 320),
    ("step title", {"type": "steps", "items": [_card()]}, "blocks.1.items.0.title", 80),
    ("step body", {"type": "steps", "items": [_card()]}, "blocks.1.items.0.body", 320),
    ("quote", {"type": "quote", "quote": "Q"}, "blocks.1.quote", 500),
    ("richtext markdown", {"type": "richtext", "markdown": "M"}, "blocks.1.markdown", 4000),
]


@pytest.mark.parametrize(
    ("block", "path", "limit"), [c[1:] for c in ITEM_LIMITS], ids=[c[0] for c in ITEM_LIMITS]
)
def test_block_copy_passes_at_its_limit_and_fails_one_past(
    brand: Brand, block: dict[str, Any], path: str, limit: int
) -> None:
    """SPEC Resources: stat value 24, label 80; item title 80, body 320; quote 500; markdown 4k."""
    page = _with_block(block)

    at_limit = check_page(with_value(page, path, text(limit)), brand=brand)
    past = check_page(with_value(page, path, text(limit + 1)), brand=brand)

    assert at_limit == []
    assert codes(past) == [(path, "too_long")]


def test_a_page_has_one_to_thirty_blocks(brand: Brand) -> None:
    """SPEC Resources: blocks 1 to 30 items."""
    thirty = valid_page(blocks=[HERO] + [{"type": "logos"}] * 29)
    thirty_one = valid_page(blocks=[HERO] + [{"type": "logos"}] * 30)
    none = valid_page(blocks=[])

    assert check_page(thirty, brand=brand) == []
    assert codes(check_page(thirty_one, brand=brand)) == [("blocks", "too_many")]
    assert codes(check_page(none, brand=brand)) == [("blocks", "too_few")]


@pytest.mark.parametrize("field", ["slug", "title", "blocks"])
def test_each_required_page_field_is_named_when_missing(brand: Brand, field: str) -> None:
    """SPEC Resources: slug, title and blocks are required."""
    page = valid_page()
    del page[field]

    assert (field, "missing") in codes(check_page(page, brand=brand))


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ({"type": "hero", "title": "T"}, "blocks.0.sub"),
        ({"type": "hero", "sub": ICP_SUB}, "blocks.0.title"),
    ],
)
def test_required_block_fields_are_named_when_missing(
    brand: Brand, block: dict[str, Any], field: str
) -> None:
    """SPEC Resources: hero requires title and sub."""
    assert codes(check_page(valid_page(blocks=[block]), brand=brand)) == [(field, "missing")]
