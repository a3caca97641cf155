"""What the built-in writer's card sections get: the agents a brief is about, the founders, the
company's priced plans, and the one card said when none of these fits.

Only agents whose work the brief is about (agents.py) get a card, never padding; a pricing
heading gets the company's published prices or is left out with a note (scope.py: a brief
selling a piece of work shorter than the program is not priced by the program's plans).
"""

from __future__ import annotations

from workers.authoring.agents import agent_sentence, agents_for
from workers.authoring.blocks import Card, CardsMaterial, Material
from workers.authoring.desk import Desk, Section
from workers.authoring.phrasing import closed_sentence, sentences
from workers.authoring.pricing import plans_lasting, price_cards, price_terms
from workers.authoring.prose import allot_prose


def allot_features(desk: Desk, section: Section) -> list[Material]:
    # The goal only steers: "through the form" is no sign of Beacon's form fills.
    agents = desk.company.agents
    reserved = set(section.assigned.values())
    taken = {a.name for a in agents if agent_sentence(a) in reserved}
    chosen = agents_for(
        " ".join([desk.brief.topic, desk.brief.offer or "", *desk.subject]), agents, taken=taken
    )
    items: list[Card] = []
    for agent in chosen:
        text = agent_sentence(agent)
        if text in reserved:
            continue
        if desk.screen.ok(agent.does) and not desk.pool.is_used(text):
            desk.pool.spend(text)
            items.append((agent.name, closed_sentence(agent.does)))
    lede = desk.pool.take(desk.words, sources=("offer",))
    if lede is None and items:  # it introduces "the agents below"
        voice = desk.voice
        lede = desk.line(voice.features_lede if len(items) > 1 else voice.features_lede_one)
    return [
        CardsMaterial(
            kind="features",
            title=section.title,
            items=tuple(items) or fallback_cards(desk),
            lede=lede,
        )
    ]


def allot_founders(desk: Desk, section: Section) -> list[Material]:
    """ "About us": the founders, each with the first sentence of their bio."""
    items: list[Card] = []
    for founder in desk.company.founders:
        said = next(iter(sentences(founder.bio)), "")
        if said and desk.screen.ok(said) and not desk.pool.is_used(said):
            items.append((f"{founder.name}, {founder.title}", said))
    if not items:
        return allot_prose(desk, section)
    return [CardsMaterial(kind="features", title=section.title, items=tuple(items))]


_CARD_BODY = 320  # a card's body, as the page schema bounds it


def allot_pricing(desk: Desk, section: Section) -> list[Material]:
    """The company's plans with their prices, or left out when they do not price the brief's
    own piece of work (scope.py)."""
    plans = None if desk.timeline is None else plans_lasting(desk.company, desk.timeline)
    if plans == []:
        desk.leave_out(
            section.title,
            "the company's price list prices its program, not the piece of work this brief sells",
            "state the work's price in the offer",
        )
        return []
    cards = price_cards(desk.company, ok=desk.priced.ok, plans=plans)
    for card in cards:  # said once: a timeline step does not say a plan's summary again
        for said in sentences(card["body"]):
            desk.pool.spend(said)
    if not cards:
        desk.leave_out(
            section.title, "no price in the company's content may be printed", "state a price"
        )
        return []
    # A buyer reads the prices first: the program's terms (minimum term, notice, what is
    # kept) follow them as the last card, not as fine print above them.
    terms = price_terms(desk.company, ok=desk.priced.ok) if plans is None else []
    kept: list[str] = []
    for term in terms:
        if not desk.pool.is_used(term) and len(" ".join([*kept, term])) <= _CARD_BODY:
            kept.append(desk.pool.spend(term))
    items = [(card["title"], card["body"]) for card in cards]
    if kept:
        items.append((desk.voice.terms_title, " ".join(kept)))
    return [CardsMaterial(kind="features", title=section.title, items=tuple(items))]


def fallback_cards(desk: Desk) -> tuple[Card, ...]:
    """One card when nothing else fits a card section: the named strategist."""
    pool = desk.pool
    body = (
        pool.take({"named", "strategist"}, sources=("engagement",), relevant=True)
        or pool.take(desk.words, sources=("engagement", "offer"))
        or desk.company.tagline
    )
    return (("A named strategist", body),)
