"""The developer portal: /developers (HTML), /developers.md (Markdown) and /developers.json.

Pure: the API reference (flattened from the OpenAPI document), the company record and the
brand go in; text comes out. The HTML is server-rendered with a small stylesheet inlined, no
JavaScript and nothing fetched from elsewhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from renderers.api_reference import OperationView, Reference
from renderers.assets import brand_tokens, favicon_asset
from renderers.text_files import markdown_table
from schemas.catalog import Brand
from schemas.public import Company

__all__ = ["AUTH_MODES", "render_manifest", "render_portal_html", "render_portal_markdown"]

AUTH_MODES: tuple[tuple[str, str], ...] = (
    ("Public read API, all .txt, .md, .json and XML files", "None; open CORS, cacheable"),
    ("Content API (`/api/public/content/...`)", "Content key in `x-api-key`"),
    (
        "Signal API (`/api/public/v1/signals...`)",
        "Signals key in `x-api-key` or `Authorization: Bearer`",
    ),
    ("Signal ingest and erasure", "Ingest key in `x-api-key`"),
    ("Site form posts (`/api/public/v1/collect`)", "None; origin-checked and rate-limited"),
    (
        "Tool server (`/mcp`)",
        "OAuth 2.1 authorization code with PKCE and Dynamic Client Registration; "
        "scopes `openid email profile` for the six public tools; staff may also grant "
        "`signals:read` (`hot_accounts`, `account_story`, `person_story`, `search_signals`), "
        "`pages:read` (`list_pages`, `page_funnel`) and `pages:draft` "
        "(`draft_page_from_brief`, drafts only, never published); see `/mcp.md`",
    ),
)
# Package files by path: an editable install run from another directory makes `renderers` a
# namespace package, which importlib.resources and PackageLoader cannot read.
HERE = Path(__file__).resolve().parent
_TICKS = re.compile(r"`([^`]+)`")


def _inline(text: str) -> Markup:
    """Escaped text with `code` spans."""
    return Markup(_TICKS.sub(r"<code>\1</code>", str(escape(text))))  # noqa: S704  # input escaped first


@cache
def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = _inline
    return env


def _files(reference: Reference) -> tuple[OperationView, ...]:
    return tuple(op for op in reference.operations if op.tag == "Files")


def render_portal_html(
    reference: Reference,
    *,
    company: Company,
    brand: Brand,
    errors: Sequence[tuple[str, str, str]],
) -> str:
    """The HTML portal: every operation with auth, parameters, fields, responses and curl."""
    names = sorted((s.name for s in reference.schemas), key=len, reverse=True)
    linker = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")

    def types(text: str) -> Markup:
        escaped = str(escape(text))
        return Markup(linker.sub(r'<a href="#schema-\1">\1</a>', escaped))  # noqa: S704  # escaped

    css = brand_tokens(brand) + (HERE / "static" / "developers.css").read_text(encoding="utf-8")
    return (
        _environment()
        .get_template("developers.html.j2")
        .render(
            types=types,
            ref=reference,
            company=company,
            css=Markup(css),  # noqa: S704  # our own stylesheet and brand tokens
            files=_files(reference),
            auth_modes=AUTH_MODES,
            errors=errors,
            contact=company.urls.contact,
            first_curl=reference.operations[0].curl,
            icon=favicon_asset().href,
        )
        .replace("\n\n\n", "\n\n")
    )


def render_portal_markdown(
    reference: Reference, *, company: Company, errors: Sequence[tuple[str, str, str]]
) -> str:
    """The portal as Markdown: the same sections, tables and examples as the HTML."""
    base = reference.base_url
    out = [
        f"# {company.name} developers",
        "",
        f"> {reference.title} v{reference.version}. {reference.description}",
        "",
        f"Base URL: `{base}`. OpenAPI 3.1: <{base}/openapi.json>. HTML: <{base}/developers>.",
        "",
        "## Machine-readable files",
        "",
    ]
    out += [f"- [{op.path}]({base}{op.path}): {op.summary}" for op in _files(reference)]
    out += ["", "## Authentication", "", markdown_table(("Surface", "Mode"), AUTH_MODES)]
    out += ["", "## Errors", "", markdown_table(("Status", "Code", "Meaning"), errors), ""]
    for tag, description, ops in reference.tags:
        out += [f"## {tag}", "", description, ""]
        for op in ops:
            out += _operation_markdown(op)
    out += ["## Schemas", ""]
    for schema in reference.schemas:
        out += [f"### {schema.name}", ""]
        if schema.description:
            out += [schema.description, ""]
        out += [_fields(schema.fields, "Field") if schema.fields else schema.type, ""]
    out += [f"Contact: {company.urls.contact}", ""]
    return "\n".join(out)


def _fields(rows: Sequence[tuple[str, str, bool, str]], first: str) -> str:
    return markdown_table(
        (first, "Type", "Required", "Notes"),
        ((f"`{n}`", t, "yes" if r else "no", notes) for n, t, r, notes in rows),
    )


def _operation_markdown(op: OperationView) -> list[str]:
    out = [
        f"### {op.method} {op.path}",
        "",
        op.summary + (f". {op.description}" if op.description else ""),
        "",
    ]
    out += [f"Operation `{op.operation_id}`. Auth: {' or '.join(op.auth)}.", ""]
    if op.params:
        out += ["Parameters:", "", _fields(op.params, "Parameter"), ""]
    if op.request_type:
        out += [f"Request body: {op.request_type}", ""]
        if op.request_fields:
            out += [_fields(op.request_fields, "Field"), ""]
    rows = (
        (r.status, r.description, f"{r.media_type}: {r.type}" if r.type else r.media_type)
        for r in op.responses
    )
    out += ["Responses:", "", markdown_table(("Status", "Meaning", "Body"), rows), ""]
    if op.success_fields:
        out += [
            f"Response body ({op.success_status}):",
            "",
            _fields(op.success_fields, "Field"),
            "",
        ]
    out += ["```sh", op.curl, "```", ""]
    return out


def render_manifest(reference: Reference, *, company: Company, auth_url: str) -> str:
    """/developers.json: name, description, every file and API, auth modes and contact."""
    base = reference.base_url
    manifest = {
        "name": f"{company.name} developers",
        "description": reference.description,
        "version": reference.version,
        "base_url": base,
        "portal": {"html": f"{base}/developers", "markdown": f"{base}/developers.md"},
        "openapi": f"{base}/openapi.json",
        "files": [
            {"path": op.path, "url": f"{base}{op.path}", "description": op.summary}
            for op in _files(reference)
        ],
        "apis": [
            {
                "name": tag,
                "description": description,
                "operations": [
                    {
                        "id": op.operation_id,
                        "method": op.method,
                        "path": op.path,
                        "summary": op.summary,
                    }
                    for op in ops
                ],
            }
            for tag, description, ops in reference.tags
            if tag != "Files"
        ],
        "auth": [
            {"mode": "none", "applies_to": ["public read API", "files", "collect"]},
            {"mode": "api_key", "header": "x-api-key", "scopes": ["content", "signals", "ingest"]},
            {"mode": "bearer", "header": "Authorization", "applies_to": ["signal API"]},
            {
                "mode": "oauth2",
                "applies_to": ["/mcp"],
                "authorization_endpoint": f"{auth_url}/authorize",
                "token_endpoint": f"{auth_url}/token",
                "scopes": ["openid", "email", "profile"],
                "discovery": [
                    f"{base}/.well-known/oauth-authorization-server",
                    f"{base}/.well-known/oauth-protected-resource",
                ],
            },
        ],
        "contact": {"url": company.urls.contact, "website": str(company.urls.website)},
    }
    return json.dumps(manifest, indent=2) + "\n"
