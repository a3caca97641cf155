"""check_page: the whole quality gate over a raw JSON payload, every issue of it at once.

It never raises: the schema runs first (its failures become issues), then every rule that can
read the raw structure, so a payload with a bad field and off-brand copy reports both together.
Each finding has a severity: an `error` refuses the write, a `warning` (a judgement call: a
universal word in a promise, or an unverifiable claim on a page sent whole) never does.
`judge_page` gives the page the schema read as well, so a write validates its body once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from schemas.catalog import Brand
from schemas.content.pages import SitePageInput
from schemas.errors import Issue, issues_from_errors

GATE_VERSION = "gate-3"


@dataclass(frozen=True)
class PageVerdict:
    """One raw page judged: every finding, and the page as the schema read it (None when the
    schema refused it)."""

    issues: list[Issue]
    page: SitePageInput | None


def check_page(
    payload: object,
    *,
    brand: Brand,
    brief: object | None = None,
    kept_quotes: Sequence[str] = (),
    published: Sequence[str] = (),
) -> list[Issue]:
    """Every schema and gate finding of one raw page, errors and warnings.

    The page may be stored when no finding is an `error` (schemas.errors.errors_of).

    With a `brief` (a generated page) the ICP is the brief's and claims must come from it.
    `kept_quotes`: a change to a generated page keeps the quotes its brief's proof allowed.
    `published`: the company's own published prices and terms, whose figures a generated page
    may state as the company's (a price is not a claim about clients).
    """
    return _verdict(payload, _rules(payload, brand, brief, kept_quotes, published)).issues


def judge_page(payload: object, *, brand: Brand, kept_quotes: Sequence[str] = ()) -> PageVerdict:
    """check_page's findings on a page sent without a brief, and the page the schema read,
    from one reading of the schema (a write goes on with that page)."""
    return _verdict(payload, _rules(payload, brand, None, kept_quotes, ()))


def _verdict(payload: object, findings: list[Issue]) -> PageVerdict:
    """The schema's reading of `payload`, its findings first, then the rules' `findings`."""
    try:
        page: SitePageInput | None = parse_page(payload)
        issues: list[Issue] = []
    except ValidationError as err:
        page, issues = None, issues_from_errors(err.errors())
    return PageVerdict(issues=_unique(issues + findings), page=page)


def rule_findings(payload: object, *, brand: Brand, kept_quotes: Sequence[str] = ()) -> list[Issue]:
    """The rules' findings alone on a page without a brief (a stored page): its warnings are
    read from these, since the schema's findings are all errors."""
    return _rules(payload, brand, None, kept_quotes, ())


def _rules(
    payload: object,
    brand: Brand,
    brief: object | None,
    kept_quotes: Sequence[str],
    published: Sequence[str],
) -> list[Issue]:
    # Here, not at the top: the rules compile their patterns on import, which a start that
    # checks no page yet need not pay (bench/bench_startup.py).
    from gate import rules

    issues: list[Issue] = []
    issues += rules.hero_first(payload)
    issues += rules.hero_unique(payload)
    issues += rules.icp_named(payload, brand=brand, brief=brief)
    issues += rules.safe_urls(payload)
    issues += rules.on_brand(payload, brand=brand, brief=brief, kept_quotes=kept_quotes)
    if brief is not None:
        issues += rules.supported_claims(payload, brief=brief, published=published)
    issues += rules.universal_words(payload, brief=brief)
    return _unique(issues)


def parse_page(payload: object) -> SitePageInput:
    """The validated page of a payload check_page passed. Raises: ValidationError otherwise."""
    return SitePageInput.model_validate(payload, strict=True)


def ruleset(brand: Brand) -> str:
    """The gate version and a digest of the brand rules, recorded on each stored page."""
    digest = hashlib.sha256(
        brand.model_dump_json(include={"banned_wording", "icp_vocabulary"}).encode()
    )
    return f"{GATE_VERSION}+brand-{digest.hexdigest()[:8]}"


def _unique(issues: list[Issue]) -> list[Issue]:
    seen: set[tuple[str, str, str, str]] = set()
    kept = []
    for issue in issues:
        key = (issue.field, issue.code, issue.message, issue.severity)
        if key not in seen:
            seen.add(key)
            kept.append(issue)
    return kept
