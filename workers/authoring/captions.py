"""A stat's caption: what its number measures, said from the proof fact without the number.

"Merged 1.2 million CRM records" is shown as 1.2 million over "CRM records merged"; "Trial to
paid rose from 8.1% to 11.4%" as 11.4% over "Trial to paid, up from 8.1%"; "Reply rates rose
24% after ..." as 24% over "Rise in reply rates after ...". Only three shapes are rewritten (a
change from one figure to another, a subject that rose or fell by the figure, a leading verb
done to the figure's things); a fact of any other shape gets no caption, and the writer says it
whole in prose instead. Pure text functions.
"""

from __future__ import annotations

import re

# A change verb and the noun a caption opens with ("rose 24%" -> "Rise in ...").
_CHANGE_NOUNS = {
    "rose": "Rise",
    "raised": "Rise",
    "grew": "Growth",
    "increased": "Increase",
    "climbed": "Rise",
    "improved": "Improvement",
    "up": "Rise",
    "fell": "Fall",
    "dropped": "Drop",
    "declined": "Decline",
    "down": "Drop",
    "cut": "Cut",
    "reduced": "Reduction",
    "lowered": "Reduction",
    "shortened": "Reduction",
}
_CHANGE = "|".join(_CHANGE_NOUNS)
_AMOUNT = r"[$\u20ac\u00a3]?[\d.,]*\d(?:\s?%|x\b|\u00d7)?(?:\s(?:days|weeks|months|hours|points))?"
_FROM_TO = re.compile(
    rf"^(?:(?P<subject>.+?)\s+(?P<verb>{_CHANGE}|went|moved)|(?P<lead>{_CHANGE})\s+(?P<object>.+?))"
    rf"\s+from\s+(?P<start>{_AMOUNT})\s+to\s+(?P<end>{_AMOUNT})(?P<rest>.*)$",
    re.IGNORECASE,
)
_LEVEL = re.compile(r"^(?P<subject>.+?)\s+(?:down|up)\s+to$", re.IGNORECASE)
_SCALES = frozenset(("thousand", "million", "billion", "trillion"))
_PREPOSITIONS = frozenset(
    [
        "in",
        "on",
        "at",
        "for",
        "across",
        "after",
        "before",
        "during",
        "within",
        "over",
        "from",
        "to",
        "by",
        "with",
        "of",
        "per",
        "among",
        "since",
        "than",
        "through",
        "under",
    ]
)


def caption(fact: str, *, start: int, end: int) -> str | None:
    """What the figure at `fact[start:end]` measures, without it; None when the fact has no
    shape this module rewrites (the writer then says the fact in prose)."""
    text = fact.strip().rstrip(".")
    said = (
        _from_to(text)
        or _subject_changed(text[:start].strip(), text[end:].strip())
        or _verb_done(text[:start].strip(), text[end:].strip(), text[start:end])
    )
    if said is None:
        return None
    said = _upper_first(re.sub(r"\s+", " ", said).strip(" ,"))
    figure = re.sub(r"[^\d.,]", "", text[start:end]).strip(".,")
    if figure and re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d])", said):
        return None
    return said


def _from_to(text: str) -> str | None:
    match = _FROM_TO.match(text)
    if match is None:
        return None
    before, after = _amount(match.group("start")), _amount(match.group("end"))
    if before is None or after is None or before == after:
        return None
    direction = "up" if after > before else "down"
    subject = match.group("subject") or match.group("object")
    return f"{subject}, {direction} from {match.group('start')}{match.group('rest')}"


def _subject_changed(before: str, after: str) -> str | None:
    """ "Reply rates rose [by] 24% after ..." -> "Rise in reply rates after ..."."""
    match = re.match(rf"^(?P<subject>.+?)\s+(?P<verb>{_CHANGE})(?:\s+by)?$", before, re.I)
    if match is None:
        match = re.match(rf"^(?P<verb>{_CHANGE})\s+(?P<subject>.+?)\s+by$", before, re.I)
    if match is None:
        level = _LEVEL.match(before)  # "Payback period down to 7 months": "Payback period now"
        return f"{level.group('subject')} now {after}" if level else None
    noun = _CHANGE_NOUNS[match.group("verb").lower()]
    return f"{noun} in {_lower_first(match.group('subject'))} {after}"


def _verb_done(before: str, after: str, value: str) -> str | None:
    """ "Merged 1.2 million CRM records" -> "CRM records merged"; "Found 18% of pipeline
    double-counted" -> "Share of pipeline double-counted"."""
    if not re.fullmatch(r"[A-Z][a-z]*(?:ed|ound|ut|on|ent|ade|ook|uilt|eld|an)", before):
        return None
    words = after.split()
    if value.rstrip().endswith("%"):
        return f"Share {after}" if words[:1] == ["of"] else None
    unit = re.search(r"\s([a-z]+)$", value)  # "41 meetings", not the scale of "1.2 million"
    unit = None if unit is None or unit.group(1) in _SCALES else unit
    taken = 0
    while taken < len(words) and words[taken].lower() not in _PREPOSITIONS:
        taken += 1
    thing = " ".join(([unit.group(1)] if unit else []) + words[:taken])
    if not thing:
        return None
    return f"{thing} {before.lower()} {' '.join(words[taken:])}"


def _amount(text: str) -> float | None:
    digits = re.sub(r"[^\d.]", "", text.replace(",", ""))
    try:
        return float(digits)
    except ValueError:
        return None


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[0].lower() + text[1:] if first[1:].islower() or len(first) == 1 else text
