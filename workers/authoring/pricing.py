"""A pricing heading's answer: the company's plans, each with its price, from its own record.

The company's prices and terms are what it publishes about itself, not a claim about clients,
so their figures may be printed under a pricing (or timeline) heading; `company_terms` is the
text the gate and the writer's screen accept those figures from. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas.public import Company, PricingPlan
from workers.authoring.phrasing import closed_sentence, first_fit, lower_first, sentences
from workers.authoring.scope import durations

CARD_TITLE_MAX = 80
CARD_BODY_MAX = 320


def company_terms(company: Company) -> list[str]:
    """The company's published prices and terms: its plans, steps, minimum term and notice."""
    model = company.engagement_model
    texts = [model.minimum_term, model.cancellation, *model.steps]
    for plan in company.pricing:
        texts += [plan.price, plan.billing, plan.summary, *plan.includes]
    return texts


def price_terms(company: Company, *, ok: Callable[[str], bool]) -> list[str]:
    """The program's minimum term and how it ends, as sentences a pricing heading may carry."""
    model = company.engagement_model
    term = closed_sentence(f"The minimum term is {lower_first(model.minimum_term)}")
    return [text for text in [term, *sentences(model.cancellation)] if ok(text)]


def plans_lasting(company: Company, days: float) -> list[PricingPlan]:
    """The plans whose summary times the same work as a brief that times its own ("a
    two-week review" for a two-week audit)."""
    return [plan for plan in company.pricing if days in durations(plan.summary)]


def price_cards(
    company: Company, *, ok: Callable[[str], bool], plans: list[PricingPlan] | None = None
) -> list[dict[str, Any]]:
    """One card per plan (all, or `plans`): its name and price as the title, what it is and
    how it is billed (a billing said on an earlier card is not said again)."""
    cards: list[dict[str, Any]] = []
    billed: set[str] = set()
    for plan in company.pricing if plans is None else plans:
        title = f"{plan.name}: {plan.price}"
        billing = closed_sentence(plan.billing)
        said = [_what_it_is(plan.summary, plan.includes, ok=ok)]
        if billing not in billed and ok(billing):
            said.append(billing)
        billed.add(billing)
        body = first_fit([" ".join(s for s in said if s), said[0]], CARD_BODY_MAX)
        if body and len(title) <= CARD_TITLE_MAX and ok(title):
            cards.append({"title": title, "body": body})
    return cards


def _what_it_is(summary: str, includes: list[str], *, ok: Callable[[str], bool]) -> str | None:
    """The plan's summary, else what it includes first, in the company's words."""
    if ok(closed_sentence(summary)):
        return closed_sentence(summary)
    kept = [item for item in includes[:2] if ok(item)]
    if not kept:
        return None
    return closed_sentence("; ".join([kept[0], *(lower_first(item) for item in kept[1:])]))
