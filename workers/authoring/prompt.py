"""What every model adapter sends: the instructions, the brief as JSON, and the output schema.

The schema is SitePageInput's own JSON schema with references inlined (providers' structured
output modes take one self-contained object), so the model answers in the block registry. The
rules come from the brand rules document (gate.brand_rules, what GET /api/public/content/brand
answers): its limits, banned phrases with what to write instead, and the claims rule; the
company's published prices (the only prices a page may state) and what a lead form's `next`
says come from the company record and the block registry.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from gate.brand_rules import RULES, brand_rules
from schemas.catalog import Brand
from schemas.content.brand_rules import BrandRules
from schemas.content.jobs import GenerationBrief
from schemas.content.pages import NEXT_STEP_MAX, NEXT_STEPS_MAX, SitePageInput
from schemas.content.schedule import SCHEDULE_FIELDS
from schemas.errors import Issue
from schemas.public import Company
from workers.authoring.base import ModelError, PagePayload
from workers.authoring.desk import ANGLE_HEADLINE, ANGLE_PROOF, ANGLE_VOICE

SCHEMA_NAME = "site_page"
_DROP_KEYS = frozenset({"discriminator", "examples", "title", "default", "format"})


@cache
def _page_schema_json() -> str:
    raw = SitePageInput.model_json_schema()
    # A page's schedule is its editor's (the brief's `publish` decides whether it goes live),
    # never the writer's: the model is not offered the fields, and workers/steps.py drops them.
    for name in SCHEDULE_FIELDS.values():
        raw["properties"].pop(name, None)
    defs = raw.pop("$defs", {})
    return json.dumps(_inline(raw, defs))


def page_schema() -> dict[str, Any]:
    """SitePageInput's JSON schema, self-contained (no $ref, no discriminator)."""
    schema: dict[str, Any] = json.loads(_page_schema_json())
    return schema


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        out = {k: _inline(v, defs) for k, v in node.items() if k not in _DROP_KEYS}
        if isinstance(node.get("properties"), dict):  # property names are data, keep all
            out["properties"] = {k: _inline(v, defs) for k, v in node["properties"].items()}
        if "oneOf" in out:  # discriminated unions: anyOf is what every provider accepts
            out["anyOf"] = out.pop("oneOf")
        return out
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def limits_text(rules: BrandRules) -> str:
    """The document's field limits as one line: 'title 60; blocks[hero].sub 220; ...'."""
    parts = []
    for limit in rules.limits:
        if limit.max_length is not None:
            parts.append(f"{limit.field} {limit.max_length}")
        if limit.max_items is not None:
            parts.append(f"{limit.field} {limit.min_items or 0} to {limit.max_items} items")
    return "; ".join(parts)


def prices_text(company: Company) -> str:
    """The company's price list, one plan a line: name, price, billing and what it is."""
    return "\n".join(
        f"  - {plan.name}: {plan.price}. {plan.billing}. {plan.summary}" for plan in company.pricing
    )


def _rule(code: str) -> str:
    return next(rule.rule for rule in RULES if rule.code == code)


def system_prompt(*, brand: Brand, company: Company) -> str:
    """The standing instructions: what the gate checks, so a page can pass it the first time."""
    rules = brand_rules(brand)
    banned = "; ".join(f"{b.phrase} (instead: {b.suggest})" for b in rules.banned_wording)
    voice = "\n".join(f"- {rule}" for rule in rules.voice)
    return (
        f"You write landing pages for {company.name}: {company.tagline}\n"
        f"About the company: {company.description}\n"
        "Answer with one JSON object matching the given schema, nothing else.\n"
        f"A quality gate (ruleset {rules.ruleset}) checks every page; a page with an error is "
        "sent back once. Rules:\n"
        "- ICP: the first block is the only hero, and its `sub` names the brief's `icp` "
        "verbatim (for example 'For heads of growth at Series A SaaS companies: ...'), never "
        "in a negated clause ('not for ...').\n"
        f"- Limits, in characters unless items: {limits_text(rules)}. Write a shorter "
        "sentence rather than cut one.\n"
        "- Claims: state numbers, percentages and customer quotes only as the brief's proof "
        "list gives them, each number with its scale ('1.2 million' or '1.2M', never '1.2'). "
        "Never write a number the proof does not give. Without proof, add no stats and no "
        "quote blocks. Do not inflate the proof without numbers either: no 'every client', "
        "'always', 'doubled' or 'tenfold' where the proof says '18 of 20' or '24%'. "
        f"{_rule('unsupported_claim')} Quote a customer only with the proof's words, in a "
        "quote block with `who`.\n"
        f"- Promises: {_rule('universal_promise')}\n"
        f"- Prices: {company.name}'s published prices, the only prices and terms a page may "
        f"state (under a pricing heading, as they are written):\n{prices_text(company)}\n"
        "- A `leadform` block's `next` lists what happens after a visitor sends the form, "
        f"one short sentence per item (at most {NEXT_STEPS_MAX}, each at most "
        f"{NEXT_STEP_MAX} characters), for the brief's `goal`: a write-up emailed, a reply, or "
        "a time found for a call. Promise only what the goal offers; left out, the form "
        "promises a 45-minute intro call.\n"
        "- Use each proof fact once: numbers as stats (the label a whole phrase), quotes as "
        "quote blocks.\n"
        "- Give each of the brief's `sections` a block whose `title` is the section name, in "
        "order, with its own copy. Never repeat a sentence. Write in the brief's `tone`.\n"
        "- `goal` tells you what the page is for; never print it.\n"
        "- Never use these words, except negated ('no guaranteed meetings'): "
        f"{banned}.\n"
        "- Links are site paths or absolute https URLs.\n"
        f"Voice:\n{voice}"
    )


# What a variant of the page changes (the built-in writer's angles, workers/authoring/desk.py),
# so a model writes versions that differ in what a buyer reads first, not in a word or two.
ANGLE_ASKS = {
    ANGLE_HEADLINE: "This is a variant of the page for an A/B test: lead the hero with another "
    "headline angle than the topic as named (the offer's main promise, or who it is for named "
    "first), so the two heroes make different arguments. Keep the facts and the sections.",
    ANGLE_PROOF: "This is a variant of the page for an A/B test: put the proof first. The "
    "hero's title states one fact from the proof list, as written (with no proof, what the "
    "buyer gets in writing), and the stats below do not repeat it. Keep the sections.",
    ANGLE_VOICE: "This is a variant of the page for an A/B test: write the whole page in "
    "another voice than the brief's tone (warm if the tone is direct or says none, formal if "
    "warm, plain and direct if formal), with a hero that sounds like it. Keep the facts and "
    "the sections.",
}


def user_prompt(brief: GenerationBrief, feedback: list[Issue] | None, *, angle: int = 0) -> str:
    """The brief, its proof list, the variant's angle (0: the page itself), and on a retry each
    failed issue with its field path."""
    fields = brief.model_dump(
        exclude={"generate_image", "publish", "callback_url"}, exclude_none=True
    )
    text = "Write the page for this brief:\n" + json.dumps(fields, indent=2)
    if brief.proof:
        facts = "\n".join(f"{n}. {fact}" for n, fact in enumerate(brief.proof, start=1))
        text += "\n\nThe only facts you may state (the proof list):\n" + facts
    else:
        text += "\n\nThe brief gives no proof: state no numbers, stats or customer quotes."
    if angle:
        text += "\n\n" + ANGLE_ASKS[angle]
    if feedback:
        problems = "\n".join(f"- {i.field or '(page)'}: {i.code}: {i.message}" for i in feedback)
        text += (
            "\n\nYour previous draft failed the quality gate. Fix every issue below and "
            "change nothing else:\n" + problems
        )
    return text


def gate_feedback(issues: list[Issue], payload: object) -> list[Issue]:
    """The gate's issues with the offending text of each field quoted, for the retry prompt."""
    out = []
    for issue in issues:
        value = _at(payload, issue.field)
        if isinstance(value, str) and value:
            shown = value if len(value) <= 240 else value[:240] + " [...]"
            issue = issue.model_copy(
                update={"message": f"{issue.message}; your text: {json.dumps(shown)}"}
            )
        out.append(issue)
    return out


def _at(payload: object, path: str) -> object:
    node = payload
    for part in path.split(".") if path else []:
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def parse_page(text: str | None, *, provider: str) -> PagePayload:
    """The model's answer as a payload object. Raises: ModelError."""
    if not text or not text.strip():
        raise ModelError(provider, "empty answer")
    body = text.strip()
    if body.startswith("```"):  # some models fence JSON even in JSON mode
        body = body.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        raise ModelError(provider, "answer is not JSON") from err
    return ensure_object(data, provider=provider)


def ensure_object(data: Any, *, provider: str) -> PagePayload:
    """`data` if it is a page-shaped object. Raises: ModelError."""
    if not isinstance(data, dict) or not isinstance(data.get("blocks"), list):
        raise ModelError(provider, "answer is not a page object with blocks")
    return data
