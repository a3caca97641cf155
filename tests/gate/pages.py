"""Builders for raw page payloads in gate tests."""

from __future__ import annotations

import copy
from typing import Any

ICP_SUB = "For heads of growth at B2B SaaS companies who want more qualified demos."


def valid_page(**fields: Any) -> dict[str, Any]:
    """A small page that passes the whole gate; keyword arguments replace top-level fields."""
    page: dict[str, Any] = {
        "slug": "growth-audit",
        "title": "A growth audit in two weeks",
        "description": "What we check, what you get, and what it costs.",
        "cta_label": "Book a call",
        "cta_href": "/book",
        "blocks": [
            {"type": "hero", "title": "Find the leaks in your funnel", "sub": ICP_SUB},
            {
                "type": "cta",
                "title": "Talk to a strategist",
                "ctaLabel": "Book",
                "ctaHref": "/book",
            },
        ],
    }
    page.update(fields)
    return page


def with_value(page: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `page` with the value at a dotted path (numeric parts index lists) replaced."""
    out = copy.deepcopy(page)
    *parents, last = path.split(".")
    node: Any = out
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def text(length: int, prefix: str = "") -> str:
    """Copy of exactly `length` characters, starting with `prefix`."""
    return (prefix + "a" * length)[:length]


def codes(issues: list[Any]) -> list[tuple[str, str]]:
    """(field, code) of each error (what refuses a write): what tests assert on, never
    library message text."""
    return [(issue.field, issue.code) for issue in issues if issue.severity == "error"]


def warning_codes(issues: list[Any]) -> list[tuple[str, str]]:
    """(field, code) of each warning (a judgement call that never refuses a write)."""
    return [(issue.field, issue.code) for issue in issues if issue.severity == "warning"]
