"""How the template writer fits brief text into a field's limit (workers/authoring/claims.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workers.authoring.claims import caption, clip

LONG_FACT = "Found 18% of pipeline double-counted across 3 ad platforms for a Series A SaaS client"


def test_a_fact_that_fits_is_kept_whole() -> None:
    assert caption("Cut cost per opportunity by 32%", 80) == "Cut cost per opportunity by 32%"


@pytest.mark.parametrize(
    ("fact", "expected"),
    [
        (
            "Cut cost per opportunity by 32%, from $410 to $279, over two quarters for a fintech",
            "Cut cost per opportunity by 32%, from $410 to $279",
        ),
        (
            "Reduced the time to first reply from 3 days to 4 hours; it held for 6 months at two",
            "Reduced the time to first reply from 3 days to 4 hours",
        ),
        (LONG_FACT, "Found 18% of pipeline double-counted across 3 ad platforms"),
    ],
)
def test_a_long_fact_ends_at_its_last_phrase_break_without_an_ellipsis(
    fact: str, expected: str
) -> None:
    """A clause break first, else before a trailing qualifier: it reads as a whole phrase."""
    assert caption(fact, 80) == expected


def test_a_fact_without_a_late_enough_break_is_clipped_at_a_word_with_an_ellipsis() -> None:
    fact = "Doubled qualified pipeline in 90 days: 212 opportunities against 104 the quarter before"

    assert caption(fact, 80) == (
        "Doubled qualified pipeline in 90 days: 212 opportunities against 104 the\u2026"
    )


def test_clip_never_exceeds_its_limit_even_without_a_space() -> None:
    assert clip("y" * 70, 60) == "y" * 60
    assert clip("word " * 20, 23) == "word word word word"


@given(st.text(max_size=300), st.integers(min_value=2, max_value=120))
def test_caption_and_clip_always_fit(text: str, limit: int) -> None:
    assert len(caption(text, limit)) <= limit
    assert len(clip(text, limit)) <= limit
