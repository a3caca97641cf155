"""The company's own writing the built-in writer may draw on beyond its record: research
write-ups, blog posts and open roles, as sentences a buyer can read on a landing page.

Each says something on its own, out of the post it came from: a blog excerpt's first sentence
unless it only presents the post ("Here is the full list...", "A checklist for..."); an
experiment as the fact that it is published ("Our research log publishes an experiment on
...": its figures belong to its own write-up, and the screen keeps any the brief's proof does
not state off the page); a role's tagline, written to a candidate ("Lead three to four client
programs..."), as the opening it is ("We are hiring senior growth strategists to lead...").
The writer ranks these after the brief and the company record, only for a heading that names
a subject, and a role only for a heading about the team or hiring (prose.py). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from schemas.catalog import Catalog
from workers.authoring.phrasing import lower_first, sentences

# Sentences that present the post rather than say something a buyer can use.
_PRESENTING = re.compile(
    r"^(?:here is|here's|how to|why we|what we|what to|usually\b|an? |the )", re.I
)
_MIN_WORDS = 5


@dataclass(frozen=True)
class Library:
    """Sentences from the company's research, blog and careers pages."""

    research: tuple[str, ...] = ()
    blog: tuple[str, ...] = ()
    careers: tuple[str, ...] = ()


def library_of(catalog: Catalog) -> Library:
    """The library of what `catalog` publishes."""
    return Library(
        research=tuple(
            f"Our research log publishes an experiment on {lower_first(e.title)}."
            for e in catalog.experiments
        ),
        blog=_kept(p.excerpt for p in catalog.posts),
        careers=tuple(
            f"We are hiring {_plural(role.title)} to {lower_first(role.tagline)}"
            for role in catalog.roles
        ),
    )


def _kept(excerpts: Iterable[str]) -> tuple[str, ...]:
    firsts = (next(iter(sentences(excerpt)), "") for excerpt in excerpts)
    return tuple(
        text for text in firsts if len(text.split()) >= _MIN_WORDS and not _PRESENTING.match(text)
    )


def _plural(title: str) -> str:
    """'Senior Growth Strategist, B2B SaaS' -> 'senior growth strategists' (the role, not
    its team)."""
    role = title.partition(",")[0].strip()
    words = [w if w.isupper() else w.lower() for w in role.split()]
    return " ".join(words) + "s"
