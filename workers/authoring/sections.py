"""What kind of block a requested section is, read from its name on word boundaries.

"Why most pricing tests mislead" is prose, not a lead form ("mislead" is not "lead") and not
pricing (a long name is a heading for prose unless it names a block kind plainly).
"""

from __future__ import annotations

import re

# Checked in order; the first kind whose cue the name holds wins.
_KINDS: tuple[tuple[str, str, bool], ...] = (
    (
        "notfit",
        r"who (?:it'?s|this is|it is|we are|we're) not for|(?:is|isn't) (?:this|it) not for you|"
        r"not (?:a )?(?:good )?fit|who should not",
        False,
    ),
    ("fit", r"who (?:it'?s|this is|it is) for|who we help|is (?:this|it) for you|for whom", False),
    ("faq", r"faqs?|questions?|objections?|asked", False),
    (
        "quote",
        r"testimonials?|quotes?|what (?:clients|customers) say|in their words",
        False,
    ),
    ("quote", r"reviews?", True),
    ("proof", r"proof|evidence|case stud(?:y|ies)|track record", False),
    ("results", r"results?|numbers|outcomes?|metrics|impact|stats?|by the numbers", False),
    (
        "cta",
        r"cta|call to action|next steps?|get started|book(?: a call)?|talk to us|"
        r"get (?:the|your) (?:playbook|guide|report|teardown|write-up|checklist)",
        True,
    ),
    ("steps", r"steps?|how it works|process|how we work|timeline|plan|roadmap|what happens", False),
    ("pricing", r"pricing|prices?|costs?|fees?|plans and pricing|how much", True),
    ("terms", r"terms|commitment|engagement model", True),
    ("logos", r"logos?|clients|customers|trusted by", True),
    ("leadform", r"form|contact|get in touch|sign ?up|request|enquir(?:y|e)", True),
    # The founders are who "we" are; the agents and the strategist are the team a buyer meets.
    ("about", r"about us|who we are|our story|founders?|leadership", True),
    ("features", r"(?:meet )?(?:the|our) team|what we deliver|who does the work", True),
    (
        "features",
        r"features?|what you get|benefits?|offer|what we do|agents?|covers?|included|"
        r"deliverables?|scope|services?|what's inside",
        False,
    ),
)
SHORT_NAME_WORDS = 4


def kind_of(name: str) -> str:
    """The block kind a section name asks for; `richtext` when it names none."""
    lowered = name.lower()
    short = len(lowered.split()) <= SHORT_NAME_WORDS
    for kind, cues, needs_short in _KINDS:
        if needs_short and not short:
            continue
        if re.search(rf"(?<![\w-])(?:{cues})(?![\w-])", lowered):
            return kind
    return "richtext"
