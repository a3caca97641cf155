"""Phrases judged in context: negation, customer quotes and claims that inflate without a number.

"No guaranteed meeting counts" negates the banned word; a scare-quoted phrase (no "just checking
in" emails) is not a customer quote, while quoted words with an attribution, or a quote block,
are; "for every client" or "nearly doubled" inflate when the proof says less. Pure text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from gate.text import fold, text_fields

_MARKS = '"\u201c\u201d\u201e\u00ab\u00bb'
_QUOTED = re.compile(f"[{_MARKS}]([^{_MARKS}]{{4,}})[{_MARKS}]")
# After a quote: "- Dana Ruiz", ", says Dana", "said our CFO"; before it: "Dana Ruiz says:".
_ATTRIBUTION_AFTER = re.compile(
    r"^\s*[,.]?\s*(?:[-\u2013\u2014]+\s*\w|(?:says|said|writes|wrote|told us|adds|added|"
    r"recalls|according to)\b)",
    re.IGNORECASE,
)
_ATTRIBUTION_BEFORE = re.compile(
    r"(?:\b(?:say|says|said|writes|wrote|tell us|told us|puts it|put it|adds|added|"
    r"recalls)\s*[:,]?|"
    r"\b[A-Z][\w.'-]+\s*:)\s*$"
)
_NEGATORS = frozenset(
    [
        "no",
        "not",
        "never",
        "without",
        "nothing",
        "none",
        "zero",
        "neither",
        "nor",
        "don't",
        "doesn't",
        "didn't",
        "won't",
        "isn't",
        "aren't",
        "wasn't",
        "can't",
        "cannot",
        "avoid",
        "instead",
    ]
)
_CLAUSE_BREAK = re.compile(r"[.;:!?\u2013\u2014]|,\s|\bbut\b")
_WORDS = re.compile(r"[a-z0-9%$]+(?:['\u2019][a-z]+)?")

# Multipliers are claims on their own; a universal is a claim when it sits beside an outcome.
_MULTIPLIER = re.compile(
    r"(?<![\w-])(double[sd]?|doubling|triple[sd]?|tripling|quadruple[sd]?|tenfold|"
    r"twofold|threefold|fivefold|twice as|exponential(?:ly)?)(?![\w-])"
)
_UNIVERSAL = re.compile(r"(?<![\w-])(every|all|always|never|each one|any)(?![\w-])")
_OUTCOME = re.compile(
    r"(?<![\w-])(client|customer|account|team|compan(?:y|ies)|brand|campaign|"
    r"result|outcome|pipeline|revenue|meeting|demo|deal|lead|conversion|roi|cac|growth|"
    r"grew|grow|won|win|hit|beat|improv\w*|increas\w*|lift\w*|rais\w*|cut|saw|see|got|"
    r"booked|closed|convert\w*|paid back|work(?:s|ed)|succeed\w*|deliver\w*)(?![\w-])"
)
_PARTIAL = re.compile(r"\b\d+\s*(?:of|out of|in)\s*\d+\b|\d+(?:\.\d+)?\s?%|\bmost\b|\bmany\b")


def quote_key(text: str) -> str:
    """Words only, folded: a proof quote matches whatever its punctuation and case."""
    return " ".join(_WORDS.findall(fold(text).replace("\u2019", "'")))


def customer_quotes(text: str) -> Iterator[str]:
    """Quoted spans presented as someone's words: with an attribution before or after."""
    for match in _QUOTED.finditer(text):
        before, after = text[: match.start()], text[match.end() :]
        if _ATTRIBUTION_AFTER.match(after) or _ATTRIBUTION_BEFORE.search(before):
            yield match.group(1)


def page_quotes(payload: object) -> list[str]:
    """Every quote a page carries: the text of its quote blocks and each quoted span."""
    found: list[str] = []
    for field, text in text_fields(payload):
        if field.endswith(".quote"):
            found.append(text)
        else:
            folded = fold(text)
            found += [folded[start:end] for start, end in quoted_spans(folded)]
    return found


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where every quoted span of `text` (folded) starts and ends."""
    return [(m.start(), m.end()) for m in _QUOTED.finditer(text)]


def is_negated(folded: str, start: int) -> bool:
    """Whether the phrase starting at `start` is negated within its clause ("no", "without")."""
    head = folded[:start]
    breaks = list(_CLAUSE_BREAK.finditer(head))
    clause = head[breaks[-1].end() :] if breaks else head
    words = _WORDS.findall(clause.replace("\u2019", "'"))
    return any(word in _NEGATORS for word in words[-3:])


def inflations(text: str, proof: Iterable[str], *, stated: Iterable[str] = ()) -> list[str]:
    """Words that claim more than the proof states: multipliers and universals beside outcomes.

    `stated` is the rest of what the partner wrote (topic, offer...): a word they used is theirs.
    """
    facts = fold(" ".join(proof))
    said = fold(" ".join(stated)) + " " + facts
    folded = fold(text)
    found = []
    for match in _MULTIPLIER.finditer(folded):
        word = match.group(1)
        if word[:4] not in said and not _big_percentage(facts):
            found.append(word)
    for sentence in re.split(r"(?<=[.!?;])\s+", folded):
        for match in _UNIVERSAL.finditer(sentence):
            word = match.group(1)
            if _mentions(said, word):
                continue
            if _PARTIAL.search(facts) and _beside_outcome(sentence, match, facts):
                found.append(word)
    return found


def _big_percentage(proof: str) -> bool:
    return any(float(n) >= 100 for n in re.findall(r"(\d+(?:\.\d+)?)\s?%", proof))


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def _beside_outcome(sentence: str, match: re.Match[str], proof: str) -> bool:
    """An outcome word near the universal, and the sentence shares a subject with the proof."""
    window = sentence[max(0, match.start() - 40) : match.end() + 60]
    if not _OUTCOME.search(window):
        return False
    shared = (_content(sentence) & _content(proof)) - _WHO
    return bool(shared)


_WHO = frozenset({"client", "customer", "account", "team", "company", "companie", "brand"})


def _content(text: str) -> set[str]:
    stop = {"every", "always", "never", "with", "from", "that", "this", "their", "your", "ours"}
    words = {w.rstrip("s") for w in re.findall(r"[a-z]{4,}", text)}
    return words - stop
