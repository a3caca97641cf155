"""What a free section heading asks about, and the note for a heading nothing answers.

A heading either names a subject ("Security", "Integrations", "Sample brief"), which only
material about that subject may answer, or only frames the brief ("The problem", "Why it
matters", "Our approach"), which the brief's own subject answers. A few subjects are asked
with words the material uses for them ("Integrations": connectors, HubSpot, Salesforce). Pure.
"""

from __future__ import annotations

import re

from schemas.content.jobs import BriefNote
from workers.authoring.agents import GENERIC_WORDS
from workers.authoring.phrasing import content_words

# Heading words that name no subject of their own: the section is about the brief's.
FRAMING_WORDS = frozenset(
    str.split(
        "problem overview approach matter matters familiar sound introduction context story "
        "challenge solution idea detail details summary background change changed learn "
        "what's whats know thing more why together look like expect you'll we'll your ours "
        "you're we're work works does done"
    )
)
# Words material uses for a subject a heading names in one word.
_ASKED_AS = {
    "security": {"security", "secure", "privacy", "permission", "compliance", "encrypt", "gdpr"},
    "integration": {"integration", "integrate", "connector", "hubspot", "salesforce"},
    "guarantee": {"guarantee", "guaranteed", "refund", "warranty"},
}
_NOT_FOR = re.compile(
    r"\b(?:not (?:for|a (?:good )?fit|right for|suited)|isn't (?:for|a fit)|"
    r"if you (?:don't|do not|are not|aren't|have no))\b",
    re.IGNORECASE,
)


def subject_words(heading: str) -> set[str]:
    """The words of `heading` that name its subject, with the words material uses for it;
    empty when the heading only frames the brief."""
    words = content_words(heading) - GENERIC_WORDS - FRAMING_WORDS
    for word in list(words):
        words |= _ASKED_AS.get(word, set())
    return words


def not_for(sentence: str) -> bool:
    """Whether a sentence says who an offer does not suit."""
    return _NOT_FOR.search(sentence) is not None


def leave_out_note(index: int, name: str, *, why: str, add: str | None) -> BriefNote:
    """The note for requested section `index`, left out because nothing answers it."""
    advice = f"; to have it, {add}" if add else ""
    return BriefNote(
        field=f"sections.{index}",
        code="not_used",
        message=f"section {name!r} left out: {why}{advice}",
    )
