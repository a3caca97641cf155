"""Gate fixtures: the real brand rules from content/ and a page that passes."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from backends.content_files import load_catalog
from schemas.catalog import Brand, Catalog

CONTENT = Path(__file__).resolve().parents[2] / "content"


@cache
def content_catalog() -> Catalog:
    """content/ loaded once (hypothesis tests call this: they take no function fixtures)."""
    return load_catalog(CONTENT)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return content_catalog()


@pytest.fixture(scope="session")
def brand(catalog: Catalog) -> Brand:
    return catalog.brand
