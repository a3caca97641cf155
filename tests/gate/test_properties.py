"""Property-based: the gate never raises on any JSON, and every page it passes renders."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gate.check import check_page, parse_page
from schemas.content.pages import BLOCK_TYPES
from tests.gate.conftest import content_catalog
from tests.gate.pages import ICP_SUB

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=40,
)
FIELD_NAMES = st.sampled_from(
    [
        "slug",
        "title",
        "sub",
        "items",
        "type",
        "ctaHref",
        "imageUrl",
        "quote",
        "markdown",
        "bullets",
        "q",
        "a",
        "value",
    ]
)
# Raw pages shaped like the real thing, so the rules past the schema get exercised too.
BLOCKISH = st.dictionaries(FIELD_NAMES, JSON, max_size=6).map(lambda d: d) | st.fixed_dictionaries(
    {"type": st.sampled_from([*BLOCK_TYPES, "nope"])},
    optional={"sub": st.text(), "items": JSON, "title": JSON},
)
PAGEISH = st.fixed_dictionaries(
    {},
    optional={
        "slug": JSON,
        "title": JSON,
        "cta_href": st.text(),
        "og_image_url": st.text(),
        "blocks": st.lists(BLOCKISH, max_size=6),
        "is_published": JSON,
    },
)


@given(payload=JSON | PAGEISH)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_the_gate_never_raises_on_any_json(payload: Any) -> None:
    """DESIGN: the gate reads raw JSON of any shape and answers with issues."""
    issues = check_page(payload, brand=content_catalog().brand)

    assert all(issue.code for issue in issues)


COPY = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=40)
SAFE_URL = st.sampled_from(["/book", "https://example.com/a?b=c", "/p/x#form"])
OTHER_BLOCKS = st.one_of(
    st.builds(lambda t: {"type": "logos", "title": t}, COPY),
    st.builds(
        lambda v, lab: {"type": "stats", "items": [{"value": v[:24], "label": lab}]}, COPY, COPY
    ),
    st.builds(
        lambda kind, t, b: {
            "type": kind,
            "title": t,
            "lede": b,
            "items": [{"title": t, "body": b}],
        },
        st.sampled_from(["features", "steps"]),
        COPY,
        COPY,
    ),
    st.builds(lambda q, w: {"type": "quote", "quote": q, "who": w, "company": w}, COPY, COPY),
    st.builds(
        lambda t, m: {"type": "richtext", "title": t, "markdown": m},
        COPY,
        st.text(min_size=1, max_size=400),
    ),
    st.builds(lambda q, a: {"type": "faq", "items": [{"q": q, "a": a}]}, COPY, COPY),
    st.builds(lambda t, s: {"type": "leadform", "title": t, "sub": s}, COPY, COPY),
    st.builds(
        lambda t, href: {"type": "cta", "title": t, "ctaLabel": t[:40], "ctaHref": href},
        COPY,
        SAFE_URL,
    ),
)
VALID_PAGES = st.builds(
    lambda title, bullets, blocks, href, noindex: {
        "slug": "generated-page",
        "title": title,
        "cta_label": title[:40],
        "cta_href": href,
        "noindex": noindex,
        "blocks": [
            {
                "type": "hero",
                "title": title,
                "sub": ICP_SUB,
                "bullets": bullets,
                "imageUrl": "https://img.example.com/a.png",
            },
            *blocks,
        ],
    },
    COPY,
    st.lists(COPY, max_size=5),
    st.lists(OTHER_BLOCKS, max_size=10),
    SAFE_URL,
    st.booleans(),
)

_HAVE_RENDERER = importlib.util.find_spec("renderers.page_html") is not None


@pytest.mark.skipif(
    not _HAVE_RENDERER, reason="renderers/page_html.py (render_page) is not written yet"
)
@given(payload=VALID_PAGES)
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_page_the_gate_passes_renders(payload: dict[str, Any]) -> None:
    """Every page the gate passes renders (no exception, exactly one h1)."""
    from renderers.page_html import build_site, render_page

    catalog = content_catalog()
    assume(check_page(payload, brand=catalog.brand) == [])

    rendered = render_page(
        parse_page(payload), site=build_site(catalog, base_url="https://example.com")
    )

    assert rendered.html.count("<h1") == 1
