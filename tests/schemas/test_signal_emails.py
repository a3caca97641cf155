"""Addresses are normalized by email_validator, remembered for the addresses seen again: the
answer is the same whether it comes from the cache or not."""

from __future__ import annotations

import pytest

from schemas.signals.events import clear_email_cache, normalize_email

pytestmark = pytest.mark.spec("signals.ingest")

CASES = [
    ("  Ada@Acme.COM ", "ada@acme.com"),
    ("ada@bücher.example", "ada@bücher.example"),
    ("not an address", None),
    ("ada@@acme.com", None),
    (" " * 400 + "ada@acme.com", "ada@acme.com"),  # past the cached length: checked each time
    ("a" * 300 + "@acme.com", None),
]


@pytest.mark.parametrize(("raw", "expected"), CASES)
def test_an_address_normalizes_the_same_on_first_sight_and_when_seen_again(
    raw: str, expected: str | None
) -> None:
    clear_email_cache()
    first = normalize_email(raw)
    again = normalize_email(raw)

    assert first == again == expected
