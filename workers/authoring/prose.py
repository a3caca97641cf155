"""What the built-in writer's prose sections get: a free heading answered from material about
it, the program's terms, who the offer is and is not for, and the FAQ's questions and answers.

A heading that names a subject ("Security", "Integrations") is answered only by sentences
about that subject (relevance.py's floor); one that only frames the brief ("The problem", "Why
it matters") by sentences about the brief's own subject. When nothing answers, the section is
left out and a note says why and what to add to the brief.
"""

from __future__ import annotations

from workers.authoring.agents import GENERIC_WORDS
from workers.authoring.answers import FRAMING_WORDS, not_for, subject_words
from workers.authoring.blocks import FaqMaterial, Material, ProseMaterial
from workers.authoring.desk import Desk, Section
from workers.authoring.material import LIBRARY_SOURCES
from workers.authoring.phrasing import content_words, lower_first, sentence_case, upper_first

_TEAM_WORDS = frozenset(
    {"team", "people", "hire", "hiring", "career", "careers", "staff", "role", "roles"}
)
_FAQ_ORDER = ("fit", "scope", "checks", "term", "stop", "after")


def allot_prose(desk: Desk, section: Section) -> list[Material]:
    return [_prose(desk, section, sources=None)]


def allot_terms(desk: Desk, section: Section) -> list[Material]:
    return [_prose(desk, section, sources=("terms", "engagement"))]


def _prose(desk: Desk, section: Section, *, sources: tuple[str, ...] | None) -> ProseMaterial:
    pool, title = desk.pool, section.title
    wanted = (content_words(title) | desk.words) - GENERIC_WORDS
    # Agents belong to a features section when the page has one; prose takes the rest.
    # An agent's work is a promise, so it is said only under a heading or for a brief
    # about it; the program's terms only under a terms heading ("Terms").
    order = sources or (
        ("offer", "engagement") if section.features_planned else ("offer", "agent", "engagement")
    )
    own = section.assigned.get(title)
    if own and not pool.is_used(own):
        first: str | None = pool.spend(own)
    else:
        # Else any offer or engagement sentence; a terms heading's own terms come first.
        first = pool.take(wanted, sources=order, relevant=True) or pool.take(
            wanted, sources=tuple(s for s in order if s in ("terms", "offer", "engagement"))
        )
    second = pool.take(wanted, sources=order, relevant=True, min_shared=2) if first else None
    body = [s for s in (first, second) if s]
    return ProseMaterial(title=title, markdown=" ".join(body) or desk.company.tagline)


def allot_answer(desk: Desk, section: Section) -> list[Material]:
    """A free heading answered from material about it, or left out with a note."""
    pool, title = desk.pool, section.title
    subject = subject_words(title)
    wanted = subject or (desk.words - GENERIC_WORDS - FRAMING_WORDS)
    # The company's research, blog and careers come last, and only for a named subject: out
    # of their posts they say nothing about the brief's own framing ("The problem"). A role
    # says who works here, so it answers only a heading about the team ("Our people"), never
    # a buyer's question about the product ("Integrations": an engineer building connectors
    # is no list of the tools a client's stack connects to).
    library = tuple(
        source
        for source in LIBRARY_SOURCES
        if subject and (source != "careers" or content_words(title) & _TEAM_WORDS)
    )
    order = (
        ("offer", "proof")
        + (("engagement",) if section.features_planned else ("agent", "engagement"))
        + library
    )
    own = section.assigned.get(title)
    if own and not pool.is_used(own):
        first: str | None = pool.spend(own)
    else:
        first = pool.take(wanted, sources=order, relevant=True)
    if first is None:
        what = f"about {title.lower()!r}" if subject else "about the brief's topic"
        desk.leave_out(
            title,
            f"nothing in the brief or the company's content that the page has not already "
            f"said is {what}",
            f"state in the offer what a buyer should know {what}",
        )
        return []
    second = pool.take(wanted, sources=order, relevant=True, min_shared=2)
    body = " ".join(_unlabelled(s, title) for s in (first, second) if s)
    return [ProseMaterial(title=title, markdown=body)]


def allot_fit(desk: Desk, section: Section) -> list[Material]:
    return [ProseMaterial(title=section.title, markdown=fit_answer(desk))]


def allot_not_for(desk: Desk, section: Section) -> list[Material]:
    """ "Who it is not for": only what the brief itself says about who it does not suit."""
    said = [s for s in desk.offer if not_for(s) and not desk.pool.is_used(s)]
    if not said:
        desk.leave_out(
            section.title,
            "neither the brief nor the company's content says who the offer does not suit",
            "add a sentence to the offer saying who it is not for",
        )
        return []
    return [ProseMaterial(title=section.title, markdown=" ".join(map(desk.pool.spend, said)))]


def allot_faq(desk: Desk, section: Section) -> list[Material]:
    pool, voice = desk.pool, desk.voice
    answers: dict[str, str | None] = {
        "fit": None if section.fit_said else fit_answer(desk),
        "scope": " ".join(pool.spend(s) for s in desk.offer if not pool.is_used(s))[:600] or None,
        "checks": pool.take(
            {"strategist", "signs", "agents", "produce"}, sources=("engagement",), relevant=True
        ),
        "term": pool.take({"minimum", "term"}, sources=("terms",), relevant=True),
        "stop": pool.take({"cancel", "exit", "fees", "keep"}, sources=("terms",), relevant=True),
        "after": desk.line((voice.after_answer,)),
    }
    keys = [k for k in _FAQ_ORDER if answers[k]]
    if not keys:  # a second FAQ after everything is said: the fit question again
        keys, answers["fit"] = ["fit"], fit_answer(desk)
    items = tuple((voice.questions[k], answers[k] or "") for k in keys[:5])
    return [FaqMaterial(title=section.title, items=items)]


def fit_answer(desk: Desk) -> str:
    icp = desk.brief.icp.strip()
    return desk.voice.fit_answer.format(icp=sentence_case(icp), icp_lower=lower_first(icp))


def _unlabelled(sentence: str, heading: str) -> str:
    """A sentence the brief labelled with the heading's words ("Security: we work in ...")
    without the label, which the heading above it already says."""
    label, colon, rest = sentence.partition(": ")
    if colon and rest and content_words(label) and content_words(label) <= content_words(heading):
        return upper_first(rest)
    return sentence
