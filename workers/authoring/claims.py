"""What a writer may state: numbers and quotes only from the brief's proof; no banned wording.

Shared by the template writer and the model adapters' prompts. Pure text functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBER = re.compile(r"\d[\d,.]*%?")
_WORD_BOUNDARY = r"(?<![\w-]){}(?![\w-])"


def numbers_in(text: str) -> set[str]:
    """Every number (with its % sign) in `text`, trailing punctuation dropped."""
    return {match.rstrip(".,") for match in _NUMBER.findall(text)}


def proof_numbers(proof: Iterable[str]) -> set[str]:
    """The numbers the proof states."""
    found: set[str] = set()
    for item in proof:
        found |= numbers_in(item)
    return found


def is_supported(text: str, allowed: set[str]) -> bool:
    """True when every number in `text` is one the proof states, and it quotes nothing."""
    if any(mark in text for mark in ('"', "\u201c", "\u201d")):
        return False
    return numbers_in(text) <= allowed


def scrub_wording(text: str, banned: Iterable[tuple[str, str | None]]) -> str:
    """`text` without banned phrases: a one-word suggestion replaces it, otherwise it goes."""
    for phrase, suggest in sorted(banned, key=lambda pair: -len(pair[0])):
        replacement = suggest if suggest and re.fullmatch(r"[a-z ]{2,20}", suggest) else ""
        pattern = re.compile(_WORD_BOUNDARY.format(re.escape(phrase)), re.IGNORECASE)
        text = pattern.sub(replacement, text)
    return re.sub(r"\s{2,}", " ", re.sub(r"\s+([,.;:])", r"\1", text)).strip()


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary."""
    text = text.strip()
    if len(text) <= limit:
        return text
    window = text[: limit + 1]
    if " " not in window:
        return text[:limit]
    cut = window.rsplit(" ", 1)[0].rstrip(",;:-")
    return cut if cut else text[:limit]


# Where a long fact can end early and still read whole: a clause break first, else before a
# trailing qualifier ("... across 3 ad platforms for a Series A client").
_PHRASE_ENDS = (
    re.compile(r"[,;:] | [\u2013\u2014-] "),
    re.compile(r" (?=(?:for|across|at|in|with|by|over|during) )"),
)


def caption(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: whole, else up to its last phrase break that
    keeps at least half of the room, else clipped at a word with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    for pattern in _PHRASE_ENDS:
        ends = [m.start() for m in pattern.finditer(text) if limit // 2 <= m.start() <= limit]
        if ends:
            return text[: ends[-1]]
    return clip(text, limit - 1) + "\u2026"


def sentences(text: str) -> list[str]:
    """`text` split into sentences (on . ! ? followed by a space)."""
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return [part.strip() for part in parts if part.strip()]
