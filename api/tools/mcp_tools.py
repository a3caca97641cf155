"""The MCP tool server: six read-only tools over the public records, on the official SDK, and
the staff toolsets (api/tools/staff_tools.py) for those granted their scopes.

The tools are `async` although they do no I/O: the SDK runs a sync tool in a worker
thread, a hop that costs more than the lookup itself.

Tools return the same payloads as the public REST API (services.public_records), so a tool's
structured result equals the REST body without `ok`. Transport, OAuth routes and serving
live in api.tools.mcp_app; this module only declares the server and its tools.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from api.tools.staff_tools import TOOL_SCOPES, StaffPorts, add_staff_tools
from api.tools.tool_scopes import ToolScopes
from schemas.catalog import Catalog
from services.public_records import (
    BlogPostList,
    CareerList,
    CompanyInfo,
    ExperimentFound,
    ExperimentList,
    PublicRecords,
    RoleFound,
)

READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

INSTRUCTIONS = """\
Read-only tools over {name}'s public records: the company, its research experiments,
its blog and its open roles. Every result is the same record the public JSON API serves
at /api/public/v1/. Start with get_company_info for who the company is, what its agents do
and what it costs. To read one experiment or role, list first (list_experiments,
list_careers) and pass a `slug` from the list to get_experiment or get_career.
Staff who granted the signal toolset also get hot_accounts (start there: the accounts
to act on today), account_story, person_story and search_signals, each the Signal API's
answer for the same data; with the page toolsets, list_pages and page_funnel (how a page
converts) and draft_page_from_brief (a new page as a draft to review, never published),
each the Content API's answer.
"""

Slug = Annotated[str, Field(min_length=1, max_length=120, examples=["launch-week"])]


def create_mcp_server(
    catalog: Catalog,
    *,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
    website_url: str | None = None,
    staff: StaffPorts | None = None,
) -> MCPServer:
    """The MCP server with its six public tools, and the staff tools when `staff` is given
    (shown to callers whose token holds their scope); pass a verifier and AuthSettings to
    require OAuth."""
    records = PublicRecords(catalog)
    mcp = MCPServer(
        catalog.company.name,
        title=f"{catalog.company.name} public records",
        description=catalog.company.tagline,
        instructions=INSTRUCTIONS.format(name=catalog.company.name),
        website_url=website_url,
        token_verifier=token_verifier,
        auth=auth,
        middleware=[ToolScopes(TOOL_SCOPES)],
    )
    if staff is not None:
        add_staff_tools(mcp, staff)

    @mcp.tool(
        title="Company overview",
        description=(
            "The company record: name, tagline, description, its AI agents (each with a "
            "name and what it does), engagement model, pricing plans, founders and "
            "canonical URLs. Takes no arguments."
        ),
        annotations=READ_ONLY,
    )
    async def get_company_info() -> CompanyInfo:
        return records.company

    @mcp.tool(
        title="List research experiments",
        description=(
            "Every published research experiment: slug, title, tag, status, excerpt, author, "
            "date, reading time and URL. Pass a slug to get_experiment for the write-up."
        ),
        annotations=READ_ONLY,
    )
    async def list_experiments() -> ExperimentList:
        return records.experiments

    @mcp.tool(
        title="Read one research experiment",
        description=(
            "One research experiment with its full write-up in Markdown. `slug` comes from "
            "list_experiments; an unknown slug returns an error naming it."
        ),
        annotations=READ_ONLY,
    )
    async def get_experiment(slug: Slug) -> ExperimentFound:
        found = records.experiment_by_slug.get(slug)
        if found is None:
            raise ToolError(
                f"No experiment has the slug {slug!r}. Call list_experiments for the valid "
                "slugs, then call get_experiment with one of them."
            )
        return found

    @mcp.tool(
        title="List blog posts",
        description=(
            "Every blog post: slug, title, author, date, excerpt and URL. Takes no arguments."
        ),
        annotations=READ_ONLY,
    )
    async def list_blog_posts() -> BlogPostList:
        return records.posts

    @mcp.tool(
        title="List open roles",
        description=(
            "Every open role: slug, code, title, tagline, location, type, whether it is new, "
            "and URL. Pass a slug to get_career for the full description."
        ),
        annotations=READ_ONLY,
    )
    async def list_careers() -> CareerList:
        return records.roles

    @mcp.tool(
        title="Read one open role",
        description=(
            "One open role with its full description in Markdown. `slug` comes from "
            "list_careers; an unknown slug returns an error naming it."
        ),
        annotations=READ_ONLY,
    )
    async def get_career(slug: Slug) -> RoleFound:
        found = records.role_by_slug.get(slug)
        if found is None:
            raise ToolError(
                f"No open role has the slug {slug!r}. Call list_careers for the valid slugs, "
                "then call get_career with one of them."
            )
        return found

    return mcp
