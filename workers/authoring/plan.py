"""The built-in writer's plan: which sections a page has and what material each block gets.

The hero comes first (the ICP named, the offer's lead), then each requested section in order
under its own heading (or a plan chosen for the brief), the proof where it fits and one
request at the end. Before any section draws on the pool, the plan hands out what only one
section may show: the proof's stats and quotes, the offer sentence kept for the steps, an
agent's sentence to the prose heading naming its work. Then each section draws its sentences
in page order, each used once, through a table from section kind to the function that picks
its material. Nothing here writes a block (blocks.py does, from this plan alone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gate.claims import brief_facts
from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from schemas.public import Agent, Company
from workers.authoring.agents import agent_sentence
from workers.authoring.blocks import Button, Material
from workers.authoring.cards import allot_features, allot_founders, allot_pricing
from workers.authoring.closing import allot_cta, allot_form, allot_logos, closing
from workers.authoring.desk import Desk, Section
from workers.authoring.head import allot_hero, description, page_title
from workers.authoring.library import Library
from workers.authoring.phrasing import content_words, sentence_case
from workers.authoring.prose import (
    allot_answer,
    allot_faq,
    allot_fit,
    allot_not_for,
    allot_terms,
)
from workers.authoring.results import allot_proof, allot_unplaced_proof
from workers.authoring.sections import kind_of
from workers.authoring.steps import allot_steps

_PROOF_KINDS = ("results", "proof", "quote")
_UNPLACED = "unplaced proof"

ALLOTTERS: Mapping[str, Callable[[Desk, Section], list[Material]]] = {
    "features": allot_features,
    "steps": allot_steps,
    "faq": allot_faq,
    "results": allot_proof,
    "proof": allot_proof,
    "quote": allot_proof,
    _UNPLACED: allot_unplaced_proof,
    "about": allot_founders,
    "logos": allot_logos,
    "leadform": allot_form,
    "cta": allot_cta,
    "pricing": allot_pricing,
    "terms": allot_terms,
    "fit": allot_fit,
    "notfit": allot_not_for,
    "richtext": allot_answer,
}


@dataclass(frozen=True)
class PagePlan:
    """Everything the page says, decided: the blocks' material in order and the page's fields
    (what the brief itself decides on the page is workers/brief_fields.py's)."""

    brief: GenerationBrief
    title: str
    description: str | None
    button: Button | None
    materials: tuple[Material, ...]
    agents: tuple[Agent, ...]
    notes: tuple[BriefNote, ...]
    stated: tuple[str, ...] = ()  # the partner's own words in the brief (gate/claims.py)


def plan_page(
    brief: GenerationBrief,
    *,
    brand: Brand,
    company: Company,
    angle: int = 0,
    library: Library | None = None,
) -> PagePlan:
    """The plan of the built-in page for `brief` seen from `angle` (desk.py: 0 is the page as
    it always was), drawing also on the company's `library`; the same brief and angle always
    give the same plan."""
    desk = Desk(brief, brand=brand, company=company, angle=angle, library=library)
    hero = allot_hero(desk)
    materials: list[Material] = [hero]
    for section in hand_out(desk, plan_sections(desk)):
        materials += ALLOTTERS[section.kind](desk, section)
    if desk.serves_goal and not any(m.kind in ("cta", "leadform") for m in materials[1:]):
        materials.append(closing(desk))
    notes = [*desk.left_out, *([] if desk.goal_note is None else [desk.goal_note])]
    return PagePlan(
        brief=desk.brief,
        title=page_title(desk, hero.title),
        description=description(desk),
        button=desk.button() if desk.serves_goal else None,
        materials=tuple(materials),
        agents=tuple(company.agents),
        notes=tuple(notes),
        stated=tuple(brief_facts(brief)),
    )


def plan_sections(desk: Desk) -> list[tuple[str, str]]:
    """(kind, heading) per section: the brief's, in order, else a plan chosen for it."""
    if desk.brief.sections:
        seen: set[str] = set()
        planned = []
        for index, name in enumerate(desk.brief.sections):
            key = name.strip().lower()
            if key in seen:
                continue  # the same section twice: merged into the first
            seen.add(key)
            kind = kind_of(name)
            heading = sentence_case(name.strip()) if desk.screen.ok(name) else desk.heading(kind)
            desk.asked.setdefault(heading, (index, name))
            planned.append((kind, heading))
        return planned
    plan = [("features", desk.heading("features"))]
    if desk.brief.proof:
        plan.append(("proof", desk.heading("results")))
    plan.append(("steps", desk.heading("steps")))
    plan.append(("faq", desk.heading("faq")))
    return plan


def hand_out(desk: Desk, planned: list[tuple[str, str]]) -> list[Section]:
    """The sections in the order they draw on the pool, each with what only it may show.

    The proof's stats go to the first section showing results, its quotes to the first
    showing quotes; a quote heading after a results heading gets a lede over the quotes. With
    no section for the proof, it gets its own just before the request (or at the end)."""
    kinds = tuple(kind for kind, _t in planned)
    common = {
        "kinds": kinds,
        "features_planned": "features" in kinds,
        "assigned": assign_agents(desk, planned),
    }
    sections = []
    stats_taken = quotes_taken = steps_taken = False
    for index, (kind, title) in enumerate(planned):
        share: dict[str, object] = {"fit_said": "fit" in kinds[:index]}
        if kind == "steps" and not steps_taken:
            share["offer_steps"], steps_taken = tuple(desk.offer_steps), True
        if kind in _PROOF_KINDS:
            lede = (
                kind == "quote"
                and bool(desk.quotes)
                and not quotes_taken
                and ("results" in kinds or "proof" in kinds)
            )
            quotes = kind != "results" or ("quote" not in kinds and "proof" not in kinds)
            share |= {
                "quote_lede": lede,
                "takes_results": not lede,
                "stats": () if lede or stats_taken else tuple(desk.stats),
                "quotes": tuple(desk.quotes) if quotes and not quotes_taken else (),
                "quotes_pending": bool(desk.quotes) and not quotes_taken,
            }
            stats_taken, quotes_taken = stats_taken or not lede, quotes_taken or quotes
        sections.append(Section(kind, title, **common, **share))  # type: ignore[arg-type]  # the shares are Section's own fields
    if not any(kind in _PROOF_KINDS for kind in kinds):
        at = next((i for i, k in enumerate(kinds) if k in ("cta", "leadform")), len(kinds))
        unplaced = Section(
            _UNPLACED,
            "",
            **common,  # type: ignore[arg-type]  # the shares are Section's own fields
            takes_results=True,
            stats=tuple(desk.stats),
            quotes=tuple(desk.quotes),
            quotes_pending=bool(desk.quotes),
        )
        sections.insert(at, unplaced)
    return sections


def assign_agents(desk: Desk, planned: list[tuple[str, str]]) -> dict[str, str]:
    """A prose section whose heading names an agent's work gets that agent first."""
    assigned: dict[str, str] = {}
    taken: set[str] = set()
    for kind, title in planned:
        if kind != "richtext":
            continue
        words = content_words(title)
        best = max(
            desk.company.agents, key=lambda a: len(content_words(a.does) & words), default=None
        )
        if best is None or best.name in taken or not content_words(best.does) & words:
            continue
        text = agent_sentence(best)
        if desk.screen.ok(text):
            assigned[title] = text
            taken.add(best.name)
    return assigned
