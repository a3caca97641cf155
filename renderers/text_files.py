"""The machine-readable text files: llms.txt, llms-full.txt, AGENTS.md, the API docs and robots.txt.

Pure: the catalog, the API reference (from the OpenAPI document), the docs' Markdown sources
(content/docs/) and the base URL go in, text comes out. Docs may carry directives that expand
from the models so they cannot drift: `<!-- fields: Model -->`, `<!-- operations: Tag -->`,
`<!-- errors -->`, `<!-- files -->`; `{base_url}` is substituted everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from schemas.catalog import Catalog

if TYPE_CHECKING:  # the files render on first request: a start loads only DOC_FILES
    from renderers.api_reference import OperationView, Reference

__all__ = [
    "DOC_FILES",
    "DocDirectiveError",
    "error_rows",
    "expand_doc",
    "markdown_table",
    "render_llms_full",
    "render_llms_txt",
    "render_robots",
]

# Served path -> source file under content/docs/.
DOC_FILES: dict[str, str] = {
    "/AGENTS.md": "agents.md",
    "/content-api.md": "content-api.md",
    "/signals-api.md": "signals-api.md",
    "/signals-agent.md": "signals-agent.md",
    "/mcp.md": "mcp.md",
}
_DIRECTIVE = re.compile(r"<!--\s*(fields|operations|errors|files)\s*:?\s*([\w-]*)\s*-->")
_CODE = re.compile(r"`([a-z_]+)`")
_HEADING = re.compile(r"^(#{1,6}) ")


class DocDirectiveError(ValueError):
    """A doc directive names a schema or tag the OpenAPI document does not have."""


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table; pipes and newlines in cells are escaped."""

    def cell(value: str) -> str:
        return value.replace("|", "\\|").replace("\n", " ") or " "

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(str(v)) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def error_rows(
    meanings: Mapping[int, str], titles: Mapping[str, str]
) -> list[tuple[str, str, str]]:
    """(status, code, title) for every code the statuses name."""
    return [
        (str(status), f"`{code}`", titles.get(code, ""))
        for status, text in sorted(meanings.items())
        for code in _CODE.findall(text)
    ]


def expand_doc(
    text: str,
    *,
    base_url: str,
    reference: Reference,
    errors: Sequence[tuple[str, str, str]],
) -> str:
    """A doc source with `{base_url}` substituted and every directive expanded."""
    schemas = {s.name: s for s in reference.schemas}
    tags = {tag: ops for tag, _, ops in reference.tags}

    def expand(match: re.Match[str]) -> str:
        kind, arg = match.group(1), match.group(2)
        if (kind == "fields" and arg not in schemas) or (kind == "operations" and arg not in tags):
            # A renamed model or tag must fail at start-up, not leave a stale doc behind.
            raise DocDirectiveError(f"{match.group(0)} names nothing in the OpenAPI document")
        if kind == "fields":
            rows = [
                (f"`{n}`", t, "yes" if r else "no", notes) for n, t, r, notes in schemas[arg].fields
            ]
            return markdown_table(("Field", "Type", "Required", "Notes"), rows)
        if kind == "operations":
            return operations_table(tags[arg])
        if kind == "files":
            return "\n".join(
                f"- [{op.path}]({base_url}{op.path}): {op.summary}" for op in tags["Files"]
            )
        return markdown_table(("Status", "Code", "Meaning"), errors)

    return _DIRECTIVE.sub(expand, text).replace("{base_url}", base_url)


def operations_table(ops: Iterable[OperationView]) -> str:
    """Method, path, auth and summary of each operation."""
    rows = [(op.method, f"`{op.path}`", "; ".join(op.auth), op.summary) for op in ops]
    return markdown_table(("Method", "Path", "Auth", "What it does"), rows)


def render_llms_txt(catalog: Catalog, reference: Reference, *, base_url: str) -> str:
    """llms.txt per the proposal: H1, blockquote summary, notes, H2 link lists, `## Optional`."""
    company = catalog.company
    files = {op.path: op.summary for _, _, ops in reference.tags for op in ops if op.tag == "Files"}

    def link(path: str, name: str | None = None) -> str:
        return f"- [{name or path.lstrip('/')}]({base_url}{path}): {files.get(path, '')}"

    lines = [
        f"# {company.name}",
        "",
        f"> {company.tagline} {company.description.split('. ')[0].rstrip('.')}.",
        "",
        "This service exposes a read-only public JSON API (no key), a Content API for landing "
        "pages and a Signal API (partner key in `x-api-key`), and an MCP tool server at `/mcp` "
        "(OAuth 2.1). Every success body has `ok: true`; errors are `application/problem+json` "
        "with a stable `error` code.",
        "",
        "## Docs",
        "",
        link("/AGENTS.md"),
        link("/openapi.json", "OpenAPI 3.1"),
        link("/content-api.md"),
        link("/signals-api.md"),
        link("/signals-agent.md"),
        link("/mcp.md"),
        link("/developers", "Developer portal"),
        "",
        "## Public API",
        "",
    ]
    public = {tag: ops for tag, _, ops in reference.tags}["Public"]
    lines += [
        f"- [{op.summary}]({base_url}{op.path}): `{op.method} {op.path}`, no key"
        for op in public
        if "{" not in op.path
    ]
    lines += [
        "",
        "## Tools",
        "",
        f"- [MCP tool server]({base_url}/mcp): streamable HTTP; tools get_company_info, "
        "list_experiments, get_experiment, list_blog_posts, list_careers, get_career; for "
        "staff who grant the signals:read toolset, hot_accounts, account_story, person_story, "
        "search_signals; pages:read, list_pages, page_funnel; pages:draft, "
        "draft_page_from_brief (drafts only); OAuth 2.1 with PKCE and Dynamic Client "
        "Registration",
        f"- [Protected resource metadata]({base_url}/.well-known/oauth-protected-resource): "
        "RFC 9728, names the authorization server",
        f"- [Authorization server metadata]({base_url}/.well-known/oauth-authorization-server): "
        "RFC 8414",
    ]
    lines += ["", "## Research", ""]
    lines += [
        f"- [{e.title}]({base_url}/api/public/v1/research/{e.slug}): {e.excerpt}"
        for e in catalog.experiments
    ]
    lines += ["", "## Careers", ""]
    lines += [
        f"- [{r.title}]({base_url}/api/public/v1/careers/{r.slug}): {r.tagline}"
        for r in catalog.roles
    ]
    lines += [
        "",
        "## Optional",
        "",
        link("/llms-full.txt"),
        link("/developers.md", "Developer portal (Markdown)"),
        link("/developers.json", "Developer manifest"),
        link("/sitemap.xml"),
        f"- [Company website]({company.urls.website}): the marketing site",
        "",
    ]
    return "\n".join(lines)


def render_llms_full(
    catalog: Catalog, reference: Reference, docs: Sequence[str], *, base_url: str
) -> str:
    """Everything in one Markdown file: company, agents, pricing, research, roles, blog, APIs."""
    c = catalog.company
    out = [f"# {c.name}", "", f"> {c.tagline}", "", c.description, ""]
    out += ["## Agents", ""] + [f"- **{a.name}**: {a.does}" for a in c.agents] + [""]
    em = c.engagement_model
    out += ["## Engagement model", "", em.summary, ""]
    out += [f"{i}. {step}" for i, step in enumerate(em.steps, 1)]
    out += ["", f"Minimum term: {em.minimum_term}. Cancellation: {em.cancellation}", ""]
    out += ["## Pricing", ""]
    for plan in c.pricing:
        out += [f"### {plan.name}: {plan.price} ({plan.billing})", "", plan.summary, ""]
        out += [f"- {item}" for item in plan.includes] + [""]
    out += ["## Founders", ""] + [f"- **{f.name}**, {f.title}: {f.bio}" for f in c.founders]
    out += ["", "## Research experiments", ""]
    for e in catalog.experiments:
        meta = f"{e.tag} · {e.status} · {e.surface} · {e.author} · {e.date} · {e.readTime}"
        out += [f"### {e.title}", "", f"{meta} · <{e.url}>", "", _demote(e.body), ""]
    out += ["## Open roles", ""]
    for r in catalog.roles:
        meta = f"{r.code} · {r.location} · {r.type}" + (" · new" if r.isNew else "")
        out += [
            f"### {r.title}",
            "",
            f"{r.tagline} ({meta}) <{r.url}>",
            "",
            _demote(r.description),
            "",
        ]
    out += ["## Blog", ""]
    for post in catalog.posts:
        body = _demote(catalog.post_bodies.get(post.slug, post.excerpt))
        out += [
            f"### {post.title}",
            "",
            f"{post.author} · {post.date} · <{post.url}>",
            "",
            body,
            "",
        ]
    out += [
        "",
        "## API overview",
        "",
        f"Base URL: {base_url}. OpenAPI 3.1: {base_url}/openapi.json",
        "",
    ]
    for tag, description, ops in reference.tags:
        out += [f"### {tag}", "", description, "", operations_table(ops), ""]
    out += [_demote(doc) for doc in docs]
    return "\n".join(out).rstrip() + "\n"


def _demote(markdown: str) -> str:
    """Headings two levels down (not in code blocks), so an embedded doc nests under ours."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = _HEADING.match(line)
        if heading and not fenced:
            line = "#" * min(len(heading.group(1)) + 2, 6) + line[len(heading.group(1)) :]
        lines.append(line)
    return "\n".join(lines)


def render_robots(base_url: str) -> str:
    """Crawl rules: everything public, keyed APIs and the tool server out, both sitemaps named."""
    return (
        "User-agent: *\n"
        "Allow: /\n"
        "Disallow: /api/public/content/\n"
        "Disallow: /api/public/v1/signals\n"
        "Disallow: /mcp\n"
        "\n"
        f"Sitemap: {base_url}/sitemap.xml\n"
        f"Sitemap: {base_url}/sitemap-images.xml\n"
    )
