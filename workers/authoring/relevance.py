"""How well a sentence of material answers a heading: BM25 over the writer's pool, with a floor.

The built-in writer ranks its material (the brief's sentences, then the company's) against a
section heading's words with `bm25s`, and a sentence scoring under `RELEVANCE_FLOOR` does not
answer the heading at all, so the section is left out rather than filled. `bm25s` was chosen
over `rank-bm25` after trying both on this pool: it is maintained (releases through 2026;
`rank-bm25` last released in 2022), it needs only numpy at run time, and its default scoring
(Lucene's IDF) never goes negative, where `rank-bm25`'s Okapi IDF is negative or floored for a
word in more than half the documents, which on a pool of a few dozen sentences makes a common
word count against a match. Tokens are the writer's own content words (phrasing.py: stems and
the few words folded to one), so the index and the query agree. Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import bm25s

# Measured on the corpus briefs' pools (a few dozen sentences): a sentence sharing one word
# that few sentences use scores 0.6 to 1.0, several such words 1.5 and more, and one sharing
# only words most of the pool uses ("work", "pipeline") stays under 0.5.
RELEVANCE_FLOOR = 0.5


class Ranker:
    """BM25 scores of a fixed list of token lists against a query's tokens."""

    def __init__(self, documents: Sequence[Iterable[str]]) -> None:
        corpus = [sorted(set(doc)) or ["\u2205"] for doc in documents]
        self._size = len(corpus)
        self._index = bm25s.BM25()
        if corpus:
            self._index.index(corpus, show_progress=False)

    def scores(self, query: Iterable[str]) -> list[float]:
        """One score per document, in the documents' order (0 for no shared word)."""
        words = sorted(set(query))
        if not self._size or not words:
            return [0.0] * self._size
        return [float(s) for s in self._index.get_scores(words)]
