"""The request at the end of a built-in page: a lead form, or a button to the booking page.

`goal` only steers: a write-up or a reply is asked for through the form (whose "What happens
next" follows the goal, goals.py), anything else through the page's button. A page that cannot
serve the brief's goal prints no request in its place; a note says so.
"""

from __future__ import annotations

import re

from workers.authoring.blocks import CtaMaterial, FormMaterial, LogosMaterial, Material
from workers.authoring.desk import Desk, Section
from workers.authoring.goals import next_steps

_FORM_GOALS = re.compile(r"\b(form|lead|reply|request|enquir\w*|contact|download)\b")


def allot_form(desk: Desk, section: Section) -> list[Material]:
    return [_form(desk, section.title)]


def allot_cta(desk: Desk, section: Section) -> list[Material]:
    if not desk.serves_goal:
        desk.leave_out(section.title, "the page has no way to serve the brief's goal")
        return []
    return [closing(desk, section.title)]


def allot_logos(desk: Desk, section: Section) -> list[Material]:
    return [LogosMaterial(title=section.title)]


def closing(desk: Desk, title: str | None = None) -> FormMaterial | CtaMaterial:
    """The page's closing request, under `title` or a heading in the voice."""
    heading = title or desk.pick(desk.voice.cta_titles)
    if _FORM_GOALS.search((desk.brief.goal or "").lower()):
        return _form(desk, heading)
    return CtaMaterial(title=heading, sub=desk.pick(desk.voice.cta_subs), button=desk.button())


def _form(desk: Desk, title: str) -> FormMaterial:
    return FormMaterial(
        title=title,
        sub=desk.pick(desk.voice.cta_subs),
        next=tuple(next_steps(desk.brief.goal, voice=desk.voice.name)),
    )
