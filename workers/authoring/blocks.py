"""The built-in writer's block writers: a table from block kind to a small pure function that
turns the material the plan gave one block into that block's model.

What each block says is decided before any block is written (plan.py: each sentence, stat and
quote goes to one block, in page order); a writer only shapes it, reads nothing else and
changes nothing, so the order blocks are written in cannot change the page. The models are
`schemas/content/pages.py`'s; the page is dumped once, at the end (composer.py). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from schemas.content.pages import (
    CardItem,
    CtaBlock,
    FaqBlock,
    FaqItem,
    FeaturesBlock,
    HeroBlock,
    LeadformBlock,
    LogosBlock,
    PageBlock,
    QuoteBlock,
    RichtextBlock,
    StatItem,
    StatsBlock,
    StepsBlock,
)
from workers.authoring.proof import Quote, Stat

Card = tuple[str, str]  # (title, body); a FAQ's (question, answer)


@dataclass(frozen=True)
class Button:
    label: str
    href: str


@dataclass(frozen=True)
class HeroMaterial:
    title: str
    sub: str
    bullets: tuple[str, ...] = ()
    button: Button | None = None
    kind: Literal["hero"] = "hero"


@dataclass(frozen=True)
class CardsMaterial:
    """Cards under a heading: agents, founders, plans (`features`) or steps in order."""

    kind: Literal["features", "steps"]
    title: str
    items: tuple[Card, ...]
    lede: str | None = None


@dataclass(frozen=True)
class ProseMaterial:
    title: str
    markdown: str
    kind: Literal["richtext"] = "richtext"


@dataclass(frozen=True)
class FaqMaterial:
    title: str
    items: tuple[Card, ...]
    kind: Literal["faq"] = "faq"


@dataclass(frozen=True)
class StatsMaterial:
    stats: tuple[Stat, ...]
    kind: Literal["stats"] = "stats"


@dataclass(frozen=True)
class QuoteMaterial:
    quote: Quote
    kind: Literal["quote"] = "quote"


@dataclass(frozen=True)
class LogosMaterial:
    title: str
    kind: Literal["logos"] = "logos"


@dataclass(frozen=True)
class FormMaterial:
    title: str
    sub: str
    next: tuple[str, ...]
    kind: Literal["leadform"] = "leadform"


@dataclass(frozen=True)
class CtaMaterial:
    title: str
    sub: str
    button: Button
    kind: Literal["cta"] = "cta"


Material = (
    HeroMaterial
    | CardsMaterial
    | ProseMaterial
    | FaqMaterial
    | StatsMaterial
    | QuoteMaterial
    | LogosMaterial
    | FormMaterial
    | CtaMaterial
)


def write_hero(material: HeroMaterial) -> HeroBlock:
    button = material.button
    return HeroBlock(
        type="hero",
        title=material.title,
        sub=material.sub,
        bullets=[b.rstrip(".") for b in material.bullets] or None,
        ctaLabel=button.label if button else None,
        ctaHref=button.href if button else None,
    )


def write_features(material: CardsMaterial) -> FeaturesBlock:
    return FeaturesBlock(
        type="features", title=material.title, lede=material.lede, items=_cards(material.items)
    )


def write_steps(material: CardsMaterial) -> StepsBlock:
    return StepsBlock(
        type="steps", title=material.title, lede=material.lede, items=_cards(material.items)
    )


def write_prose(material: ProseMaterial) -> RichtextBlock:
    return RichtextBlock(type="richtext", title=material.title, markdown=material.markdown)


def write_faq(material: FaqMaterial) -> FaqBlock:
    items = [FaqItem(q=q, a=a) for q, a in material.items]
    return FaqBlock(type="faq", title=material.title, items=items)


def write_stats(material: StatsMaterial) -> StatsBlock:
    items = [StatItem(value=s.value, label=s.label) for s in material.stats]
    return StatsBlock(type="stats", items=items)


def write_quote(material: QuoteMaterial) -> QuoteBlock:
    quote = material.quote
    return QuoteBlock(type="quote", quote=quote.quote, who=quote.who, company=quote.company or None)


def write_logos(material: LogosMaterial) -> LogosBlock:
    return LogosBlock(type="logos", title=material.title)


def write_form(material: FormMaterial) -> LeadformBlock:
    return LeadformBlock(
        type="leadform", title=material.title, sub=material.sub, next=list(material.next)
    )


def write_cta(material: CtaMaterial) -> CtaBlock:
    return CtaBlock(
        type="cta",
        title=material.title,
        sub=material.sub,
        ctaLabel=material.button.label,
        ctaHref=material.button.href,
    )


# Each writer takes its own material type; the table is keyed by the `kind` every material
# carries, so `Any` here stands for "the material of that kind".
WRITERS: Mapping[str, Callable[[Any], PageBlock]] = {
    "hero": write_hero,
    "features": write_features,
    "steps": write_steps,
    "richtext": write_prose,
    "faq": write_faq,
    "stats": write_stats,
    "quote": write_quote,
    "logos": write_logos,
    "leadform": write_form,
    "cta": write_cta,
}


def write_block(material: Material) -> PageBlock:
    """The block model for one block's material."""
    return WRITERS[material.kind](material)


def dump_blocks(blocks: Sequence[PageBlock]) -> list[dict[str, Any]]:
    """The blocks as the page payload holds them (fields left unset are not written)."""
    return [block.model_dump(exclude_none=True) for block in blocks]


def _cards(items: tuple[Card, ...]) -> list[CardItem]:
    return [CardItem(title=title, body=body) for title, body in items]
