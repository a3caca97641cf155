"""The built-in writer's promises said without universal words, so its own copy carries no
`universal_promise` warning.

The gate warns on a universal word in a promise about the service ("the strategist checks
every output", "you keep all copy"): the page must keep its word every time. The writer's
copy (its voices' lines and the company's own sentences) says the same promise plainly
("checks each output", "you keep the copy"), with the gate's own reading (gate/assertions.py)
finding which words it would warn on; the brief's words and its proof are the partner's and
are left as written (the gate does not judge a universal the brief uses). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from gate.assertions import assertions
from workers.authoring.phrasing import sentences

# The plain word for each universal the gate reads in a promise.
_PLAIN = {
    "every": "each",
    "everyone": "each person",
    "everybody": "each person",
    "everything": "the work",
    "always": "",
    "without exception": "",
}
# Fields that hold the partner's or a customer's own words, or no copy at all.
_KEPT_KEYS = frozenset({"type", "quote", "who", "company", "value", "ctaHref", "imageUrl"})


def unpromised(text: str, *, stated: Iterable[str]) -> str:
    """`text` with each universal the gate would warn on in a promise said plainly."""
    facts = list(stated)
    if not _flagged(text, facts):
        return text
    out = []
    for sentence in sentences(text):
        # The gate names one word a sentence at a time: said plainly, the next may show.
        for _pass in range(len(_PLAIN) + 1):
            flagged = _flagged(sentence, facts)
            plain = sentence
            for word in sorted(flagged, key=len, reverse=True):
                plain = _plain(plain, word)
            if plain == sentence:
                break
            sentence = plain
        out.append(sentence)
    return " ".join(out)


def _flagged(text: str, facts: list[str]) -> set[str]:
    return {a.word for a in assertions(text, stated=facts) if not a.claim and not a.supported}


def unpromise_page(node: Any, *, stated: Iterable[str]) -> Any:
    """A page payload (or part of one) with every copy field passed through `unpromised`."""
    facts = list(stated)
    if isinstance(node, dict):
        return {
            key: value if key in _KEPT_KEYS else unpromise_page(value, stated=facts)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [unpromise_page(item, stated=facts) for item in node]
    if isinstance(node, str):
        return unpromised(node, stated=facts)
    return node


def _plain(sentence: str, word: str) -> str:
    if word == "all":
        # "you keep all copy" -> "you keep the copy"; "all of our agents" -> "our agents"
        sentence = re.sub(r"(?i)\ball of (?=the |our |your )", "", sentence)
        return _swap(sentence, "all", "the")
    if word in _PLAIN:
        return _swap(sentence, word, _PLAIN[word])
    return sentence  # "never" has no plain word that keeps the grammar: left as written


def _swap(sentence: str, word: str, plain: str) -> str:
    def swapped(match: re.Match[str]) -> str:
        if not plain:
            return ""
        return plain[0].upper() + plain[1:] if match.group(1)[0].isupper() else plain

    pattern = rf"(?i)(?<![\w-])({re.escape(word)})(?![\w-])" + (r"\s?" if not plain else "")
    result = re.sub(pattern, swapped, sentence)
    return re.sub(r"\s{2,}", " ", result)
