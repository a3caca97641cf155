"""Variant use cases: a page's variants (create, read, change, delete) and its traffic
allocation, and the shares /p/{slug} splits its visitors by. Keyword-only functions over the
PageStore and VariantStore ports; the Content API views call them.

A variant belongs to its page: who may see the page may see and change its variants (a partner
never sees another's, NotFoundError as for a page nobody has). Each variant is a whole page
content that passes the same gate as the page on its own, and is versioned like it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from backends.ports import (
    ConflictError,
    NotFoundError,
    PageStore,
    StoredAllocation,
    StoredPage,
    StoredVariant,
    VariantStore,
)
from domain.experiments import Experiment
from domain.variants import (
    ALLOCATION_MODES,
    CONTROL,
    MAX_VARIANTS,
    VARIANT_ID_PATTERN,
    AllocationMode,
)
from gate.check import rule_findings
from schemas.catalog import Brand
from schemas.content.changes import merge_patch
from schemas.errors import Issue, warnings_of
from services.experiments import serving_fractions
from services.pages import (
    ATTEMPTS,
    BusyError,
    Editor,
    GateRefusedError,
    PageChanged,
    Pages,
    checked,
    find_page,
)

__all__ = [
    "AllocationRefusedError",
    "VariantExistsError",
    "VariantPreconditionFailedError",
    "change_variant",
    "create_variant",
    "current_shares",
    "delete_variant",
    "find_allocation",
    "find_variant",
    "list_variants",
    "set_allocation",
    "store_generated_variant",
    "variant_warnings",
]

_VARIANT_ID = re.compile(VARIANT_ID_PATTERN)
# Shares are percentages; their sum may be off 100 by rounding in the last decimals only.
SHARE_TOLERANCE = 1e-6
VariantPrecondition = Callable[[StoredVariant | None], bool]


class VariantExistsError(Exception):
    """A variant with this id is already on the page; nothing was changed."""


class VariantPreconditionFailedError(Exception):
    """If-Match did not hold; `current` is the variant (or allocation) as stored, if any."""

    def __init__(self, current: StoredVariant | StoredAllocation | None) -> None:
        super().__init__("precondition failed")
        self.current = current


class AllocationRefusedError(Exception):
    """The allocation names an unknown arm, or its shares do not make 100%."""

    def __init__(self, issues: list[Issue]) -> None:
        super().__init__(f"{len(issues)} issues")
        self.issues = issues


def list_variants(
    *, pages: PageStore, variants: VariantStore, slug: str, editor: Editor
) -> tuple[StoredVariant, ...]:
    """A visible page's variants, by id. Raises: NotFoundError."""
    find_page(pages=pages, slug=slug, editor=editor)
    return variants.list_variants(slug)


def find_variant(
    *, pages: PageStore, variants: VariantStore, slug: str, variant_id: str, editor: Editor
) -> StoredVariant:
    """One variant of a visible page. Raises: NotFoundError (page or variant)."""
    find_page(pages=pages, slug=slug, editor=editor)
    found = variants.get_variant(slug, variant_id) if _valid_id(variant_id) else None
    if found is None:
        raise NotFoundError(f"{slug}/{variant_id}")
    return found


def gated_variant(pages: Pages, *, payload: object, page: StoredPage) -> dict[str, object]:
    """The variant's page input if it passes the check a page passes (services/pages.py
    `checked`, judged as a page of its own); its slug is the page's.

    Raises: GateRefusedError with every error (bounds, characters, schema, gate).
    """
    if isinstance(payload, dict):
        payload = {"slug": page.slug, **payload}
        if payload["slug"] != page.slug:
            issue = Issue(field="slug", code="slug_mismatch", message=f"the slug is {page.slug!r}")
            raise GateRefusedError([issue])
    checked(pages, payload)
    assert isinstance(payload, dict)  # noqa: S101  # the schema passed: a page is an object
    return payload


def variant_warnings(*, variant: StoredVariant, brand: Brand) -> list[Issue]:
    """The gate's warnings on a stored variant as it stands (what a write answers): the rules'
    alone, as a stored page's (the schema's findings are all errors)."""
    return warnings_of(rule_findings(dict(variant.page_input), brand=brand))


def create_variant(
    pages: Pages,
    *,
    variants: VariantStore,
    slug: str,
    payload: object,
    variant_id: str | None,
    editor: Editor,
    start_at: datetime | None = None,
) -> StoredVariant:
    """Add a variant to a visible page; without an id, the first free of `b`, `c`, `d`, ...

    Raises: NotFoundError, GateRefusedError, VariantExistsError, VariantLimitError, BusyError.
    """
    page = find_page(pages=pages.store, slug=slug, editor=editor)
    now = pages.clock()
    if variant_id is not None and not _valid_id(variant_id):
        issue = Issue(
            field="id",
            code="invalid_variant_id",
            message="1 to 32 lowercase letters, digits or '-', starting with a letter or"
            " digit, and not 'control'",
        )
        raise GateRefusedError([issue])
    page_input = gated_variant(pages, payload=payload, page=page)
    for _ in range(ATTEMPTS):
        taken = {v.variant_id for v in variants.list_variants(slug)}
        chosen = variant_id or _free_id(taken)
        if variant_id is not None and variant_id in taken:
            raise VariantExistsError(variant_id)
        new = StoredVariant(
            slug=slug,
            variant_id=chosen,
            version=1,
            page_input=page_input,
            created_at=now,
            updated_at=now,
            gate_ruleset=pages.ruleset,
            editor=editor.partner,
            editor_key_id=editor.key_id,
            start_at=start_at,
        )
        try:
            saved = variants.save_variant(new, expected_version=0, limit=MAX_VARIANTS)
        except ConflictError:
            continue  # another write took the id first: check again
        pages.changed(slug)
        return saved
    raise BusyError(slug)


def store_generated_variant(
    *,
    pages: PageStore,
    variants: VariantStore,
    slug: str,
    variant_id: str,
    page_input: Mapping[str, object],
    editor: Editor,
    ruleset: str,
    now: datetime,
    changed: PageChanged,
) -> StoredVariant:
    """Store a generation job's passed variant draft (gated against its brief) as variant
    `variant_id` of the page the job wrote. A variant of that id is replaced, as a generated
    page replaces a page of its slug; one stored already with the same content counts as
    stored, so a job delivered again writes no new version.

    Raises: NotFoundError (the page is gone), VariantLimitError, BusyError.
    """
    content = {**page_input, "slug": slug}
    for _ in range(ATTEMPTS):
        find_page(pages=pages, slug=slug, editor=editor)
        current = variants.get_variant(slug, variant_id)
        if current is not None and dict(current.page_input) == content:
            return current
        new = StoredVariant(
            slug=slug,
            variant_id=variant_id,
            version=current.version + 1 if current else 1,
            page_input=content,
            created_at=current.created_at if current else now,
            updated_at=now,
            gate_ruleset=ruleset,
            editor=editor.partner,
            editor_key_id=editor.key_id,
            start_at=current.start_at if current else None,
        )
        try:
            saved = variants.save_variant(
                new, expected_version=current.version if current else 0, limit=MAX_VARIANTS
            )
        except ConflictError:
            continue
        changed(slug)
        return saved
    raise BusyError(slug)


def _valid_id(variant_id: str) -> bool:
    return variant_id != CONTROL and _VARIANT_ID.match(variant_id) is not None


def _free_id(taken: set[str]) -> str:
    letter = next(c for c in "bcdefghijklmnopqrstuvwxyz" if c not in taken)
    return letter


def change_variant(
    pages: Pages,
    *,
    variants: VariantStore,
    slug: str,
    variant_id: str,
    patch: object,
    editor: Editor,
    precondition: VariantPrecondition | None = None,
    start_at: datetime | None = None,
    set_start: bool = False,
) -> StoredVariant:
    """Apply a JSON merge patch to a variant's content, through the gate, and set its start
    (`set_start`: to `start_at`, None clears it); a patch that changes nothing writes no
    version.

    Raises: NotFoundError, GateRefusedError, VariantPreconditionFailedError, BusyError.
    """
    for _ in range(ATTEMPTS):
        page = find_page(pages=pages.store, slug=slug, editor=editor)
        current = find_variant(
            pages=pages.store, variants=variants, slug=slug, variant_id=variant_id, editor=editor
        )
        if precondition is not None and not precondition(current):
            raise VariantPreconditionFailedError(current)
        merged = merge_patch(dict(current.page_input), patch)
        page_input = gated_variant(pages, payload=merged, page=page)
        start = start_at if set_start else current.start_at
        if page_input == dict(current.page_input) and start == current.start_at:
            return current
        new = replace(
            current,
            version=current.version + 1,
            page_input=page_input,
            start_at=start,
            updated_at=pages.clock(),
            gate_ruleset=pages.ruleset,
            editor=editor.partner,
            editor_key_id=editor.key_id,
        )
        try:
            saved = variants.save_variant(new, expected_version=current.version, limit=MAX_VARIANTS)
        except ConflictError:
            continue
        pages.changed(slug)
        return saved
    raise BusyError(slug)


def delete_variant(
    *,
    pages: PageStore,
    variants: VariantStore,
    slug: str,
    variant_id: str,
    editor: Editor,
    changed: PageChanged,
    precondition: VariantPrecondition | None = None,
) -> None:
    """Delete a variant; its share in the allocation goes to the control from then on.

    Raises: NotFoundError, VariantPreconditionFailedError, BusyError.
    """
    for _ in range(ATTEMPTS):
        current = find_variant(
            pages=pages, variants=variants, slug=slug, variant_id=variant_id, editor=editor
        )
        if precondition is not None and not precondition(current):
            raise VariantPreconditionFailedError(current)
        try:
            variants.delete_variant(slug, variant_id, expected_version=current.version)
        except ConflictError:
            continue
        changed(slug)
        return
    raise BusyError(slug)


def find_allocation(
    *, pages: PageStore, variants: VariantStore, slug: str, editor: Editor
) -> StoredAllocation | None:
    """A visible page's allocation, None while none was set (all traffic to the control).

    Raises: NotFoundError.
    """
    find_page(pages=pages, slug=slug, editor=editor)
    return variants.get_allocation(slug)


def set_allocation(
    *,
    pages: PageStore,
    variants: VariantStore,
    slug: str,
    mode: str,
    shares: Mapping[str, float],
    editor: Editor,
    now: datetime,
    changed: PageChanged,
    precondition: Callable[[StoredAllocation | None], bool] | None = None,
) -> StoredAllocation:
    """Set a page's allocation: fixed percentages by arm (`control` and variant ids) making 100.

    Raises: NotFoundError, AllocationRefusedError, VariantPreconditionFailedError, BusyError.
    """
    for _ in range(ATTEMPTS):
        find_page(pages=pages, slug=slug, editor=editor)
        known = {v.variant_id for v in variants.list_variants(slug)}
        issues = allocation_issues(mode=mode, shares=shares, known=known)
        if issues:
            raise AllocationRefusedError(issues)
        current = variants.get_allocation(slug)
        if precondition is not None and not precondition(current):
            raise VariantPreconditionFailedError(current)
        checked_mode: AllocationMode = "adaptive" if mode == "adaptive" else "fixed"
        new = StoredAllocation(
            slug=slug,
            version=(current.version if current else 0) + 1,
            mode=checked_mode,
            shares={arm: float(share) for arm, share in shares.items()},
            updated_at=now,
            editor=editor.partner,
            editor_key_id=editor.key_id,
        )
        try:
            saved = variants.save_allocation(
                new, expected_version=current.version if current else 0
            )
        except ConflictError:
            continue
        changed(slug)
        return saved
    raise BusyError(slug)


def allocation_issues(*, mode: str, shares: Mapping[str, float], known: set[str]) -> list[Issue]:
    """What is wrong with an allocation for a page whose variants are `known`. An adaptive
    allocation takes no shares: the allocator sets them (services/experiments.py)."""
    issues: list[Issue] = []
    if mode == "adaptive" and shares:
        return [
            Issue(
                field="shares",
                code="not_allowed",
                message="an adaptive allocation sets its own shares; leave shares out",
            )
        ]
    if mode == "adaptive":
        return []
    if mode not in ALLOCATION_MODES:
        issues.append(
            Issue(
                field="mode", code="invalid_mode", message=f"one of {', '.join(ALLOCATION_MODES)}"
            )
        )
    for arm, share in shares.items():
        if arm != CONTROL and arm not in known:
            issues.append(
                Issue(
                    field=f"shares.{arm}",
                    code="unknown_variant",
                    message="name the control or one of the page's variants",
                )
            )
        if not 0 <= share <= 100:
            issues.append(
                Issue(field=f"shares.{arm}", code="out_of_range", message="0 to 100 (percent)")
            )
    if abs(sum(shares.values()) - 100) > SHARE_TOLERANCE:
        issues.append(
            Issue(field="shares", code="shares_sum", message="the shares must sum to 100 (percent)")
        )
    return issues


def current_shares(
    *,
    allocation: StoredAllocation | None,
    variant_ids: set[str],
    experiment: Experiment | None = None,
) -> list[tuple[str, float]]:
    """The fractions of traffic each arm gets now, control first, then variants by id.

    The one place a page's split is decided: a fixed allocation gives its shares as set; a
    variant deleted since gives its share to the control; no allocation sends every visitor
    to the control. The page's experiment decides when it ended (the control) and for an
    adaptive allocation (services/experiments.py's shares).
    """
    decided = serving_fractions(experiment, allocation=allocation, variant_ids=sorted(variant_ids))
    if decided is not None:
        return decided
    if allocation is None:
        return [(CONTROL, 1.0)]
    fractions = {CONTROL: 0.0}
    for arm, share in allocation.shares.items():
        target = arm if arm in variant_ids else CONTROL
        fractions[target] = fractions.get(target, 0.0) + share / 100
    return [(CONTROL, fractions.pop(CONTROL)), *sorted(fractions.items())]


def started_shares(
    shares: Sequence[tuple[str, float]], *, variants: Iterable[StoredVariant], now: datetime
) -> list[tuple[str, float]]:
    """The split /p/{slug} serves at `now`: a variant whose `start_at` is still ahead is left
    out, its share spread over the other arms in proportion, as if it did not exist (nothing
    else with a share: the control takes all). Serving reads this against the clock on every
    lookup, so a start needs no task."""
    waiting = {v.variant_id for v in variants if v.start_at is not None and v.start_at > now}
    if not waiting:
        return list(shares)
    kept = [(arm, share) for arm, share in shares if arm not in waiting]
    total = sum(share for _, share in kept)
    if total <= 0:
        return [(arm, 1.0 if arm == CONTROL else 0.0) for arm, _ in kept]
    return [(arm, share / total) for arm, share in kept]
