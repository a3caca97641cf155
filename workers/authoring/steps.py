"""What the built-in writer's steps sections get: how the company works, or every step in
time under a timeline heading, with the company's own timings.

Work the brief times itself is not the program (scope.py): of the program's steps, only the
intro call the button books (when nothing in it contradicts the brief's timeline), then the
offer's own work and what the client keeps at the end.
"""

from __future__ import annotations

import re

from workers.authoring.blocks import Card, CardsMaterial, Material
from workers.authoring.cards import fallback_cards
from workers.authoring.desk import Desk, Section, says_work
from workers.authoring.goals import first_step
from workers.authoring.phrasing import closed_sentence, content_words, sentences, upper_first
from workers.authoring.pricing import plans_lasting
from workers.authoring.scope import contradicts, durations, stated_span

_ASKS_WHEN = re.compile(r"(?i)\b(?:timeline|schedule|when|timing)\b")


def allot_steps(desk: Desk, section: Section) -> list[Material]:
    if _ASKS_WHEN.search(section.title):
        return [_timeline_steps(desk, section)]
    steps = [re.sub(r"\s*\([^)]*\)", "", text) for text in _program(desk)]
    raw = (
        [step for step in steps[:1] if not contradicts(step, desk.timeline)]
        if desk.timeline is not None
        else steps
    )
    scored = [(index, len(content_words(step) & desk.words)) for index, step in enumerate(raw)]
    picked = {0} | {i for i, score in scored if score > 0} if raw else set()
    for index, _score in scored:
        if len(picked) >= 3:
            break
        picked.add(index)
    items: list[Card] = []
    for index in sorted(picked)[:5]:
        head, _, body = raw[index].partition(": ")
        head = head if desk.screen.ok(head) else _without_numbers(head)
        kept = [s for s in sentences(body) if desk.screen.ok(s) and not desk.pool.is_used(s)]
        if head and kept:
            items.append((upper_first(head), upper_first(" ".join(kept))))
    if desk.timeline is not None:
        items += _offer_steps(desk, section)
    return [_steps(desk, section, items)]


def _timeline_steps(desk: Desk, section: Section) -> CardsMaterial:
    """ "Timeline": every step in time, each saying when, with the company's own timings (an
    intro call of 45 minutes, a two-week audit). A brief timing its own work gets the intro
    call, then its work over the time it states and what is left at the end; when the offer
    has no sentence left for that, the company's step or plan for the same work."""
    steps = _program(desk)
    own: list[Card] = []
    if desk.timeline is not None:
        own = _offer_steps(desk, section)
        steps = [
            step
            for index, step in enumerate(steps)
            if (index == 0 and not contradicts(step, desk.timeline))
            or (not own and durations(step.partition(": ")[0]) == [desk.timeline])
        ]
    items: list[Card] = []
    for step in steps:
        head, _, body = step.partition(": ")
        head = head if desk.priced.ok(head) else _without_numbers(head)
        kept = [s for s in sentences(body) if desk.priced.ok(s) and not desk.pool.is_used(s)]
        if head and kept:
            items.append((upper_first(head), upper_first(" ".join(kept))))
    work_title, result_title = desk.voice.step_titles
    if desk.timeline is not None and len(items) < 2 and not own:
        own = [
            (work_title, closed_sentence(plan.summary))
            for plan in plans_lasting(desk.company, desk.timeline)[:1]
            if desk.priced.ok(plan.summary) and not desk.pool.is_used(closed_sentence(plan.summary))
        ]
    span = stated_span(desk.brief.topic, desk.brief.offer)
    for title, body in own:
        when = "At the end" if title == result_title else f"Over {span}" if span else title
        items.append((when, body))
    return _steps(desk, section, items)


def _program(desk: Desk) -> list[str]:
    """The company's steps, the first as the goal has it: the intro call the button books, or
    the emailed answer a form's goal gets (never a call the page does not offer)."""
    steps = list(desk.company.engagement_model.steps)
    instead = first_step(desk.brief.goal)
    if steps and instead is not None:
        steps[0] = ": ".join(instead)
    return steps


def _offer_steps(desk: Desk, section: Section) -> list[Card]:
    """The offer's own work and what the client gets, as steps titled in the voice; the first
    steps section also gets the offer sentence the plan kept for it (desk.py)."""
    work_title, result_title = desk.voice.step_titles
    steps: dict[str, str] = {}
    reserved = list(section.offer_steps)
    unspent = [s for s in desk.offer if not desk.pool.is_used(s)]
    for text in [*reserved, *(s for s in unspent if says_work(s))]:
        step = (
            result_title
            if re.match(r"(?i)you(?:'ll)? (?:get|keep|receive)\b", text)
            else work_title
        )
        if step not in steps:
            steps[step] = text if text in reserved else desk.pool.spend(text)
    return list(steps.items())


def _steps(desk: Desk, section: Section, items: list[Card]) -> CardsMaterial:
    return CardsMaterial(
        kind="steps", title=section.title, items=tuple(items) or fallback_cards(desk)
    )


def _without_numbers(text: str) -> str:
    return " ".join(w for w in text.split() if not re.search(r"\d", w))
