"""The brief's proof read as page material: quoted proof as attributed quotes, numbers as stats.

A stat's value is the fact's leading figure with its scale and unit, and its caption what the
figure measures (captions.py); a fact with no such caption, or one too long for it, is said in
prose instead, whole. A fact that fits neither shape is prose.
Pure text functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from workers.authoring.captions import caption
from workers.authoring.phrasing import closed_sentence

_QUOTE = re.compile(
    r"^\s*[\"\u201c\u201e](?P<quote>[^\"\u201c\u201d]{8,480})[\"\u201d]\s*[,.]?\s*"
    r"(?:[-\u2013\u2014]+\s*)?(?P<who>[^\"\u201c\u201d]{2,160})$"
)
# In single quotes the words may hold an apostrophe ("we've"), so the closing mark is the one
# before the dash that attributes them.
_SINGLE_QUOTE = re.compile(
    r"^\s*['\u2018](?P<quote>[^\"\u201c\u201d]{8,480}?)['\u2019]\s*[,.]?\s*[-\u2013\u2014]+\s*"
    r"(?P<who>[^'\"\u2018\u2019\u201c\u201d]{2,160})$"
)
# A figure with its scale: "1.2 million" and "$2.4M" are shown whole, never "1.2" or "$2.4".
_SCALE = r"(?:\s?(?:%|x|\u00d7|k|m|bn|pp)|\s(?:thousand|million|billion|trillion))"
_FIGURE = re.compile(
    rf"(?<![\w.])(?:[$\u20ac\u00a3]\s?)?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?{_SCALE}?(?![\w])"
    rf"|(?<![\w.])(?:[$\u20ac\u00a3]\s?)?\d+(?:\.\d+)?{_SCALE}?(?![\w])",
    re.IGNORECASE,
)
_FROM_TO = re.compile(
    r"\bfrom\s+[$\u20ac\u00a3]?[\d.,]+\s?%?(?:\s?[a-z]+)?\s+to\s+"
    r"(?P<to>[$\u20ac\u00a3]?[\d.,]*\d(?:\s?%|x\b|\u00d7)?)"
    r"(?P<unit>\s(?:days|weeks|months|hours|minutes|points|seconds))?",
    re.IGNORECASE,
)
_UNIT = re.compile(
    r"\s(?:days|weeks|months|hours|minutes|points|meetings|clients|accounts|deals|demos|"
    r"trials|calls|replies)\b",
    re.IGNORECASE,
)
STAT_VALUE_MAX = 24
STAT_LABEL_MAX = 80


@dataclass(frozen=True)
class Quote:
    """A proof fact that quotes someone: the words, who said them and where they work."""

    fact: str
    quote: str
    who: str
    company: str | None


@dataclass(frozen=True)
class Stat:
    """A proof fact with a figure: the value shown large and its caption."""

    fact: str
    value: str
    label: str


def read_quote(fact: str) -> Quote | None:
    """The quote of a proof fact written as `"words" - Name, Role at Company` (or in single
    quotes, or `Name, Role, Company`), else None."""
    match = _QUOTE.match(fact) or _SINGLE_QUOTE.match(fact)
    if match is None:
        return None
    who = match.group("who").strip().rstrip(".")
    person, _, rest = who.partition(",")
    company = rest.strip() or None
    if company and " at " in company:
        role, _, place = company.rpartition(" at ")
        person, company = f"{person.strip()}, {role.strip()}", place.strip()
    elif company and "," in company:  # "Sam Cole, Head of Marketing, Paybright"
        role, _, place = company.rpartition(",")
        person, company = f"{person.strip()}, {role.strip()}", place.strip()
    # "words," - Name: the comma led into the attribution and is not part of the words.
    words = match.group("quote").strip().rstrip(",;:\u2013\u2014- ").strip()
    return Quote(fact=fact, quote=words, who=person.strip(), company=company)


def read_stat(fact: str) -> Stat | None:
    """The stat of a proof fact with a figure worth showing large, else None.

    The value keeps its scale and unit ("1.2 million", "41 meetings"); the caption says what
    it measures without repeating it (captions.py), and a fact with no such caption is prose.
    """
    text = fact.strip().rstrip(".")
    change = _FROM_TO.search(text)
    if change:  # "rose from 8.1% to 11.4%": the figure it reached
        start, end = change.start("to"), change.end("unit") if change.group("unit") else None
        end = end or change.end("to")
    else:
        matches = [m for m in _FIGURE.finditer(text) if _weight(m.group(0).strip()) > 0]
        if not matches:
            return None
        best = max(matches, key=lambda m: _weight(m.group(0).strip()))
        unit = _UNIT.match(text, best.end())
        start, end = best.start(), unit.end() if unit else best.end()
    value = text[start:end].strip()
    if len(value) > STAT_VALUE_MAX:
        return None
    label = caption(text, start=start, end=end)
    if label is None or len(label) > STAT_LABEL_MAX:
        return None
    return Stat(fact=fact, value=value, label=label)


def _weight(figure: str) -> int:
    """How well a figure reads as a headline number: percentages and money first."""
    digits = re.sub(r"[^\d.]", "", figure)
    if not digits or digits == ".":
        return 0
    if any(mark in figure for mark in "%$\u20ac\u00a3") or figure.lower().endswith(("x", "\u00d7")):
        return 3
    try:
        number = float(digits)
    except ValueError:
        return 0
    return 2 if number > 10 else 1


@dataclass
class SortedProof:
    """The proof by the block each fact becomes: quotes, stats, and facts said in prose."""

    quotes: list[Quote] = field(default_factory=list)
    stats: list[Stat] = field(default_factory=list)
    plain: list[str] = field(default_factory=list)


def sort_proof(facts: Iterable[str], *, ok: Callable[[str], bool]) -> SortedProof:
    """Each fact the screen lets through (`ok`), or that is a quote, in its block."""
    found = SortedProof()
    for fact in facts:
        quote = read_quote(fact)
        if quote is None and not ok(fact):
            continue
        stat = None if quote else read_stat(fact)
        if quote is not None:
            found.quotes.append(quote)
        elif stat is not None:
            found.stats.append(stat)
        else:
            found.plain.append(closed_sentence(fact))
    return found
