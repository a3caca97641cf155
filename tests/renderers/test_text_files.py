"""SPEC "Machine-readable files" rendered by pure functions: llms.txt per the proposal, docs
expanded from the models, sitemaps and robots."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from backends.content_files import load_catalog
from renderers.api_reference import Reference, build_reference
from renderers.sitemap import (
    IMAGE_NS,
    SITEMAP_NS,
    SitemapEntry,
    render_image_sitemap,
    render_sitemap,
)
from renderers.text_files import (
    DocDirectiveError,
    expand_doc,
    markdown_table,
    render_llms_full,
    render_llms_txt,
    render_robots,
)
from schemas.catalog import Catalog
from schemas.openapi.document import build_openapi

BASE = "https://kestrel.example"
CONTENT = Path(__file__).resolve().parents[2] / "content"
LINK = re.compile(r"^- \[(?P<name>[^\]]+)\]\((?P<url>[^)\s]+)\)(?::\s*(?P<notes>.*))?$")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(CONTENT)


@pytest.fixture(scope="module")
def reference(catalog: Catalog) -> Reference:
    return build_reference(build_openapi(base_url=BASE, catalog=catalog))


def parse_llms_txt(text: str) -> dict[str, object]:
    """The llms.txt proposal's structure: H1, optional blockquote, prose, then H2 link lists."""
    lines = text.splitlines()
    assert lines[0].startswith("# "), "first line is the H1 with the site name"
    title = lines[0][2:]
    body = lines[1:]
    first_h2 = next(i for i, line in enumerate(body) if line.startswith("## "))
    preamble, rest = body[:first_h2], body[first_h2:]
    assert not any(line.startswith("#") for line in preamble), "no headings before the H2s"
    summary = next((line[2:] for line in preamble if line.startswith("> ")), None)
    sections: dict[str, list[dict[str, str]]] = {}
    current = ""
    for line in rest:
        if line.startswith("## "):
            current = line[3:]
            sections[current] = []
        elif line.strip():
            match = LINK.match(line)
            assert match, f"a section line is a `- [name](url): notes` link: {line!r}"
            sections[current].append(match.groupdict())
    return {"title": title, "summary": summary, "sections": sections}


@pytest.mark.spec("files.llms")
def test_llms_txt_follows_the_proposal_structure(catalog: Catalog, reference: Reference) -> None:
    """DESIGN: H1 site name, blockquote summary, H2 link lists and an Optional section."""
    parsed = parse_llms_txt(render_llms_txt(catalog, reference, base_url=BASE))

    sections = parsed["sections"]
    assert parsed["title"] == catalog.company.name
    assert parsed["summary"]
    assert isinstance(sections, dict)
    assert list(sections)[-1] == "Optional"
    assert {"Docs", "Public API", "Research", "Careers"} <= set(sections)
    docs = {link["url"] for link in sections["Docs"]}
    assert {f"{BASE}/openapi.json", f"{BASE}/AGENTS.md", f"{BASE}/developers"} <= docs
    assert len(sections["Research"]) == len(catalog.experiments)


@pytest.mark.spec("files.llms-full")
def test_llms_full_carries_company_agents_pricing_and_every_body(
    catalog: Catalog, reference: Reference
) -> None:
    """SPEC files /llms-full.txt: extended documentation in markdown."""
    text = render_llms_full(
        catalog, reference, ["# Content API\n\n```sh\n# keep\n```"], base_url=BASE
    )

    assert text.startswith(f"# {catalog.company.name}\n")
    assert all(f"**{agent.name}**" in text for agent in catalog.company.agents)
    assert all(plan.price in text for plan in catalog.company.pricing)
    assert all(e.body.splitlines()[-1] in text for e in catalog.experiments)
    assert all(r.description.splitlines()[-1] in text for r in catalog.roles)
    assert all(f"### {post.title}" in text for post in catalog.posts)
    assert "### Content API" in text
    assert "```sh\n# keep\n```" in text
    assert "`/api/public/v1/company`" in text


@pytest.mark.spec("files.docs")
def test_doc_directives_expand_from_the_models_and_the_base_url(reference: Reference) -> None:
    """DESIGN: docs generated from the models where they can be, so they cannot drift."""
    source = "Base {base_url}.\n\n<!-- fields: SitePageInput -->\n\n<!-- operations: Content -->\n"

    text = expand_doc(source, base_url=BASE, reference=reference, errors=[("401", "`x`", "X")])

    assert text.startswith(f"Base {BASE}.")
    assert "| `slug` | string | yes | max length 80;" in text
    assert "| `blocks` | array of one of HeroBlock" in text
    assert "| POST | `/api/public/content/pages/generate` |" in text
    assert "<!--" not in text


@pytest.mark.spec("files.docs")
def test_a_doc_directive_naming_an_unknown_model_stops_start_up(reference: Reference) -> None:
    """DESIGN: a renamed model cannot leave a stale doc behind."""
    with pytest.raises(DocDirectiveError, match="NoSuchModel"):
        expand_doc("<!-- fields: NoSuchModel -->", base_url=BASE, reference=reference, errors=[])


@pytest.mark.spec("files.docs")
def test_every_doc_source_expands(catalog: Catalog, reference: Reference) -> None:
    """SPEC files: content-api.md, signals-api.md, signals-agent.md and AGENTS.md render."""
    for name in ("agents.md", "content-api.md", "signals-api.md", "signals-agent.md"):
        text = expand_doc(catalog.docs[name], base_url=BASE, reference=reference, errors=[])

        assert "{base_url}" not in text
        assert text.startswith("# ")


def test_markdown_table_escapes_pipes_and_newlines() -> None:
    """DESIGN: tables stay tables whatever a description holds."""
    assert markdown_table(("a", "b"), [("x|y", "1\n2")]) == "| a | b |\n|---|---|\n| x\\|y | 1 2 |"


@pytest.mark.spec("files.sitemaps")
def test_sitemaps_use_the_sitemap_and_image_namespaces() -> None:
    """SPEC files /sitemap.xml and /sitemap-images.xml."""
    entries = [
        SitemapEntry(f"{BASE}/developers"),
        SitemapEntry(f"{BASE}/p/a&b", "2026-11-01", (f"{BASE}/assets/a.png",)),
    ]

    sitemap = ET.fromstring(render_sitemap(entries))  # noqa: S314  # our own output
    images = ET.fromstring(render_image_sitemap(entries))  # noqa: S314

    assert [u.findtext(f"{{{SITEMAP_NS}}}loc") for u in sitemap] == [e.loc for e in entries]
    assert sitemap[1].findtext(f"{{{SITEMAP_NS}}}lastmod") == "2026-11-01"
    assert [i.text for i in images.iter(f"{{{IMAGE_NS}}}loc")] == [f"{BASE}/assets/a.png"]


@pytest.mark.spec("files.robots")
def test_robots_allows_the_site_and_keeps_keyed_apis_and_mcp_out() -> None:
    """SPEC files /robots.txt."""
    assert render_robots(BASE).splitlines() == [
        "User-agent: *",
        "Allow: /",
        "Disallow: /api/public/content/",
        "Disallow: /api/public/v1/signals",
        "Disallow: /mcp",
        "",
        f"Sitemap: {BASE}/sitemap.xml",
        f"Sitemap: {BASE}/sitemap-images.xml",
    ]
