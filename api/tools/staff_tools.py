"""The staff toolsets on /mcp: tools for the people who run the growth program, each behind a
scope that only staff are granted (domain/staff.py; api/tools/tool_scopes.py enforces it).

With `signals:read`: hot_accounts, account_story, person_story and search_signals, each
answering the Signal API's REST body for the same data (services/signal_reads.py), so an agent
and a script see one truth. Inputs are the REST filters, typed; a bad one is a tool error the
model can correct. The page toolsets (`pages:read`, `pages:draft`) are api/tools/page_tools.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from api.tools.page_tools import PAGE_TOOL_SCOPES, PagePorts, add_page_tools
from backends.ports import AccountQuery, SignalStore, StreamQuery
from schemas.signals.bodies import AccountBody, AccountsBody, PersonBody, StreamBody
from schemas.signals.events import (
    EventType,
    Position,
    normalize_domain,
    normalize_email,
    split_words,
)
from schemas.signals.rollups import Stage, stages_at_or_above
from schemas.signals.scores import heat_log_for_score
from services import signal_reads

logger = logging.getLogger(__name__)

SIGNALS_READ = "signals:read"
# Which scope each staff tool needs; a tool not named here is public.
TOOL_SCOPES: dict[str, str] = {
    "hot_accounts": SIGNALS_READ,
    "account_story": SIGNALS_READ,
    "person_story": SIGNALS_READ,
    "search_signals": SIGNALS_READ,
    **PAGE_TOOL_SCOPES,
}
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

Days = Annotated[int, Field(ge=1, le=365, description="Only what happened in the last N days")]
Limit = Annotated[int, Field(ge=1, le=100)]


@dataclass(frozen=True)
class StaffPorts:
    """What the staff tools read: the signal store and the clock; the page tools' ports when
    the page toolsets are served."""

    signals: SignalStore
    clock: Callable[[], datetime]
    pages: PagePorts | None = None


def add_staff_tools(mcp: MCPServer, ports: StaffPorts) -> None:
    """Register the staff tools on the server; tool_scopes hides them from callers without
    their scope."""
    signals, clock = ports.signals, ports.clock
    if ports.pages is not None:
        add_page_tools(mcp, ports.pages)

    @mcp.tool(
        title="Hot accounts",
        description=(
            "Accounts ranked by score (highest first): each with its stage (researching, "
            "evaluating, hand_raiser...), score, trend, people and the reasons behind the score. "
            "Filter by `stage` (that stage or higher), `min_score` (0-100) and `days` (active in "
            "the last N days). Call account_story with a domain from here for the whole story. "
            "The same body as GET /api/public/v1/signals/accounts?sort=score (first page)."
        ),
        annotations=READ_ONLY,
    )
    async def hot_accounts(
        stage: Stage | None = None,
        min_score: Annotated[int, Field(ge=0, le=100)] = 0,
        days: Days | None = None,
        limit: Limit = 20,
    ) -> AccountsBody:
        now = clock()
        query = AccountQuery(
            active_since=now - timedelta(days=days) if days else signal_reads.EPOCH,
            stages=stages_at_or_above(stage) if stage else (),
            limit=limit,
            sort="score",
            min_heat_log=heat_log_for_score(min_score, now),
        )
        summaries, has_more, _ = signal_reads.list_accounts(signals=signals, query=query, now=now)
        return AccountsBody(accounts=summaries, has_more=has_more)

    @mcp.tool(
        title="An account's story",
        description=(
            "Everything known about one company by its domain (e.g. acme.com): its summary "
            "(stage, score, trend, reasons), its people, and its timeline of touches, newest "
            "first. `seen: false` when the domain never touched the website. The same body as "
            "GET /api/public/v1/signals/accounts/{domain}."
        ),
        annotations=READ_ONLY,
    )
    async def account_story(
        domain: Annotated[str, Field(min_length=1, max_length=253, examples=["acme.com"])],
    ) -> AccountBody:
        return signal_reads.account_story(signals=signals, domain=_domain(domain), now=clock())

    @mcp.tool(
        title="A person's story",
        description=(
            "Everything known about one person by email address: their summary (stage, "
            "account, pages seen) and their timeline of touches, newest first. `seen: false` "
            "when the address is unknown. The same body as GET "
            "/api/public/v1/signals/people/{email}."
        ),
        annotations=READ_ONLY,
    )
    async def person_story(
        email: Annotated[str, Field(min_length=3, max_length=320, examples=["ada@acme.com"])],
    ) -> PersonBody:
        return signal_reads.person_story(signals=signals, email=_email(email), now=clock())

    @mcp.tool(
        title="Search the signal stream",
        description=(
            "The newest touches first (page views, forms, calls booked, imports...), filtered "
            "as the stream is: `types`, `domain`, `email`, words `q` (every word must match), "
            "`utm_campaign`, `utm_source` (exact values), within the last `days` (default 7). "
            "`next_since` is the newest touch's position: GET /api/public/v1/signals?since= it "
            "returns only what comes after."
        ),
        annotations=READ_ONLY,
    )
    async def search_signals(
        types: list[EventType] | None = None,
        domain: str | None = None,
        email: str | None = None,
        q: Annotated[str | None, Field(max_length=200)] = None,
        utm_campaign: Annotated[str | None, Field(min_length=1, max_length=200)] = None,
        utm_source: Annotated[str | None, Field(min_length=1, max_length=200)] = None,
        days: Days = 7,
        limit: Limit = 50,
    ) -> StreamBody:
        properties = tuple(
            (name, value)
            for name, value in (("utm_campaign", utm_campaign), ("utm_source", utm_source))
            if value is not None
        )
        query = StreamQuery(
            after=Position(recorded_at=clock() - timedelta(days=days)),
            types=tuple(dict.fromkeys(types or ())),
            domain=_domain(domain) if domain is not None else None,
            email=_email(email) if email is not None else None,
            words=tuple(dict.fromkeys(split_words(q or ""))),
            properties=properties,
            limit=limit,
        )
        return signal_reads.latest_touches(signals=signals, query=query)


def _domain(raw: str) -> str:
    """The normalized domain. Raises: ToolError naming it, for the model to correct."""
    domain = normalize_domain(raw)
    if domain is None:
        raise ToolError(f"{raw!r} is not a domain; pass one such as acme.com")
    return domain


def _email(raw: str) -> str:
    """The normalized address. Raises: ToolError naming it, for the model to correct."""
    email = normalize_email(raw)
    if email is None:
        raise ToolError(f"{raw!r} is not an email address")
    return email
