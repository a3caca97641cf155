"""The OpenAPI 3.1 document of every SPEC.md endpoint, generated from the pydantic models.

`OPERATIONS` is the table: one `Operation` per method and path, naming its models by import.
This module holds the public, tool-server, page and file rows; the Content and Signal rows sit
in `schemas.openapi.operations_content` and `schemas.openapi.operations_signals`. Models still
being written have a `...Doc` stand-in in `schemas.openapi.placeholders`: swap it for the real
one in its row.
`build_openapi` assembles the document (`schemas.openapi.operation.assemble_document`).
"""

import json
from functools import cache
from typing import Any

from schemas.catalog import Catalog
from schemas.errors import NotFoundBody
from schemas.openapi.examples import add_real_examples
from schemas.openapi.operation import (
    ETAG,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    SLUG,
    Operation,
    Param,
    Reply,
    assemble_document,
)
from schemas.openapi.operations_content import CONTENT_OPERATIONS, PAGE_EXAMPLE
from schemas.openapi.operations_experiments import EXPERIMENT_OPERATIONS
from schemas.openapi.operations_signals import SIGNAL_OPERATIONS, WEBHOOK_OPERATIONS
from schemas.openapi.placeholders import (
    AuthServerMetadataDoc,
    JsonRpcDoc,
    OAuthErrorDoc,
    ProtectedResourceDoc,
)
from schemas.public import (
    BlogBody,
    CareersBody,
    CompanyBody,
    ExperimentBody,
    ResearchBody,
    RoleBody,
)

__all__ = ["OPERATIONS", "TAGS", "build_openapi"]

VERSION = "1.0.0"
V1 = "/api/public/v1"

TAGS: tuple[dict[str, str], ...] = (
    {"name": "Public", "description": "Read-only company, blog, research and careers; no key."},
    {"name": "Content", "description": "Landing pages through the brand gate; content key."},
    {"name": "Signals", "description": "Every touch of a person or account; signals key."},
    {"name": "Ingest", "description": "Events into the signal stream; ingest key or none."},
    {"name": "Webhooks", "description": "Push delivery of signal events; signals key."},
    {"name": "Tools", "description": "MCP tool server and its OAuth 2.1 discovery."},
    {"name": "Pages", "description": "Published landing pages as HTML."},
    {"name": "Files", "description": "Machine-readable files; no key, open CORS, cacheable."},
    {"name": "Errors", "description": "A page per error code, named by each problem's `type`."},
)


def _public(op_id: str, path: str, summary: str, body: Any) -> Operation:
    replies = [Reply(200, "OK", body, headers=ETAG), NOT_MODIFIED]
    params: tuple[Param, ...] = (IF_NONE_MATCH,)
    if "{slug}" in path:
        replies.append(Reply(404, "Unknown slug: exactly `{error, slug}`", NotFoundBody))
        params = (SLUG, IF_NONE_MATCH)
    return Operation(
        "get",
        path,
        op_id,
        "Public",
        summary,
        "none",
        tuple(replies),
        params=params,
        errors=(429,),  # limited per client address (content-api.md Rate limits)
    )


def _file(
    op_id: str, path: str, summary: str, media: str, errors: tuple[int, ...] = ()
) -> Operation:
    schema = {"type": "object"} if media == "application/json" else {"type": "string"}
    ok = Reply(200, "OK", media_type=media, schema=schema, headers=ETAG)
    return Operation(
        "get",
        path,
        op_id,
        "Files",
        summary,
        "none",
        (ok, NOT_MODIFIED),
        params=(IF_NONE_MATCH,),
        errors=errors,
    )


PUBLIC_OPERATIONS: tuple[Operation, ...] = (
    _public(
        "getCompany", f"{V1}/company", "Company overview: agents, pricing, founders", CompanyBody
    ),
    _public("listBlogPosts", f"{V1}/blog", "Blog post index", BlogBody),
    _public("listExperiments", f"{V1}/research", "Research experiment index", ResearchBody),
    _public(
        "getExperiment",
        f"{V1}/research/{{slug}}",
        "One experiment with its write-up",
        ExperimentBody,
    ),
    _public("listCareers", f"{V1}/careers", "Open role index", CareersBody),
    _public("getCareer", f"{V1}/careers/{{slug}}", "One open role with its description", RoleBody),
)

MCP_REPLY = Reply(200, "The JSON-RPC response (JSON or an SSE stream)", JsonRpcDoc)
MCP_UNAUTHORIZED = Reply(
    401,
    "No or bad token; `WWW-Authenticate` names the resource metadata",
    OAuthErrorDoc,
)
MCP_FORBIDDEN = Reply(
    403,
    "A token without every scope (`insufficient_scope`, with `scope=` in `WWW-Authenticate`), "
    "or an `Origin` that is not allowed (a JSON-RPC error)",
    schema={
        "oneOf": [
            {"$ref": "#/components/schemas/OAuthErrorDoc"},
            {"$ref": "#/components/schemas/JsonRpcDoc"},
        ]
    },
)
MCP_MISDIRECTED = Reply(421, "A `Host` this server does not serve (DNS rebinding)", JsonRpcDoc)
MCP_NOT_ACCEPTABLE = Reply(406, "`Accept` lacks the media type of the answer", JsonRpcDoc)
MCP_UNAVAILABLE = Reply(
    503,
    "The token could not be checked: the authorization store is down "
    "(`temporarily_unavailable`); retry after `Retry-After` seconds",
    OAuthErrorDoc,
    headers=("Retry-After",),
)
MCP_REFUSALS = (MCP_UNAUTHORIZED, MCP_FORBIDDEN, MCP_MISDIRECTED, MCP_UNAVAILABLE)
TOOL_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post",
        "/mcp",
        "mcpPost",
        "Tools",
        "Send a JSON-RPC message to the tool server",
        "oauth",
        (
            MCP_REPLY,
            Reply(202, "A notification or response accepted; no body"),
            Reply(
                400,
                "Not JSON, not a JSON-RPC message, a `Content-Type` other than "
                "`application/json`, or an unsupported protocol version",
                JsonRpcDoc,
            ),
            *MCP_REFUSALS,
            MCP_NOT_ACCEPTABLE,
            Reply(413, "A body over 4 MiB", JsonRpcDoc),
            Reply(500, "The server failed to handle the message (a JSON-RPC error)", JsonRpcDoc),
        ),
        description=(
            "MCP streamable HTTP, stateless: every POST stands alone. Tools: get_company_info, "
            "list_experiments, get_experiment, list_blog_posts, list_careers, get_career. "
            "Refusals are JSON-RPC error objects (`id` null), OAuth errors on 401 and 403."
        ),
        request=JsonRpcDoc,
        request_example={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ),
    Operation(
        "get",
        "/mcp",
        "mcpStream",
        "Tools",
        "Open the server-to-client event stream",
        "oauth",
        (
            Reply(
                200,
                "An SSE stream; its headers come at once, then a keep-alive comment every 15 s "
                "(a stateless server sends no events on it)",
                media_type="text/event-stream",
                schema={"type": "string"},
            ),
            *MCP_REFUSALS,
            MCP_NOT_ACCEPTABLE,
        ),
    ),
    Operation(
        "delete",
        "/mcp",
        "mcpEndSession",
        "Tools",
        "End an MCP session (none to end: the server is stateless)",
        "oauth",
        (
            Reply(405, "Session termination is not supported: there are no sessions", JsonRpcDoc),
            *MCP_REFUSALS,
        ),
    ),
    Operation(
        "get",
        "/.well-known/oauth-authorization-server",
        "getAuthorizationServerMetadata",
        "Tools",
        "RFC 8414 authorization server metadata",
        "none",
        (Reply(200, "Issuer, endpoints, scopes, PKCE methods", AuthServerMetadataDoc),),
    ),
    Operation(
        "get",
        "/.well-known/oauth-protected-resource",
        "getProtectedResourceMetadata",
        "Tools",
        "RFC 9728 metadata describing /mcp",
        "none",
        (Reply(200, "The resource and its authorization servers", ProtectedResourceDoc),),
    ),
    Operation(
        "get",
        "/.well-known/oauth-protected-resource/mcp",
        "getProtectedResourceMetadataMcp",
        "Tools",
        "The same metadata at the path the 401 from /mcp names",
        "none",
        (Reply(200, "The resource and its authorization servers", ProtectedResourceDoc),),
    ),
    Operation(
        "get",
        "/p/{slug}",
        "getLandingPage",
        "Pages",
        "A published landing page",
        "none",
        (
            Reply(200, "The page", media_type="text/html", schema={"type": "string"}, headers=ETAG),
            Reply(
                302,
                "A `preview` link of an earlier version of a page that is now live: to the live"
                " page (the other query parameters kept; never cached)",
                headers=("Location",),
            ),
            NOT_MODIFIED,
            Reply(
                404,
                "No published page with this slug",
                media_type="text/html",
                schema={"type": "string"},
            ),
            Reply(
                503,
                "The page store is down: an on-brand page, never cached; retry after Retry-After",
                media_type="text/html",
                schema={"type": "string"},
                headers=("Retry-After",),
            ),
        ),
        params=(SLUG, IF_NONE_MATCH),
    ),
)

MARKDOWN = "text/markdown"
FILE_OPERATIONS: tuple[Operation, ...] = (
    _file("getOpenApi", "/openapi.json", "This OpenAPI 3.1 document", "application/json"),
    _file(
        "getOpenApiAlias",
        "/api/openapi.json",
        "This OpenAPI 3.1 document (alias)",
        "application/json",
    ),
    _file("getLlmsTxt", "/llms.txt", "Site overview and navigation for LLMs", "text/plain"),
    _file("getLlmsFullTxt", "/llms-full.txt", "Extended documentation in one file", "text/plain"),
    _file("getAgentsMd", "/AGENTS.md", "Conventions for coding agents", MARKDOWN),
    _file("getContentApiMd", "/content-api.md", "Content API reference", MARKDOWN),
    _file("getSignalsApiMd", "/signals-api.md", "Signal API reference", MARKDOWN),
    _file(
        "getSignalsAgentMd",
        "/signals-agent.md",
        "Operating manual for agents on the signal API",
        MARKDOWN,
    ),
    _file("getMcpMd", "/mcp.md", "How an agent connects to the MCP tool server", MARKDOWN),
    # The sitemaps list the published pages: a page store outage is 503.
    _file("getSitemap", "/sitemap.xml", "Sitemap of public pages", "application/xml", (503,)),
    _file(
        "getImageSitemap",
        "/sitemap-images.xml",
        "Sitemap with image entries",
        "application/xml",
        (503,),
    ),
    _file("getRobotsTxt", "/robots.txt", "Crawl rules", "text/plain"),
    _file(
        "getDeveloperPortal", "/developers", "Developer portal with the API reference", "text/html"
    ),
    _file(
        "getDeveloperManifest", "/developers.json", "Developer portal manifest", "application/json"
    ),
    _file("getDeveloperPortalMd", "/developers.md", "Developer portal as Markdown", MARKDOWN),
)

ERROR_PAGE = Operation(
    "get",
    "/errors/{code}",
    "getErrorPage",
    "Errors",
    "The page a problem body's `type` names: what the code means and what to do",
    "none",
    (
        Reply(200, "OK", media_type="text/html", schema={"type": "string"}, headers=ETAG),
        NOT_MODIFIED,
    ),
    params=(
        Param("code", "path", "An error code", example="invalid_payload"),
        IF_NONE_MATCH,
    ),
    errors=(404,),
)

OPERATIONS: tuple[Operation, ...] = (
    *PUBLIC_OPERATIONS,
    *CONTENT_OPERATIONS,
    *EXPERIMENT_OPERATIONS,
    *SIGNAL_OPERATIONS,
    *WEBHOOK_OPERATIONS,
    *TOOL_OPERATIONS,
    *FILE_OPERATIONS,
    ERROR_PAGE,
)


def security_schemes(auth_url: str) -> dict[str, Any]:
    """The four auth modes of SPEC "Authentication" as OpenAPI security schemes."""
    key = {"type": "apiKey", "in": "header", "name": "x-api-key"}
    scopes = {"openid": "Sign-in", "email": "The user's email", "profile": "Basic profile"}
    return {
        "contentKey": {**key, "description": "Content API key (CONTENT_API_KEY)"},
        "signalsKey": {**key, "description": "Signal API key (SIGNALS_API_KEY)"},
        "signalsBearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "The signals key as a bearer token",
        },
        "ingestKey": {**key, "description": "Ingest key (INGEST_API_KEY)"},
        "ingestBearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "The ingest key as a bearer token",
        },
        "oauth2": {
            "type": "oauth2",
            "description": "OAuth 2.1 authorization code with PKCE (S256 required) and Dynamic "
            "Client Registration; tokens are bound to the /mcp resource (RFC 8707).",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": f"{auth_url}/authorize",
                    "tokenUrl": f"{auth_url}/token",
                    "refreshUrl": f"{auth_url}/token",
                    "scopes": scopes,
                }
            },
        },
    }


def build_openapi(
    *, base_url: str, auth_url: str | None = None, catalog: Catalog | None = None
) -> dict[str, Any]:
    """The whole document for this deployment; with a catalog, slug examples are real slugs."""
    info: dict[str, Any] = {
        "title": "Kestrel Growth public API"
        if catalog is None
        else f"{catalog.company.name} public API",
        "version": VERSION,
        "summary": "Public read, Content, Signal and tool-server APIs",
        "description": (
            "Public read needs no key; the Content and Signal APIs take a partner key in "
            "`x-api-key`; the tool server at /mcp takes OAuth 2.1. Errors are "
            "`application/problem+json` with `ok: false`, a stable `error` code and `issues[]` "
            "naming each failed field."
        ),
    }
    document: dict[str, Any] = json.loads(_skeleton())
    document["info"] = info
    document["servers"] = [{"url": base_url, "description": "This deployment"}]
    document["components"]["securitySchemes"] = security_schemes(auth_url or base_url)
    # Where the example page would answer on this deployment (a real URL, not a placeholder).
    page_url = document["components"]["schemas"]["PageRecord"]["properties"]["url"]
    page_url["examples"] = [f"{base_url}/p/{PAGE_EXAMPLE['slug']}"]
    if catalog is not None:
        add_real_examples(document, catalog)
        contact = catalog.company.urls.contact
        key = "email" if "@" in contact and "://" not in contact else "url"
        info["contact"] = {"name": catalog.company.name, key: contact}
    return document


@cache
def _skeleton() -> str:
    """The document without deployment values, as JSON: schema generation runs once."""
    document = assemble_document(OPERATIONS, info={}, servers=[], tags=TAGS, security_schemes={})
    return json.dumps(document)
