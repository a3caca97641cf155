"""STYLE "Tests read like the spec": every SPEC.md endpoint, and each one DESIGN.md adds, has a
test marked `@pytest.mark.spec(ID)` (the MCP SDK's manifest idea).

The endpoint lists are tests/api/test_files.py's transcription of SPEC.md's tables, which the
OpenAPI test holds to the served document. Marks are read from the test sources with ast, so
this runs alone, collects nothing and costs milliseconds.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.api.test_files import DESIGN_ENDPOINTS, SPEC_ENDPOINTS

TESTS = Path(__file__).resolve().parent
DOCS = "files.docs"
DEVELOPERS = "files.developers"
WEBHOOKS = "signals.webhooks"
SIGNALS = "/api/public/v1/signals"
PAGES = "/api/public/content/pages"

# Each endpoint's spec id: a test marked with it, or with an id under it (`content.gate` is
# covered by `content.gate.icp`), must exist.
COVERAGE: dict[tuple[str, str], str] = {
    ("get", "/api/public/v1/company"): "public.company",
    ("get", "/api/public/v1/blog"): "public.blog",
    ("get", "/api/public/v1/research"): "public.research",
    ("get", "/api/public/v1/research/{slug}"): "public.research.detail",
    ("get", "/api/public/v1/careers"): "public.careers",
    ("get", "/api/public/v1/careers/{slug}"): "public.careers.detail",
    ("post", PAGES): "content.create",
    ("get", PAGES): "content.list",
    ("post", f"{PAGES}/generate"): "content.generate",
    ("get", f"{PAGES}/{{slug}}"): "content.read",
    ("patch", f"{PAGES}/{{slug}}"): "content.update",
    ("delete", f"{PAGES}/{{slug}}"): "content.delete",
    ("get", "/api/public/content/jobs/{id}"): "content.jobs",
    ("get", "/api/public/content/brand"): "content.brand",
    ("get", f"{PAGES}/{{slug}}/versions"): "content.history",
    ("get", f"{PAGES}/{{slug}}/versions/{{n}}"): "content.history",
    ("post", f"{PAGES}/{{slug}}/versions/{{n}}/restore"): "content.history",
    ("get", f"{PAGES}/{{slug}}/experiment"): "content.experiments",
    ("post", f"{PAGES}/{{slug}}/experiment/end"): "content.experiments",
    ("get", f"{PAGES}/{{slug}}/stats"): "content.page_stats",
    ("get", SIGNALS): "signals.stream",
    ("get", f"{SIGNALS}/accounts"): "signals.accounts",
    ("get", f"{SIGNALS}/accounts/{{domain}}"): "signals.lookup",
    ("get", f"{SIGNALS}/people/{{email}}"): "signals.lookup",
    ("delete", f"{SIGNALS}/people/{{email}}"): "signals.erase",
    ("post", f"{SIGNALS}/events"): "signals.ingest",
    ("post", "/api/public/v1/collect"): "signals.collect",
    ("post", f"{SIGNALS}/webhooks"): WEBHOOKS,
    ("get", f"{SIGNALS}/webhooks"): WEBHOOKS,
    ("delete", f"{SIGNALS}/webhooks/{{id}}"): WEBHOOKS,
    ("post", f"{SIGNALS}/webhooks/{{id}}/rotate"): WEBHOOKS,
    ("get", f"{SIGNALS}/webhooks/{{id}}/deliveries"): WEBHOOKS,
    ("post", f"{SIGNALS}/webhooks/deliveries/{{delivery_id}}/replay"): WEBHOOKS,
    ("post", "/mcp"): "mcp.tools",
    ("get", "/.well-known/oauth-authorization-server"): "mcp.discovery",
    ("get", "/.well-known/oauth-protected-resource"): "mcp.discovery",
    ("get", "/p/{slug}"): "pages.serve",
    ("get", "/openapi.json"): "files.openapi",
    ("get", "/api/openapi.json"): "files.openapi",
    ("get", "/llms.txt"): "files.llms",
    ("get", "/llms-full.txt"): "files.llms-full",
    ("get", "/AGENTS.md"): DOCS,
    ("get", "/content-api.md"): DOCS,
    ("get", "/signals-api.md"): DOCS,
    ("get", "/signals-agent.md"): DOCS,
    ("get", "/mcp.md"): DOCS,
    ("get", "/sitemap.xml"): "files.sitemaps",
    ("get", "/sitemap-images.xml"): "files.sitemaps",
    ("get", "/robots.txt"): "files.robots",
    ("get", "/developers"): DEVELOPERS,
    ("get", "/developers.json"): DEVELOPERS,
    ("get", "/developers.md"): DEVELOPERS,
}


def spec_marks() -> dict[str, list[str]]:
    """Every `pytest.mark.spec("ID")` in tests/, by id: where each one is (file:line)."""
    marks: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            mark_id = _spec_mark_id(node)
            if mark_id is not None:
                where = f"{path.relative_to(TESTS)}:{node.lineno}"
                marks.setdefault(mark_id, []).append(where)
    return marks


def _spec_mark_id(node: ast.Call) -> str | None:
    if not isinstance(node.func, ast.Attribute):
        return None
    func = node.func
    if func.attr != "spec" or not (
        isinstance(func.value, ast.Attribute) and func.value.attr == "mark"
    ):
        return None
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def covered(spec_id: str, marks: dict[str, list[str]]) -> bool:
    """A test is marked with `spec_id` or with an id under it."""
    return any(mark == spec_id or mark.startswith(spec_id + ".") for mark in marks)


def test_the_coverage_table_names_every_spec_and_design_endpoint() -> None:
    """SPEC Endpoints and the machine-readable table, DESIGN's additions: each has a row."""
    endpoints = {*SPEC_ENDPOINTS, *DESIGN_ENDPOINTS}

    assert set(COVERAGE) == endpoints


def test_every_endpoint_has_a_test_marked_with_its_spec_id() -> None:
    """STYLE: a `@pytest.mark.spec` mark pins each endpoint to at least one test."""
    marks = spec_marks()

    uncovered = {
        endpoint: spec_id for endpoint, spec_id in COVERAGE.items() if not covered(spec_id, marks)
    }

    assert uncovered == {}


def test_spec_marks_are_found_in_decorators_and_module_pytestmark() -> None:
    """The ast reader sees both ways a mark is written in this suite."""
    marks = spec_marks()

    assert any(where.startswith("test_cli_signals.py:") for where in marks["signals.stream"])
    assert any(where.startswith("mcp_tools/test_signin.py:") for where in marks["mcp.oauth.signin"])
