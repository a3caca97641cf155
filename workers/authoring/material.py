"""What the built-in writer may say, as a pool of sentences each used at most once per page.

Every sentence is checked before it goes in: no banned wording, no number the proof does not
state, no quoted words, no inflating claim. Sections draw from the pool by relevance to their
heading (relevance.py), so the same sentence never appears twice on a page and never under a
heading it does not answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gate.claims import numbers
from gate.context import inflations
from gate.text import fold
from schemas.catalog import Brand
from schemas.public import Company
from workers.authoring.agents import agent_sentence
from workers.authoring.library import Library
from workers.authoring.phrasing import closed_sentence, content_words, lower_first, sentences
from workers.authoring.relevance import RELEVANCE_FLOOR, Ranker
from workers.authoring.scope import contradicts

# A figure stands alone and whole: the 2 in "B2B" or the 4 in "Q4" is part of a word, and the
# 3 of "3.4x" is no "3" of its own.
_DIGITS = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?!\w|[.,]\d)")
LIBRARY_SOURCES = ("research", "blog", "careers")
_QUOTE_MARKS = re.compile(r"[\"\u201c\u201d\u201e\u00ab\u00bb]")


@dataclass(frozen=True)
class Fact:
    """One sentence of material and where it came from (offer, proof, agent, engagement...)."""

    text: str
    source: str
    words: frozenset[str]


class Screen:
    """Decides whether a text may be printed, and if not, why."""

    def __init__(
        self, *, brand: Brand, proof: Iterable[str], published: Iterable[str] = ()
    ) -> None:
        """`published`: the company's own prices and terms, whose figures may be stated too."""
        self.proof = list(proof)
        stated = [*self.proof, *published]
        self.known = {norm for fact in stated for _raw, norm in numbers(fact)}
        # The gate lets small counts pass ("3 steps"); the writer states no figure but proof's.
        self.digits = {d for fact in stated for d in _DIGITS.findall(fact)}
        phrases = sorted((b.phrase for b in brand.banned_wording), key=len, reverse=True)
        parts = [
            r"[\s\-\u2010\u2011\u2013]+".join(map(re.escape, re.split(r"[\s\-]+", fold(p))))
            for p in phrases
        ]
        self._banned = re.compile(r"(?<![a-z0-9])(?:" + "|".join(parts) + r")(?![a-z0-9])")

    def problem(self, text: str | None) -> str | None:
        """Why `text` may not be printed as it is, or None when it may."""
        if not text or not text.strip():
            return "it is empty"
        banned = self._banned.search(fold(text))
        if banned:
            return f"off-brand word {banned.group(0)!r}"
        unbacked = [raw for raw, norm in numbers(text) if norm not in self.known]
        unbacked += [d for d in _DIGITS.findall(text) if d not in self.digits]
        if unbacked:
            return f"states {unbacked[0]!r}, which the proof does not give"
        if _QUOTE_MARKS.search(text) and text not in self.proof:
            return "it quotes words the proof does not give"
        inflated = inflations(text, self.proof)
        if inflated:
            return f"{inflated[0]!r} claims more than the proof states"
        return None

    def ok(self, text: str | None) -> bool:
        return self.problem(text) is None


@dataclass
class Pool:
    """Sentences not yet on the page; `take` hands out the most relevant one and spends it."""

    facts: list[Fact] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    _ranker: Ranker | None = field(default=None, repr=False)

    def add(self, text: str, source: str) -> None:
        if _key(text) not in {_key(f.text) for f in self.facts}:
            self.facts.append(Fact(text, source, frozenset(content_words(text))))
            self._ranker = None

    def spend(self, text: str) -> str:
        self.used.add(_key(text))
        return text

    def unspend(self, text: str) -> None:
        """`text` may be used again (a block that spent it was not kept)."""
        self.used.discard(_key(text))

    def is_used(self, text: str) -> bool:
        return _key(text) in self.used

    def keep(self, wanted: Callable[[Fact], bool]) -> None:
        """Only the facts `wanted` keeps stay in the pool."""
        self.facts = [f for f in self.facts if wanted(f)]
        self._ranker = None

    def take(
        self,
        topic: Iterable[str],
        *,
        sources: tuple[str, ...],
        limit: int = 320,
        relevant: bool = False,
        min_shared: int = 1,
    ) -> str | None:
        """The unused sentence from `sources` that answers `topic` best (BM25, relevance.py).

        With `relevant`, only one that scores at least the floor and shares `min_shared` words
        (an answer must fit its question); without, the best of any, in source order.
        """
        wanted = content_words(" ".join(topic))
        if self._ranker is None:
            self._ranker = Ranker([f.words for f in self.facts])
        scores = self._ranker.scores(wanted)
        best: tuple[float, int, Fact] | None = None
        for order, fact in enumerate(self.facts):
            if fact.source not in sources or self.is_used(fact.text) or len(fact.text) > limit:
                continue
            score = scores[order]
            if relevant and (score < RELEVANCE_FLOOR or len(fact.words & wanted) < min_shared):
                continue
            ranked = score * 10 - sources.index(fact.source)
            if best is None or (ranked, -order) > (best[0], best[1]):
                best = (ranked, -order, fact)
        return self.spend(best[2].text) if best else None


def fill_pool(
    pool: Pool,
    *,
    offer: list[str],
    company: Company,
    timeline: float | None,
    screen: Screen,
    library: Library | None = None,
) -> None:
    """The offer's sentences, then the company's agents and how it works, then its research,
    blog and careers sentences (library.py), each screened.

    `timeline` is set when the brief sells a piece of work shorter than the program
    (scope.py): the company's sentences that contradict it stay out, and so do the program's
    term and how it ends."""
    for text in offer:
        pool.add(text, "offer")
    for agent in company.agents:
        pool.add(agent_sentence(agent), "agent")
    # The description's first sentence names the segments the company serves ("Series A
    # to C"), which a page for another ICP would contradict; the rest say how it works.
    for text in [
        *sentences(company.engagement_model.summary),
        *sentences(company.description)[1:],
    ]:
        if not contradicts(text, timeline):
            pool.add(text, "engagement")
    if timeline is None:
        term = closed_sentence(
            f"The minimum term is {lower_first(company.engagement_model.minimum_term)}"
        )
        for text in [term, *sentences(company.engagement_model.cancellation)]:
            pool.add(text, "terms")
    for source, texts in _library_sources(library):
        for text in texts:
            if not contradicts(text, timeline):
                pool.add(text, source)
    pool.keep(lambda fact: screen.ok(fact.text))


def _library_sources(library: Library | None) -> list[tuple[str, tuple[str, ...]]]:
    if library is None:
        return []
    texts = (library.research, library.blog, library.careers)
    return list(zip(LIBRARY_SOURCES, texts, strict=True))


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
