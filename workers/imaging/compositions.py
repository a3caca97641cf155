"""Which picture a page's hero gets: a composition chosen from the brief's topic, and its alt text.

Seven compositions, each a different drawing (not a recolouring): rising bars, a funnel, a
network of accounts, reconciled layers, a staircase, a target and a signal wave. The topic's
words choose; the slug breaks ties, so two pages on one theme still differ. Pure.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Composition:
    """One way of drawing a hero and the words that ask for it."""

    name: str
    cues: frozenset[str]
    alt: str


def _cues(words: str) -> frozenset[str]:
    return frozenset(words.split())


COMPOSITIONS = (
    Composition(
        "bars",
        _cues(
            "growth pipeline revenue result results metric metrics numbers roi cac "
            "arr mrr forecast quarter board"
        ),
        "Illustration: bars rising from left to right under a rust trend line",
    ),
    Composition(
        "funnel",
        _cues(
            "funnel conversion convert demo demos form forms signup trial activation "
            "onboarding checkout leak leaks"
        ),
        "Illustration: a funnel of stacked bands narrowing to one rust point",
    ),
    Composition(
        "network",
        _cues(
            "account accounts abm outbound prospect prospects buyer buyers committee "
            "signals intent network partner partners"
        ),
        "Illustration: a network of account dots joined by lines, a few marked in rust",
    ),
    Composition(
        "layers",
        _cues(
            "attribution data reconcile analytics table crm tracking dashboard "
            "reporting report sources spend"
        ),
        "Illustration: three offset layers lining up into one table, joined by rust ticks",
    ),
    Composition(
        "stairs",
        _cues(
            "plan process audit roadmap steps sprint sprints launch program programme "
            "playbook migration"
        ),
        "Illustration: a staircase of blocks climbing to a rust flag",
    ),
    Composition(
        "target",
        _cues(
            "icp positioning brand message messaging category target segment focus "
            "pricing experiment experiments test tests"
        ),
        "Illustration: concentric rings around a rust centre, with one ring broken open",
    ),
    Composition(
        "wave",
        _cues(
            "email emails sequence sequences content newsletter reply replies "
            "deliverability cadence linkedin ads ad"
        ),
        "Illustration: overlapping signal waves crossing the frame, one drawn in rust",
    ),
)


def composition_for(topic: str, slug: str) -> Composition:
    """The composition the topic's words ask for most; the slug decides among equals."""
    words = set(re.findall(r"[a-z]+", topic.lower()))
    scores = [len(c.cues & words) for c in COMPOSITIONS]
    best = max(scores)
    candidates = [c for c, s in zip(COMPOSITIONS, scores, strict=True) if s == best]
    seed = int.from_bytes(hashlib.sha256(slug.encode()).digest()[:4], "big")
    return candidates[seed % len(candidates)]


def hero_alt(brief: object) -> str:
    """The hero image's alt text for a brief (anything with `topic` and `slug`)."""
    topic = str(getattr(brief, "topic", ""))
    slug = str(getattr(brief, "slug", ""))
    return composition_for(topic, slug).alt
