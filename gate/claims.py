"""Claims a generated page may only repeat from its brief: numbers, percentages and quotes.

Numbers are normalised so that "24.8 %", "24.8%" and "24.80%" agree, "3x" and "3\u00d7" agree, and
"$9,500" and "$9500" agree, and a scale written as a word or a letter agrees with itself
("1.2 million", "1.2M" and "1.2m"; "$2.4M" and "$2.4 million"). A number that drops its scale
("1.2" or "$2.4" where the proof says "1.2 million" or "$2.4M") is not the proof's number. Bare
whole numbers up to ten ("3 steps", "in 2 weeks") are ordinary copy, not claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from gate.text import fold

_NUMBER = re.compile(
    r"(?<![\w.,])(?P<cur>[$€£])?\s?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?:\s?(?P<unit>%|x|\u00d7|k|m|mn|bn|pp|percent|thousand|million|billion)(?![a-z]))?",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]{12,})[\"“”„«»]")
_NON_WORD = re.compile(r"[^a-z0-9%$.]+")
_UNIT_WORDS = {"percent": "%", "thousand": "k", "million": "m", "mn": "m", "billion": "bn"}
SCALES = ("k", "m", "bn")
# Brief fields whose numbers the partner stated themselves.
BRIEF_FACT_FIELDS = ("proof", "topic", "icp", "goal", "offer", "sections", "cta_label")


def numbers(text: str) -> Iterator[tuple[str, str]]:
    """(as written, normalised) for each number-like claim in the text."""
    for match in _NUMBER.finditer(fold(text)):
        whole = match.group("num").replace(",", "")
        frac = (match.group("frac") or "").rstrip("0").rstrip(".")
        unit = (match.group("unit") or "").lower().replace("\u00d7", "x")
        unit = _UNIT_WORDS.get(unit, unit)
        cur = match.group("cur") or ""
        if not cur and not unit and not frac and int(whole) <= 10:
            continue
        yield match.group(0).strip(), f"{cur}{int(whole)}{frac}{unit}"


def quotes(text: str) -> Iterator[str]:
    """Quoted spans of twelve characters or more."""
    yield from (m.group(1) for m in _QUOTED.finditer(text))


def squash(text: str) -> str:
    """Text reduced to comparable words, for finding a quote inside a proof fact."""
    return " ".join(_NON_WORD.split(fold(text).replace("\u2019", "'"))).strip()


def brief_facts(brief: object) -> list[str]:
    """The partner's own statements in a brief (a mapping or a pydantic model)."""
    dump = getattr(brief, "model_dump", None)
    data = dump() if callable(dump) else brief
    if not isinstance(data, Mapping):
        return []
    facts: list[str] = []
    for name in BRIEF_FACT_FIELDS:
        facts.extend(_strings(data.get(name)))
    return facts


def brief_proof(brief: object) -> list[str]:
    """The brief's `proof` facts only: what "the proof says" when a claim is weighed."""
    dump = getattr(brief, "model_dump", None)
    data = dump() if callable(dump) else brief
    return list(_strings(data.get("proof"))) if isinstance(data, Mapping) else []


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [item for item in value if isinstance(item, str)]
    return []
