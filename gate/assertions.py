"""Universal and multiplying words, judged by what their sentence asserts: a result or a promise.

A sentence holding a universal word (every, everyone, all, always, never, without exception)
or a multiplier (doubled, tripled, tenfold, twice as) is read for what it asserts:

- A **result claim** says something came out of the work for clients. The universal must
  quantify who or what had the result ("every client", "for all our customers", "everyone we
  work with": clients, customers, companies, accounts; pipeline, revenue, targets, meetings,
  conversion, results...) or modify the result verb itself ("always hit", "never missed"),
  and the sentence must say a result came out (hit, saw, grew, improved, won, booked,
  converted, renewed, higher, lower...); in a stat's caption, a measured result by definition,
  quantifying the bearer is enough. So "your strategist edits every piece before your team
  sees it" quantifies the service's own work, not a result's bearer: a promise. A multiplier
  is a result claim on its own ("doubled pipeline"). A result
  claim must come from the brief: it is an error (`unsupported_claim`) unless the partner wrote
  that universal in the brief beside the same subject ("every client renewed" in the proof).
  Without a brief (a page sent whole) there is no proof to compare, so it is a warning
  (`unverified_claim`).
- Anything else is a **promise** about the service's own practice ("we write up every test we
  run", "your strategist reviews every email", "we never skip the review", "every client gets
  a named strategist"): the proof cannot confirm or refute it, so it is a warning
  (`universal_promise`) that the page must keep its word, never a refusal.

Not judged at all: time expressions ("every Friday", "all week"), counts ("all six agents"),
questions, a negated universal ("not every test wins") and a universal the partner used in the
brief. Pure text: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gate.context import is_negated
from gate.text import fold

_UNIVERSAL = re.compile(
    r"(?<![\w-])(every|everyone|everybody|all|always|never|without exception)(?![\w-])"
)
# "double" and "triple" alone are verbs only before what they multiply ("double your
# pipeline"); "double counting" and "double-check" are not claims.
_MULTIPLIER = re.compile(
    r"(?<![\w-])(double[sd]|doubling|triple[sd]|tripling|quadruple[sd]?|tenfold|twofold|"
    r"threefold|fivefold|twice as|exponential(?:ly)?|(?:double|triple)(?=\s+(?:your|the|their|"
    r"our|its|his|her|every|all)\b))(?![\w-])"
)
_TIME = re.compile(
    r"(?:day|week|month|quarter|year|morning|evening|night|hour|minute|time|sprint|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
)
_COUNT = re.compile(
    r"(?:the\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)\b"
)
# What a result is about: who had it, or the measure it moved.
_SUBJECT = re.compile(
    r"(?<![\w-])(client|customer|compan(?:y|ies)|account|brand|team|engagement|campaign|"
    r"pipeline|revenue|target|quota|meeting|demo|deal|lead|opportunit(?:y|ies)|conversion|roi|"
    r"cac|result|outcome|growth|sales|cost|spend|signup|sign-up|trial)s?(?![\w-])"
)
# That something came out of the work: result verbs and comparisons.
_RESULT = re.compile(
    r"(?<![\w-])(hit|hits|saw|see|sees|seen|grew|grows?|grown|improv(?:e|es|ed)|"
    r"increas(?:e|es|ed)|rais(?:es|ed)|lift(?:s|ed)|cut|cuts|reduc(?:e|es|ed)|booked|closed|"
    r"won|wins?|beat|beats|reached|exceed(?:s|ed)?|achiev(?:e|es|ed)|succeed(?:s|ed)?|"
    r"convert(?:s|ed)|renew(?:s|ed)|paid back|pays? back|miss(?:es|ed)?|"
    r"higher|lower|better|faster|fewer|more revenue|more pipeline|more meetings)(?![\w-])"
)


@dataclass(frozen=True)
class Assertion:
    """One universal or multiplier in a text, and what its sentence asserts."""

    word: str
    claim: bool
    supported: bool


def sentences(folded: str) -> Iterator[str]:
    """The sentences of folded text (a list item or heading is its own sentence)."""
    for part in re.split(r"(?<=[.!?;])\s+|\n+", folded):
        if part.strip():
            yield part.strip()


def assertions(text: str, *, stated: Iterable[str] = (), caption: bool = False) -> list[Assertion]:
    """Every judged universal or multiplier in `text`, read against what the brief `stated`.

    `caption`: the text is a stat's caption, a measured result by definition.
    """
    facts = [fold(fact) for fact in stated]
    found: list[Assertion] = []
    for sentence in sentences(fold(text)):
        if sentence.endswith("?"):
            continue
        for match in _MULTIPLIER.finditer(sentence):
            word = match.group(1)
            supported = any(word[:4] in fact or _big_percentage(fact) for fact in facts)
            found.append(Assertion(word=word, claim=True, supported=supported))
        subjects = set(_SUBJECT.findall(sentence))
        result = caption or bool(_RESULT.search(sentence))
        for match in _UNIVERSAL.finditer(sentence):
            word = match.group(1)
            after = sentence[match.end() :].lstrip()
            if _TIME.match(after) or (word == "all" and _COUNT.match(after)):
                continue
            if is_negated(sentence, match.start()):
                continue
            claim = result and _about_a_result(word, after, caption=caption, bearer=bool(subjects))
            said = [fact for fact in facts if _mentions(fact, word)]
            if not claim and said:
                continue  # the partner's own words
            supported = any(set(_SUBJECT.findall(fact)) & subjects for fact in said)
            found.append(Assertion(word=word, claim=claim, supported=supported))
    return found


_ADVERBS = frozenset({"always", "never", "without exception"})
_DETERMINERS = frozenset(
    {"of", "our", "the", "your", "their", "these", "those", "its", "his", "her", "my", "other"}
)


def _about_a_result(word: str, after: str, *, caption: bool, bearer: bool) -> bool:
    """The universal quantifies a result's bearer ("every client") or modifies its verb in a
    sentence that names the bearer ("targets are always hit"); `after` is the text after it."""
    following = re.findall(r"[a-z][a-z'-]*", after)[:4]
    if word in _ADVERBS:
        verbs = " ".join(following[:3])
        return bearer and (bool(_RESULT.search(verbs)) or caption)
    if word in {"everyone", "everybody"}:
        return True
    content = [w for w in following if w not in _DETERMINERS][:2]
    return bool(_SUBJECT.search(" ".join(content)))


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def _big_percentage(fact: str) -> bool:
    return any(float(n) >= 100 for n in re.findall(r"(\d+(?:\.\d+)?)\s?%", fact))
