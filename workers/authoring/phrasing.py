"""Fitting copy into a limit without clipping it: a whole text, a whole phrase of it, or nothing.

A writer that meets a limit picks a shorter formulation; these functions never cut a phrase in
the middle, so what they return always ends at a sentence or phrase boundary. Pure text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Where a long text can end early and still read whole: a clause break first, then before a
# trailing qualifier ("... across 3 ad platforms for a Series A client").
_PHRASE_ENDS = (
    re.compile(r"[;:](?= )| [\u2013\u2014] | - "),
    re.compile(r",(?= )"),
    re.compile(
        r" (?=(?:for|across|at|in|with|by|over|during|within|after|before|while|when|so|"
        r"because|without|from|on|to|into|than|which|that|and|but) )"
    ),
)
# A phrase never ends on one of these.
DANGLING = frozenset(
    str.split(
        "a an the and or but of to for with by at in on from into your our their its this that "
        "these those as than so is are was were be been who which when while if because without "
        "over across during within after before per via"
    )
)
_ELLIPSIS_END = re.compile(r"\s*(?:\.{3}|\u2026)\s*$|\s*(?:\.{3}|\u2026)(?=\s+[A-Z])")
_ELLIPSIS = re.compile(r"\s*(?:\.{3}|\u2026)\s*")
_STOP = re.compile(r"(?<=[.!?])\s+")
_STARTS_SENTENCE = re.compile(r"[A-Z0-9\"\u201c(]")
# Words that end in a full stop inside a sentence ("e.g. search", "etc. and more").
_ABBREVIATIONS = frozenset(
    str.split("e.g. i.e. etc. vs. cf. approx. incl. esp. ca. no. dr. mr. mrs. ms. st.")
)


def first_fit(options: Iterable[str | None], limit: int) -> str | None:
    """The first option that is not empty and fits in `limit` characters."""
    for option in options:
        if option and option.strip() and len(option.strip()) <= limit:
            return option.strip()
    return None


def fit_phrase(text: str, limit: int) -> str | None:
    """`text` whole, else its longest leading phrase that fits and reads whole, else None.

    A cut never splits a list ("ads, analytics and CRM") or leaves a clause it opened
    ("... when the toggle moved") unfinished.
    """
    text = text.strip()
    if len(text) <= limit:
        return text
    ends = {
        m.start()
        for pattern in _PHRASE_ENDS
        for m in pattern.finditer(text)
        if limit * 2 // 5 <= m.start() <= limit
    }
    for end in sorted(ends, reverse=True):
        head = text[:end].rstrip(" ,;:-\u2013\u2014")
        if ends_whole(head) and not _splits_list(text, end) and not _open_clause(head):
            return head
    return None


def _splits_list(text: str, end: int) -> bool:
    """A cut inside "a, b and c" would leave the list half said: at a comma with "and" or "or"
    to come, or before the "and" or "or" that closes a list the head began ("ad, web")."""
    if text[end] != ",":
        following = text[end:].split()[:1]
        last_clause = re.split(r"[;:]\s| [\u2013\u2014] ", text[:end])[-1]
        return following in (["and"], ["or"]) and "," in last_clause
    following = text[end + 1 :].split()[:5]
    return any(word in ("and", "or") for word in following)


def _open_clause(head: str) -> bool:
    """The head's last clause began with a subordinating word, so it may be unfinished."""
    last = re.split(r"[,;:]\s", head)[-1].lower()
    return (
        re.search(
            r"\b(when|while|because|if|which|that|where|so|after|before|who|whose|whom)\b", last
        )
        is not None
    )


def ends_whole(text: str) -> bool:
    """Whether `text` ends at a phrase boundary: no dangling word, ellipsis or open clause."""
    stripped = text.rstrip()
    if not stripped or stripped.endswith(("\u2026", "...", ",", ":", ";", "-", "(")):
        return False
    words = re.findall(r"[A-Za-z']+", stripped.lower())
    return not words or words[-1] not in DANGLING


def sentences(text: str | None) -> list[str]:
    """`text` split into sentences, each ending with its own punctuation."""
    if not text:
        return []
    # A trailing-off "..." reads as unfinished: mid-sentence it becomes a dash, at the end a stop.
    text = _ELLIPSIS_END.sub(".", text.strip())
    text = _ELLIPSIS.sub(" \u2014 ", text)
    parts: list[str] = []
    for piece in _STOP.split(text):
        if parts and not _ends_sentence(parts[-1], piece):
            parts[-1] += " " + piece
        else:
            parts.append(piece)
    return [closed_sentence(sentence_case(part.strip())) for part in parts if part.strip()]


def _ends_sentence(before: str, after: str) -> bool:
    """Whether the stop ending `before` ends a sentence: before a capital, a digit or a quote
    always; before a word typed in lower case ("... copy. you get ...") unless the stop ends an
    abbreviation ("e.g.", "vs.", "U.S.") or an initial."""
    if _STARTS_SENTENCE.match(after):
        return True
    if not after[:1].islower():
        return False
    last = before.rsplit(None, 1)[-1].lower()
    word = last[:-1]
    return last not in _ABBREVIATIONS and len(word) > 1 and "." not in word


def one_word(sentence: str) -> bool:
    """A "sentence" of a single word ("Pages."): no buyer reads it as one."""
    return len(re.findall(r"[\w'-]+", sentence)) < 2


def closed_sentence(text: str) -> str:
    """`text`, stripped, ending in a stop (or the stop or closing quote it has)."""
    text = text.strip()
    return text if text[-1:] in '.!?\u201d"' else text + "."


def lower_first(text: str) -> str:
    """`text` with a lower-case first letter, unless it starts an acronym, a name or "I"."""
    first = text.split(" ", 1)[0]
    if (len(first) > 1 and first[0].isupper() and first[1:].islower()) or first == "A":
        return text[0].lower() + text[1:]
    return text


def upper_first(text: str) -> str:
    """`text` with an upper-case first letter."""
    return text[:1].upper() + text[1:]


def sentence_case(text: str) -> str:
    """`text` as the start of a sentence or a heading: a first word typed all in lower case
    gets its capital ("cold email" -> "Cold email"); "iPhone" or "eBay" are left as written."""
    first = text.split(" ", 1)[0]
    return upper_first(text) if first[:1].islower() and first == first.lower() else text


# Words that mean the same thing to a reader, folded to one (a "pricing test" is an experiment).
_SAME = {
    "test": "experiment",
    "testing": "experiment",
    "price": "pricing",
    "reconcile": "attribution",
    "numbers": "number",
    "sequence": "outbound",
    "email": "outbound",
    "account": "account",
    "copy": "copy",
    "landing": "copy",
    "signal": "signal",
    "intent": "signal",
    "visit": "signal",
}


def content_words(text: str) -> set[str]:
    """The words of `text` that carry meaning (four letters or more), folded to a crude stem."""
    words = re.findall(r"[a-z][a-z'-]{3,}", text.lower())
    stems = {w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in words}
    return {_SAME.get(w, w) for w in stems if w not in DANGLING}


# Acronyms and names a hurried brief types in lower case ("crm", "b2b saas", "faq").
_ACRONYMS = {
    word.lower(): word
    for word in str.split(
        "FAQ FAQs CRM CRMs B2B B2C SaaS CFO CFOs CEO CEOs CMO CMOs CRO CROs CTO CTOs COO VP VPs "
        "SEO ROI CAC LTV ARR MRR AI SDR SDRs BDR BDRs ABM KPI KPIs OKR OKRs PLG GTM RevOps ICP"
    )
}
_WORD = re.compile(r"[A-Za-z0-9]+")


# "it" is the pronoun unless it names a department: before a word for its people or work
# ("it teams", "it security"), or after a role ("heads of it", "VP of it").
_IT = re.compile(
    r"\b(?P<role>(?:heads?|vps?|VPs?|ctos?|CTOs?|directors?|managers?) of )?it"
    r"(?P<work> (?:teams?|leaders?|managers?|directors?|heads?|admins?|administrators?|"
    r"departments?|security|ops|operations|budgets?|buyers?|staff|support|services|"
    r"infrastructure)\b)?\b"
)


def _it(match: re.Match[str]) -> str:
    if match.group("role") is None and match.group("work") is None:
        return match.group(0)
    return f"{match.group('role') or ''}IT{match.group('work') or ''}"


def with_acronyms(text: str) -> str:
    """`text` with each acronym typed all in lower case written as it is spelled ("crm" ->
    "CRM", "it teams" -> "IT teams"); a word typed with any capital is left as written."""
    text = _IT.sub(_it, text)
    return _WORD.sub(
        lambda m: _ACRONYMS.get(m.group(0), m.group(0)) if m.group(0).islower() else m.group(0),
        text,
    )
