"""Whether the built-in writer can serve a brief's goal, and what the lead form says follows.

The page serves a goal through the company's booking page (a call, an audit, a session) or
its own lead form (a request, a reply, a write-up). A goal that needs something else (a free
trial, a product sign-up, a purchase, an event registration) is served only by the brief's own
`cta_href`; without one the page prints no other goal in its place, and a note says so. Pure.
"""

from __future__ import annotations

import re

from schemas.content.jobs import BriefNote, GenerationBrief

_UNSERVED = re.compile(
    r"\b(?:free trial|trials?|sign[\s-]?ups?|self[\s-]serve|install\w*|purchase\w*|buy|"
    r"checkout|subscri\w+|webinar|register|registration|newsletter|event)\b",
    re.IGNORECASE,
)
_WRITE_UP = re.compile(r"\b(?:download|guide|report|playbook|teardown|write-up|checklist)\b", re.I)
_REPLY = re.compile(r"\b(?:reply|email|note|message|request|contact|enquir\w*|question)\b", re.I)


def unserved_goal(brief: GenerationBrief) -> BriefNote | None:
    """The note for a goal the page has no form or link for; None when it can serve it."""
    goal = (brief.goal or "").strip()
    match = _UNSERVED.search(goal)
    if match is None or _own_link(brief.cta_href):
        return None
    return BriefNote(
        field="goal",
        code="not_used",
        message=f"the page cannot serve {goal!r}: the company's content has no "
        f"{match.group(0).lower()} page and the page's form only sends a request to a "
        "strategist, so no button was printed; give cta_label and cta_href for the page "
        "that serves it, or a goal the page can serve (a call booked, a request through "
        "the form)",
    )


def next_steps(goal: str | None, *, voice: str) -> list[str]:
    """What the lead form promises after a visitor sends it, for the brief's goal."""
    formal = voice == "formal"
    first = (
        "A senior strategist reads each request personally."
        if formal
        else "A senior strategist reads your request; no sales script, no automated sequence."
    )
    answer = _answer_by_email(goal)
    if answer is not None:
        return [first, f"Within one business day they {answer[0]}."]
    return [
        first,
        "Within one business day we email you to find a time for the call.",
        "On the call we look at your pipeline numbers together. If we are not a fit, we say so.",
    ]


def first_step(goal: str | None) -> tuple[str, str] | None:
    """The program's first step when the goal is answered by email (a reply, a write-up), in
    place of the intro call the company's steps begin with; None when the goal is a call."""
    answer = _answer_by_email(goal)
    if answer is None:
        return None
    return "Within one business day", f"A senior strategist reads your request and {answer[1]}."


def _answer_by_email(goal: str | None) -> tuple[str, str] | None:
    """What a strategist emails for a goal served by the form, not by a call (after "they",
    and after "a strategist")."""
    text = goal or ""
    if _WRITE_UP.search(text):
        return "email you the write-up you asked for", "emails you the write-up you asked for"
    if _REPLY.search(text) and not re.search(r"\b(?:call|meeting|book|schedule)\b", text, re.I):
        talk = "to what you asked, with times to talk if you want them"
        return f"reply by email {talk}", f"replies by email {talk}"
    return None


def _own_link(href: str | None) -> bool:
    return bool(href) and (
        str(href).startswith("https://")
        or (str(href).startswith("/") and not str(href).startswith("//"))
    )
