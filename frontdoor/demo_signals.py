"""Sample signal events for `frontdoor seed-demo`: a few accounts at each stage, free-mail people
and every event type, as a source would send them to POST /signals/events.

Pure and deterministic: event `i` always has the id `demo:demo-{i:05d}` and the same person,
account, type and page, so seeding twice stores nothing new. Only `occurred_at` follows `now`,
so a first look shows recent activity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from schemas.signals.events import EventType

__all__ = ["DEMO_SOURCE", "JOURNEYS", "DemoJourney", "Link", "demo_events"]

DEMO_SOURCE = "demo"
SPACING = timedelta(minutes=41)


@dataclass(frozen=True)
class Link:
    """A page a demo event points at."""

    url: str
    title: str


@dataclass(frozen=True)
class DemoJourney:
    """One visitor's touches, in order; an account's stage is the highest its people reach."""

    email: str | None
    name: str | None
    domain: str | None
    company: str | None
    steps: tuple[EventType, ...]


# Stages (DESIGN "Signals"): northwind and juniper raise hands, lumen and tessera evaluate,
# quarry and halden are engaged, orbit only opened an email; the gmail and outlook people are
# people, not accounts.
JOURNEYS: tuple[DemoJourney, ...] = (
    DemoJourney(
        "ada.park@northwind.example",
        "Ada Park",
        "northwind.example",
        "Northwind Analytics",
        ("article_read", "research_unlock", "wizard_progress", "book_call"),
    ),
    DemoJourney(
        "ben.ortiz@northwind.example",
        "Ben Ortiz",
        "northwind.example",
        "Northwind Analytics",
        ("email_open", "email_click", "lead_form"),
    ),
    DemoJourney(
        "cara.lind@lumen.example",
        "Cara Lind",
        "lumen.example",
        "Lumen Health",
        ("newsletter_signup", "article_read", "briefing_registration"),
    ),
    DemoJourney(None, None, "lumen.example", "Lumen Health", ("url_entered",)),
    DemoJourney(
        "eli.moss@quarry.example",
        "Eli Moss",
        "quarry.example",
        "Quarry Freight",
        ("page_view", "cta_click", "identify", "email_click"),
    ),
    DemoJourney(
        "fay.chen@orbit.example", "Fay Chen", "orbit.example", "Orbit Labs", ("email_open",)
    ),
    DemoJourney(
        "gus.amari@juniper.example",
        "Gus Amari",
        "juniper.example",
        "Juniper Bank",
        ("research_unlock", "slack_request"),
    ),
    DemoJourney(
        "ines.roy@tessera.example",
        "Ines Roy",
        "tessera.example",
        "Tessera Cloud",
        ("email_open", "briefing_registration"),
    ),
    DemoJourney(
        "jon.vale@halden.example",
        "Jon Vale",
        "halden.example",
        "Halden Retail",
        ("newsletter_signup", "email_open"),
    ),
    DemoJourney(
        "hana.demo@gmail.com", "Hana Ito", None, None, ("article_read", "newsletter_signup")
    ),
    DemoJourney(
        "ivo.demo@outlook.com", "Ivo Novak", None, None, ("url_entered", "wizard_progress")
    ),
)

_SITE_PAGES: dict[EventType, Link | None] = {
    "url_entered": Link("/", "Home"),
    "wizard_progress": Link("/audit", "Funnel audit"),
    "book_call": Link("/book", "Book a call"),
    "newsletter_signup": Link("/blog", "Blog"),
    "slack_request": Link("/community", "Slack community"),
    "briefing_registration": Link("/briefings", "Briefings"),
    "lead_form": Link("/p/revops-audit", "RevOps audit"),
    "email_open": None,
    "email_click": Link("/research", "Research"),
    "page_view": Link("/p/revops-audit", "RevOps audit"),
    "cta_click": Link("/p/revops-audit", "RevOps audit"),
    "identify": None,
}


def demo_events(
    count: int, *, now: datetime, articles: Sequence[Link], experiments: Sequence[Link]
) -> list[dict[str, Any]]:
    """`count` input events, oldest first, the newest at `now`; journeys take turns."""
    events = []
    for index in range(count):
        journey = JOURNEYS[index % len(JOURNEYS)]
        turn = index // len(JOURNEYS)
        kind = journey.steps[turn % len(journey.steps)]
        events.append(
            {
                "source": DEMO_SOURCE,
                "row_id": f"demo-{index:05d}",
                "type": kind,
                "occurred_at": (now - SPACING * (count - 1 - index)).isoformat(),
                "person": {"email": journey.email, "name": journey.name},
                "account": {"domain": journey.domain, "name": journey.company},
                "page": _page(kind, turn, articles=articles, experiments=experiments),
                "properties": _properties(kind, journey),
            }
        )
    return events


def _page(
    kind: EventType, turn: int, *, articles: Sequence[Link], experiments: Sequence[Link]
) -> dict[str, str]:
    pool = {"article_read": articles, "research_unlock": experiments}.get(kind)
    link = pool[turn % len(pool)] if pool else _SITE_PAGES.get(kind)
    if link is None:
        return {}
    key = "url" if "://" in link.url else "path"
    return {key: link.url, "title": link.title}


def _properties(kind: EventType, journey: DemoJourney) -> dict[str, str]:
    if kind == "url_entered" and journey.domain:
        return {"website": f"https://{journey.domain}"}
    if kind in ("email_open", "email_click"):
        return {"campaign": "november-briefing"}
    if kind == "page_view":
        return {"utm_source": "linkedin", "utm_campaign": "q4-audit"}
    return {}
