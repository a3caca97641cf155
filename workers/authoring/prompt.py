"""What every model adapter sends: the instructions, the brief as JSON, and the output schema.

The schema is SitePageInput's own JSON schema with references inlined (providers' structured
output modes take one self-contained object), so the model answers in the block registry.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from schemas.catalog import Brand
from schemas.content import SitePageInput
from schemas.errors import Issue
from schemas.jobs import GenerationBrief
from schemas.public import Company
from workers.authoring.base import ModelError, PagePayload

SCHEMA_NAME = "site_page"
_DROP_KEYS = frozenset({"discriminator", "examples", "title", "default", "format"})


@cache
def _page_schema_json() -> str:
    raw = SitePageInput.model_json_schema()
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


def system_prompt(*, brand: Brand, company: Company) -> str:
    """The standing instructions: brand voice, banned wording and the claim rule."""
    banned = ", ".join(sorted(b.phrase for b in brand.banned_wording))
    voice = "\n".join(f"- {rule}" for rule in brand.voice)
    return (
        f"You write landing pages for {company.name}: {company.tagline}\n"
        f"About the company: {company.description}\n"
        "Answer with one JSON object matching the given schema, nothing else.\n"
        "Rules:\n"
        "- The first block is the only hero; its `sub` names the brief's `icp` verbatim.\n"
        "- State numbers, percentages and quotes only exactly as the brief's `proof` gives "
        "them. Without proof, add no stats and no quote blocks.\n"
        "- Follow `sections` in order when given, and write in the brief's `tone`.\n"
        f"- Never use these words: {banned}.\n"
        "- Links are site paths or absolute https URLs.\n"
        f"Voice:\n{voice}"
    )


def user_prompt(brief: GenerationBrief, feedback: list[Issue] | None) -> str:
    """The brief, and on a retry the gate's issues with the previous draft."""
    fields = brief.model_dump(
        exclude={"generate_image", "publish", "callback_url"}, exclude_none=True
    )
    text = "Write the page for this brief:\n" + json.dumps(fields, indent=2)
    if feedback:
        problems = "\n".join(f"- {i.field or '(page)'}: {i.code}: {i.message}" for i in feedback)
        text += "\n\nYour previous draft failed the quality gate. Fix every issue:\n" + problems
    return text


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
