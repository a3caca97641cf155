"""The head of a built-in page: the hero's material, the page title and its description.

The hero names the ICP and leads with the offer's first sentence; the offer's short sentences
become its bullets when there are two or more. A text that is too long is replaced by a
shorter formulation, never cut. Drawn first, so the hero has first pick of the offer.
"""

from __future__ import annotations

from gate.context import quote_key
from workers.authoring.blocks import HeroMaterial
from workers.authoring.desk import ANGLE_HEADLINE, ANGLE_PROOF, HERO_TITLE_MAX, Desk, says_work
from workers.authoring.phrasing import (
    closed_sentence,
    first_fit,
    fit_phrase,
    lower_first,
    one_word,
    sentence_case,
)

_LAST_RESORT = "Growth work, planned and checked by a strategist"


def allot_hero(desk: Desk) -> HeroMaterial:
    """The hero's title, sub, bullets and button; spends the offer sentences it says."""
    brief, voice, pool = desk.brief, desk.voice, desk.pool
    icp = brief.icp.strip()
    title = hero_title(desk)
    if desk.offer and quote_key(title) == quote_key(desk.offer[0]):
        pool.spend(desk.offer[0])
    lead = next((s for s in desk.offer if not pool.is_used(s)), None)
    fill = {"icp": icp, "icp_lower": lower_first(icp)}
    options = []
    if lead:
        options += [
            t.format(**fill, lead=lead, lead_lower=lower_first(lead)) for t in voice.sub_with_lead
        ]
    options += [t.format(**fill) for t in voice.sub_alone]
    sub = first_fit(options, 220) or f"For {icp}."
    if lead and lead in sub:
        pool.spend(lead)
    # Every short sentence is spent once two make a list, though the hero shows three.
    short = [s for s in desk.offer if len(s) <= 100 and not pool.is_used(s)]
    bullets = [pool.spend(s) for s in short][:3] if len(short) >= 2 else []
    return HeroMaterial(
        title=title,
        sub=sub,
        bullets=tuple(bullets),
        button=desk.button() if desk.serves_goal else None,
    )


def hero_title(desk: Desk) -> str:
    """The topic as the brief names it, or another headline for another angle (desk.py)."""
    base = _topic_title(desk)
    if desk.angle:
        options = [text for text in _angled_titles(desk) if text and text != base]
        return first_fit([t for t in options if desk.screen.ok(t)], HERO_TITLE_MAX) or base
    return base


def _topic_title(desk: Desk) -> str:
    topic = sentence_case(desk.brief.topic.strip().rstrip("."))
    if desk.screen.ok(topic):
        fitted = fit_phrase(topic, HERO_TITLE_MAX)
        if fitted:
            return fitted
    return (
        first_fit(
            [
                desk.offer[0].rstrip(".") if desk.offer else None,
                f"Growth work for {lower_first(desk.brief.icp.strip())}",
                _LAST_RESORT,
            ],
            HERO_TITLE_MAX,
        )
        or _LAST_RESORT
    )


def _angled_titles(desk: Desk) -> list[str | None]:
    """Headlines for another angle, best first; the last ones need no topic, whose words
    may not pass the screen. A question topic is not run on into another clause."""
    topic = sentence_case(desk.brief.topic.strip().rstrip("."))
    joined = None if topic.endswith("?") else topic
    icp = lower_first(desk.brief.icp.strip())
    if desk.angle == ANGLE_HEADLINE:
        return [
            desk.offer[0].rstrip(".") if desk.offer and says_work(desk.offer[0]) else None,
            f"For {icp}: {lower_first(topic)}",
            f"For {icp}: a named strategist and six agents",
        ]
    if desk.angle == ANGLE_PROOF:
        # Without a proof fact, what the company shows of every engagement: its written report.
        return [
            sentence_case(desk.headline_fact) if desk.headline_fact else None,
            f"{joined}, with the numbers in a weekly written report" if joined else None,
            f"A weekly written report with the numbers, for {icp}",
            "The numbers in a weekly written report, including the ones that did not move",
        ]
    headline = desk.voice.headline
    return [
        headline.format(topic=joined) if joined else None,
        sentence_case(headline.format(topic="").lstrip(" ,.:")),
    ]


def page_title(desk: Desk, hero_title: str) -> str:
    topic = sentence_case(desk.brief.topic.strip().rstrip("."))
    fitted = fit_phrase(topic, 60) if desk.screen.ok(topic) else None
    return (
        first_fit(
            [
                fitted,
                hero_title,
                f"{desk.company.name} for {lower_first(desk.brief.icp.strip())}",
            ],
            60,
        )
        or desk.company.name
    )


def description(desk: Desk) -> str | None:
    topic = sentence_case(desk.brief.topic.strip())
    lead = desk.offer[0] if desk.offer else None
    icp = desk.brief.icp.strip()
    said = closed_sentence(topic) if desk.screen.ok(topic) else None
    if said and one_word(said):  # "SEO." is no sentence: "SEO for CMOs."
        said = closed_sentence(f"{topic} for {lower_first(icp)}")
        return first_fit([f"{said} {lead}" if lead else None, said], 160)
    return first_fit(
        [
            f"{said} {lead}" if said and lead else None,
            f"{said} For {lower_first(icp)}." if said else None,
            f"For {lower_first(icp)}: {lower_first(lead)}" if lead else None,
            said,
            f"For {lower_first(icp)}.",
        ],
        160,
    )
