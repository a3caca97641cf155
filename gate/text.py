"""Reading copy out of a raw page: every text field with its dotted path, and text normalised
for matching (case, Unicode compatibility forms, invisible characters, hyphens and plurals)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# Fields that hold identifiers or URLs, not copy.
NON_TEXT_FIELDS = frozenset({"slug", "type", "og_image_url", "cta_href", "ctaHref", "imageUrl"})

_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_DASHES = re.compile(r"[\-\u2010\u2011\u2012\u2013\u2014\u2212_/]+")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def text_fields(payload: object) -> Iterator[tuple[str, str]]:
    """(dotted path, text) for every string of copy in a raw page, whatever its shape or depth."""
    stack: list[tuple[str, object]] = [("", payload)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            yield path, value
        elif isinstance(value, dict):
            children = [
                (k, v) for k, v in value.items() if isinstance(k, str) and k not in NON_TEXT_FIELDS
            ]
            stack.extend((_join(path, k), v) for k, v in reversed(children))
        elif isinstance(value, list):
            stack.extend((_join(path, str(i)), v) for i, v in reversed(list(enumerate(value))))


def _join(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


def fold(text: str) -> str:
    """Lower case, NFKC, invisible characters removed: the form all matching happens on."""
    return unicodedata.normalize("NFKC", text).translate(_INVISIBLE).casefold()


def tokens(text: str) -> list[str]:
    """Words of folded text with hyphens as spaces and each word singularised."""
    spaced = _DASHES.sub(" ", fold(text))
    return [singular(word) for word in _NON_WORD.split(spaced) if word]


def singular(word: str) -> str:
    """A crude singular, applied to both sides of a match (so `saas` still meets `saas`)."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def contains_phrase(haystack: list[str], needle: list[str]) -> bool:
    """Whether the token sequence `needle` occurs in `haystack` on word boundaries."""
    if not needle or len(needle) > len(haystack):
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))
