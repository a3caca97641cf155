"""Gate fixtures: the real brand rules from content/ and a page that passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.content_files import load_catalog
from schemas.catalog import Brand, Catalog

CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog(CONTENT)


@pytest.fixture(scope="session")
def brand(catalog: Catalog) -> Brand:
    return catalog.brand
