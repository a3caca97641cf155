"""brand_rules: the rules the gate applies now, as one document partners, docs and the prompt read.

Built from the brand data (content/brand.json) and the page schema, never written twice: the
banned phrases with their reasons, alternatives and allowances, the ICP vocabulary, the limits
of every field, and each rule's code and severity (the code a finding carries names its rule).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from gate.check import ruleset
from schemas.catalog import Brand
from schemas.content.brand_rules import BannedPhraseRule, BrandRules, FieldLimit, GateRule
from schemas.content.pages import SitePageInput

ALLOWANCES = {
    "negated": "The phrase passes inside a negation in its clause: 'no guaranteed meetings', "
    "'without growth hacks', 'not a turnkey package'.",
    "proof_quote": "The phrase passes inside a customer quote whose words the brief's proof "
    "gives (a quote block, or quoted words with an attribution).",
}

RULES = (
    GateRule(
        code="hero_not_first",
        severity="error",
        applies_to="every page",
        rule="The first block is the hero.",
    ),
    GateRule(
        code="hero_not_unique",
        severity="error",
        applies_to="every page",
        rule="A page has exactly one hero.",
    ),
    GateRule(
        code="icp_missing",
        severity="error",
        applies_to="every page",
        rule="The hero `sub` names who the page is for: the brief's `icp` on a generated page "
        "(the whole phrase or half its words), a term of `icp_vocabulary` otherwise. A clause "
        "that opens with a negation ('Not for B2B SaaS companies') names who the page is not "
        "for and does not count.",
    ),
    GateRule(
        code="too_long",
        severity="error",
        applies_to="every page",
        rule="Text within its limit (see `limits`); too_many / too_few for lists.",
    ),
    GateRule(
        code="unsafe_url",
        severity="error",
        applies_to="every page",
        rule="Links are a site path or an absolute https URL; images absolute https only.",
    ),
    GateRule(
        code="off_brand",
        severity="error",
        applies_to="every page",
        rule="No phrase of `banned_wording`, whole words, any case or hyphenation, except in "
        "a context its `allow` names.",
    ),
    GateRule(
        code="unsupported_claim",
        severity="error",
        applies_to="generated pages",
        rule="Numbers, percentages and customer quotes come from the brief, numbers with "
        "their scale ('1.2 million' or '1.2M', never '1.2'). A universal word or a "
        "multiplier that asserts a result about clients or outcomes ('every client hit', "
        "'all our customers saw', 'doubled pipeline', 'for all our clients' in a stat "
        "caption) must be stated by the brief's proof.",
    ),
    GateRule(
        code="universal_promise",
        severity="warning",
        applies_to="every page",
        rule="A universal word in a promise about the service's own practice ('we write up "
        "every test', 'we never skip the review'): never blocks; keep the promise.",
    ),
    GateRule(
        code="unverified_claim",
        severity="warning",
        applies_to="pages sent whole",
        rule="A universal result claim or multiplier on a page with no brief to check it "
        "against: never blocks; make sure it is true.",
    ),
)


def brand_rules(brand: Brand) -> BrandRules:
    """The document of the rules the gate applies with `brand`."""
    return BrandRules(
        ruleset=ruleset(brand),
        icp_vocabulary=list(brand.icp_vocabulary),
        banned_wording=[
            BannedPhraseRule(
                phrase=b.phrase,
                reason=b.reason or "",
                suggest=b.suggest or "",
                allow=list(b.allow),
            )
            for b in brand.banned_wording
        ],
        allowances=dict(ALLOWANCES),
        rules=list(RULES),
        limits=list(field_limits()),
        voice=list(brand.voice),
    )


@cache
def field_limits() -> tuple[FieldLimit, ...]:
    """The limits of every page field, read from SitePageInput's JSON schema."""
    schema = SitePageInput.model_json_schema()
    defs: dict[str, Any] = schema.get("$defs", {})
    limits = list(_limits_of(schema, prefix="", defs=defs))
    for name, block in sorted(defs.items()):
        kind = block.get("properties", {}).get("type", {}).get("const")
        if name.endswith("Block") and isinstance(kind, str):
            limits += _limits_of(block, prefix=f"blocks[{kind}].", defs=defs)
    return tuple(limits)


def _limits_of(model: dict[str, Any], *, prefix: str, defs: dict[str, Any]) -> list[FieldLimit]:
    required = set(model.get("required", []))
    out: list[FieldLimit] = []
    for name, prop in model.get("properties", {}).items():
        node = _plain(prop)
        limit = FieldLimit(
            field=prefix + name,
            max_length=node.get("maxLength"),
            min_items=node.get("minItems"),
            max_items=node.get("maxItems"),
            required=name in required,
        )
        if name != "type" and any(
            (limit.max_length, limit.min_items, limit.max_items, limit.required)
        ):
            out.append(limit)
        items = node.get("items", {})
        ref = items.get("$ref")
        if node.get("type") == "array" and ref and name != "blocks":
            item = defs[ref.rsplit("/", 1)[-1]]
            out += _limits_of(item, prefix=f"{prefix}{name}[].", defs=defs)
        elif node.get("type") == "array" and items.get("maxLength"):
            out.append(FieldLimit(field=f"{prefix}{name}[]", max_length=items["maxLength"]))
    return out


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    """A property's schema without its `anyOf: [X, null]` wrapper."""
    options = [o for o in prop.get("anyOf", []) if o.get("type") != "null"]
    return {**prop, **options[0]} if len(options) == 1 else prop
