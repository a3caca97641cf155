"""TemplateWriter: the built-in author. No network; copy assembled from the brief and company.

It states numbers and quotes only as the proof gives them, adds stats and quote blocks only
when the proof has something to show, follows `sections` in order, picks its phrasing by
`tone`, and never uses the brand's banned wording. With feedback it drops what was flagged.
"""

from __future__ import annotations

import re
from typing import Any

from schemas.catalog import Brand
from schemas.errors import Issue
from schemas.jobs import GenerationBrief
from schemas.public import Company
from workers.authoring.base import PagePayload
from workers.authoring.claims import (
    caption,
    clip,
    is_supported,
    numbers_in,
    proof_numbers,
    scrub_wording,
    sentences,
)

_QUOTE = re.compile(
    r'^\s*["\u201c](?P<quote>[^"\u201d]{8,480})["\u201d]\s*[-\u2013\u2014]+\s*(?P<who>.+)$'
)
_SECTION_KINDS = {
    "features": ("feature", "what you get", "benefit", "offer", "what we do", "agent"),
    "steps": ("step", "how it works", "process", "plan", "how we work", "timeline"),
    "stats": ("stat", "result", "proof", "number", "outcome", "metric"),
    "quote": ("quote", "testimonial", "customer", "review"),
    "faq": ("faq", "question", "objection"),
    "logos": ("logo", "client", "trusted"),
    "leadform": ("form", "contact", "lead", "sign up", "signup"),
    "cta": ("cta", "call to action", "next step", "book"),
}
_DEFAULT_SECTIONS = ("features", "steps", "stats", "quote", "faq", "cta")
_TONES = {
    "formal": (
        "We",
        "The programme below is planned with you and reviewed by a senior strategist.",
    ),
    "warm": (
        "You",
        "You get a named strategist who plans the work with you and reads everything first.",
    ),
    "direct": (
        "",
        "A strategist plans it. Agents do the work. The strategist checks every output.",
    ),
}


class TemplateWriter:
    """Author that needs no model: specific copy from the brief, the proof and the company."""

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> PagePayload:
        """A SitePageInput-shaped payload for the brief."""
        page = _Page(brief=brief, brand=brand, company=company)
        payload = page.payload()
        return _drop_flagged(payload, feedback) if feedback else payload


class _Page:
    def __init__(self, *, brief: GenerationBrief, brand: Brand, company: Company) -> None:
        self.brief = brief
        self.company = company
        self.banned = [(b.phrase, b.suggest) for b in brand.banned_wording]
        self.allowed = proof_numbers(brief.proof)
        self.tone = _tone_of(brief.tone)

    def safe(self, text: str | None, limit: int) -> str | None:
        """Brief or company text fit to print: on brand, no unproven claim, within limit."""
        if not text:
            return None
        cleaned = scrub_wording(text, self.banned)
        if not cleaned or not is_supported(cleaned, self.allowed):
            return None
        return clip(cleaned, limit)

    def safe_sentences(self, text: str | None) -> list[str]:
        return [s for s in (self.safe(x, 320) for x in sentences(text or "")) if s]

    def payload(self) -> PagePayload:
        brief = self.brief
        title = self.safe(brief.topic, 60) or clip(f"{self.company.name} for {brief.icp}", 60)
        blocks = [self.hero()]
        for kind, label in self.sections():
            block = self.block(kind, label)
            if block is not None and block not in blocks:
                blocks.append(block)
        if not any(b["type"] == "cta" for b in blocks):
            blocks.append(self.cta())
        description = self.safe(brief.goal, 160) or self.safe(
            f"{self.company.name} for {brief.icp}: {brief.topic}", 160
        )
        payload: PagePayload = {
            "slug": brief.slug,
            "title": title,
            "cta_label": self.cta_label(),
            "cta_href": self.cta_href(),
            "is_published": brief.publish,
            "blocks": blocks,
        }
        if description:
            payload["description"] = description
        return payload

    def cta_label(self) -> str:
        return self.safe(self.brief.cta_label, 40) or "Book an intro call"

    def cta_href(self) -> str:
        href = self.brief.cta_href
        if href and (href.startswith("https://") or href.startswith("/")):
            return href
        return str(self.company.urls.book_call)

    def hero(self) -> dict[str, Any]:
        brief = self.brief
        offer = self.safe_sentences(brief.offer)
        goal = self.safe(brief.goal, 200)
        lead = offer[0] if offer else goal or self.company.tagline
        sub = clip(f"For {_lower_first(brief.icp)}: {lead}", 220)
        hero: dict[str, Any] = {
            "type": "hero",
            "eyebrow": clip(self.company.name + " \u00b7 " + brief.icp, 120),
            "title": self.safe(brief.topic, 90) or clip(f"Pipeline work for {brief.icp}", 90),
            "sub": sub,
            "ctaLabel": self.cta_label(),
            "ctaHref": self.cta_href(),
        }
        bullets = [clip(s, 100) for s in offer[1:4]]
        if goal and len(bullets) < 3:
            bullets.append(clip(goal, 100))
        if bullets:
            hero["bullets"] = bullets
        return hero

    def sections(self) -> list[tuple[str, str | None]]:
        if not self.brief.sections:
            return [(kind, None) for kind in _DEFAULT_SECTIONS]
        return [(_kind_of(name), name) for name in self.brief.sections]

    def block(self, kind: str, label: str | None) -> dict[str, Any] | None:
        title = self.safe(label, 80) if label else None
        if kind == "features":
            return self.features(title)
        if kind == "steps":
            return self.steps(title)
        if kind == "stats":
            return self.stats()
        if kind == "quote":
            return self.quote()
        if kind == "faq":
            return self.faq(title)
        if kind == "logos":
            return {"type": "logos", "title": title or f"Teams that work with {self.company.name}"}
        if kind == "leadform":
            return {"type": "leadform", "title": title or self.cta_label(), "sub": self.tone[1]}
        if kind == "cta":
            return self.cta(title)
        return self.richtext(title or self.safe(self.brief.topic, 80) or "Why now")

    def features(self, title: str | None) -> dict[str, Any] | None:
        words = set(
            re.findall(
                r"[a-z]{4,}", f"{self.brief.topic} {self.brief.offer} {self.brief.goal}".lower()
            )
        )
        agents = sorted(
            self.company.agents,
            key=lambda a: -len(words & set(re.findall(r"[a-z]{4,}", a.does.lower()))),
        )
        items = [
            {"title": a.name, "body": body} for a in agents[:4] if (body := self.safe(a.does, 320))
        ]
        if not items:
            return None
        return {
            "type": "features",
            "title": title or "Who does the work",
            "lede": self.tone[1],
            "items": items,
        }

    def steps(self, title: str | None) -> dict[str, Any] | None:
        items = []
        for step in self.company.engagement_model.steps:
            head, _, body = re.sub(r"\s*\([^)]*\)", "", step).partition(": ")
            safe_head, safe_body = self.safe(head, 80), self.safe(body, 320)
            if safe_head and safe_body:
                items.append({"title": safe_head, "body": safe_body[0].upper() + safe_body[1:]})
        if not items:
            return None
        return {"type": "steps", "title": title or "How the work runs", "items": items[:8]}

    def stats(self) -> dict[str, Any] | None:
        items = []
        for fact in self.brief.proof:
            if _QUOTE.match(fact):
                continue
            numbers = sorted(numbers_in(fact), key=lambda n: ("%" not in n, -len(n)))
            if numbers and len(numbers[0]) <= 24:
                items.append({"value": numbers[0], "label": caption(fact, 80)})
        return {"type": "stats", "items": items[:4]} if items else None

    def quote(self) -> dict[str, Any] | None:
        for fact in self.brief.proof:
            match = _QUOTE.match(fact)
            if match:
                who, _, company = match.group("who").rpartition(",")
                if not who:
                    who, company = company, ""
                block: dict[str, Any] = {
                    "type": "quote",
                    "quote": match.group("quote").strip(),
                    "who": who.strip(),
                }
                if company.strip():
                    block["company"] = company.strip()
                return block
        return None

    def faq(self, title: str | None) -> dict[str, Any]:
        brief, model = self.brief, self.company.engagement_model
        items = [
            {
                "q": "Who is this for?",
                "a": f"{brief.icp}. " + (self.safe(brief.goal, 300) or self.company.tagline),
            },
            {"q": "Who checks the work?", "a": self.safe(model.summary, 600) or self.tone[1]},
            {
                "q": "What happens after I get in touch?",
                "a": "A strategist reads your request and answers with times to talk "
                "and what to bring.",
            },
        ]
        if cancel := self.safe(model.cancellation, 600):
            items.append({"q": "How do I stop?", "a": cancel})
        return {"type": "faq", "title": title or "Questions", "items": items}

    def richtext(self, title: str) -> dict[str, Any]:
        brief = self.brief
        lines = [f"Written for {brief.icp}: {self.safe(brief.topic, 300) or self.company.tagline}."]
        lines += self.safe_sentences(brief.offer)[:3] or [self.company.tagline]
        lines.append(self.tone[1])
        return {"type": "richtext", "title": clip(title, 80), "markdown": " ".join(lines)}

    def cta(self, title: str | None = None) -> dict[str, Any]:
        lead = self.safe(self.brief.goal, 120)
        return {
            "type": "cta",
            "title": title
            or lead
            or self.safe(f"Talk to a strategist about {_lower_first(self.brief.topic)}", 120)
            or "Talk to a strategist",
            "sub": self.tone[1],
            "ctaLabel": self.cta_label(),
            "ctaHref": self.cta_href(),
        }


def _lower_first(text: str) -> str:
    """`text` with a lower-case first letter, unless it starts an acronym (RevOps, SaaS, B2B)."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and first[0].isupper() and first[1:].islower():
        return text[0].lower() + text[1:]
    return text


def _kind_of(name: str) -> str:
    lowered = name.lower()
    for kind, cues in _SECTION_KINDS.items():
        if any(cue in lowered for cue in cues):
            return kind
    return "richtext"


def _tone_of(tone: str | None) -> tuple[str, str]:
    lowered = (tone or "").lower()
    if any(w in lowered for w in ("formal", "executive", "measured", "professional")):
        return _TONES["formal"]
    if any(w in lowered for w in ("warm", "friendly", "casual", "conversational")):
        return _TONES["warm"]
    return _TONES["direct"]


def _drop_flagged(payload: PagePayload, feedback: list[Issue]) -> PagePayload:
    """The payload without every non-hero block the gate flagged."""
    flagged = set()
    for issue in feedback:
        parts = issue.field.split(".")
        if len(parts) > 1 and parts[0] == "blocks" and parts[1].isdigit() and parts[1] != "0":
            flagged.add(int(parts[1]))
    blocks = [b for i, b in enumerate(payload["blocks"]) if i not in flagged]
    return {**payload, "blocks": blocks}
