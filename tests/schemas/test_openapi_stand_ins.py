"""DESIGN "schemas/": the OpenAPI stand-ins for hand-parsed shapes match what the views read,
so the document cannot drift from the code."""

from __future__ import annotations

from typing import Literal, get_args, get_origin

import pytest
from pydantic import BaseModel

from api.rest.collect_beacon import BEACON_TYPES, FORM_TYPES, IDENTIFY
from api.rest.content import DEFAULT_LIMIT, MAX_LIMIT
from api.rest.signal_query import ACCOUNT_PARAMS, STREAM_PARAMS
from backends.ports import PAGE_STATUSES
from schemas.content.pages import SitePageInput
from schemas.openapi.placeholders import (
    AccountsQueryDoc,
    CollectBeaconDoc,
    CollectFormDoc,
    PageListQueryDoc,
    PagePatchDoc,
    SignalsQueryDoc,
)


def literal_values(model: type[BaseModel], field: str) -> set[str]:
    """The values of a `Literal[...]` (or `Literal[...] | None`) field."""
    annotation = model.model_fields[field].annotation
    options = get_args(annotation) if get_origin(annotation) is not Literal else (annotation,)
    return {v for option in options if get_origin(option) is Literal for v in get_args(option)}


@pytest.mark.spec("signals.stream")
def test_documented_signal_query_parameters_are_the_ones_the_views_read() -> None:
    """SPEC Signal API: the query parameters of the stream and the accounts list."""
    assert set(SignalsQueryDoc.model_fields) == STREAM_PARAMS
    assert set(AccountsQueryDoc.model_fields) == ACCOUNT_PARAMS


@pytest.mark.spec("content.list")
def test_documented_page_list_query_matches_the_view() -> None:
    """DESIGN Pages: `status` filter and a cursor; the limit bounds the view enforces."""
    limit = PageListQueryDoc.model_fields["limit"]

    assert literal_values(PageListQueryDoc, "status") == set(PAGE_STATUSES)
    assert limit.default == DEFAULT_LIMIT
    bounds = {k: getattr(m, k) for m in limit.metadata for k in ("ge", "le") if hasattr(m, k)}
    assert bounds == {"ge": 1, "le": MAX_LIMIT}


@pytest.mark.spec("content.patch")
def test_documented_merge_patch_names_every_page_field_but_the_slug() -> None:
    """DESIGN Pages: PATCH merges over the stored input; the slug stays."""
    assert set(PagePatchDoc.model_fields) == set(SitePageInput.model_fields) - {"slug"}


@pytest.mark.spec("signals.collect")
def test_documented_collect_types_are_the_ones_collect_accepts() -> None:
    """DESIGN Ingest: collect takes the site's forms and beacons."""
    assert literal_values(CollectFormDoc, "type") == set(FORM_TYPES) | {IDENTIFY}
    assert literal_values(CollectBeaconDoc, "type") == set(BEACON_TYPES)
