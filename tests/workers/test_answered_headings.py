"""Each requested heading is answered or left out with a note, over 33 briefs in three voices.

How this test decides that a body answers its heading (its own judge, not the writer's):
- "Pricing" (price, cost, fees): the section states a price, a currency figure;
- "Security": the body speaks of security, access, permissions, privacy, compliance or
  exports; "Integrations": of integrating, connecting, a named tool, exports or an API;
- "Timeline": a steps section of at least two steps, each stating a time (a duration, a
  cadence, a day);
- "FAQ" (questions): a FAQ block whose every question ends in "?" and has an answer;
- "Who it is not for": the body says who it is not for;
- any other heading with prose: the prose shares a word (its first five letters) with the
  heading, or, for a heading that only frames the brief ("The problem"), with the topic or
  offer. Typed blocks (cards, steps, quotes, stats, forms) under other headings are the
  kind their heading asks for and are not judged here.
A sentence under two different headings across the corpus must answer both by the same judge.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest

from gate.check import check_page
from gate.context import quote_key
from schemas.content.jobs import GenerationBrief
from tests.workers.heading_briefs import HEADING_BRIEFS, HELD_OUT, TUNED
from tests.workers.test_copy_quality import CATALOG, TERMS, compose, notes_of
from workers.authoring.phrasing import sentences

IDS = [b["slug"] for b in HEADING_BRIEFS]
_CATEGORIES = (
    ("pricing", re.compile(r"\b(?:pricing|prices?|costs?|fees?)\b", re.I)),
    ("security", re.compile(r"\bsecurity\b", re.I)),
    ("integrations", re.compile(r"\bintegrations?\b", re.I)),
    ("timeline", re.compile(r"\b(?:timeline|schedule)\b", re.I)),
    ("faq", re.compile(r"\b(?:faqs?|questions)\b", re.I)),
    ("notfit", re.compile(r"\bnot for\b", re.I)),
    ("results", re.compile(r"\b(?:results?|outcomes?|evidence|proof|numbers|produced)\b", re.I)),
    ("results", re.compile(r"what clients have seen|how it has gone", re.I)),
    ("quotes", re.compile(r"\b(?:testimonials?|what clients say)\b", re.I)),
    ("steps", re.compile(r"\bhow (?:it|we|the \w+) (?:works?|runs?)\b|\bprocess\b", re.I)),
)
# Headings of one kind under different names ("How it works", "Timeline") ask the same thing.
_SAME_ASK = {"timeline": "steps"}
_ANSWERS = {
    "pricing": re.compile(r"[$\u20ac\u00a3]\s?\d"),
    "security": re.compile(
        r"\b(?:secur\w*|access|permissions?|privacy|encrypt\w*|complian\w*|read-only|export\w*)\b",
        re.I,
    ),
    "integrations": re.compile(
        r"\b(?:integrat\w*|connect\w*|HubSpot|Salesforce|Google Ads|LinkedIn|exports?|API)\b"
    ),
    "notfit": re.compile(r"\bnot (?:for|a fit)\b|\bisn't for\b|\bif you (?:don't|have no)\b", re.I),
}
_TIME = re.compile(
    r"\b(?:minutes?|hours?|days?|weeks?|months?|quarters?|years?|weekly|monthly|daily|friday)\b",
    re.I,
)
_SCALE_AFTER = re.compile(r"^\s?(?:million|billion|thousand|trillion|m|bn|b|k)\b", re.I)
_UNSERVED_GOAL = re.compile(r"trial|sign ?up|subscri|webinar|purchase|newsletter", re.I)
DANGLING = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "for",
        "with",
        "from",
        "into",
        "than",
        "as",
        "your",
        "our",
        "their",
    ]
)


def category(heading: str) -> str | None:
    return next((name for name, cue in _CATEGORIES if cue.search(heading)), None)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())} - {"with", "your", "that"}


def sections_of(page: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(heading, the blocks under it) for every titled block after the hero."""
    found: list[tuple[str, list[dict[str, Any]]]] = []
    for block in page["blocks"][1:]:
        if block.get("title"):
            found.append((block["title"], [block]))
        elif found:
            found[-1][1].append(block)
    return found


def body_sentences(blocks: list[dict[str, Any]]) -> list[str]:
    said: list[str] = []
    for block in blocks:
        for key in ("markdown", "lede", "sub"):
            said += sentences(block.get(key))
        for item in block.get("items", []):
            said += sentences(item.get("body") or item.get("a"))
    return said


def answers(heading: str, blocks: list[dict[str, Any]], brief: GenerationBrief) -> bool:
    """Whether the body under `heading` answers it (the module docstring's judge)."""
    kind = category(heading)
    text = " ".join(
        [*body_sentences(blocks), *(i.get("title", "") for b in blocks for i in b.get("items", []))]
    )
    if kind in _ANSWERS:
        return _ANSWERS[kind].search(text) is not None
    if kind == "timeline":
        items = [i for b in blocks if b["type"] == "steps" for i in b["items"]]
        return len(items) >= 2 and all(_TIME.search(f"{i['title']} {i['body']}") for i in items)
    if kind == "faq":
        items = [i for b in blocks if b["type"] == "faq" for i in b["items"]]
        return bool(items) and all(i["q"].endswith("?") and i["a"].strip() for i in items)
    if kind == "results":  # figures, or the proof said in prose
        proof = {quote_key(p) for p in brief.proof}
        return any(b["type"] in ("stats", "quote") for b in blocks) or any(
            quote_key(s) in proof for s in body_sentences(blocks)
        )
    if kind == "quotes":
        return any(b["type"] == "quote" for b in blocks)
    if blocks[0]["type"] != "richtext":
        return True
    about = _stems(heading) or _stems(f"{brief.topic} {brief.offer or ''}")
    return bool(about & _stems(text)) or bool(
        _stems(f"{brief.topic} {brief.offer or ''}") & _stems(text)
    )


def sentence_answers(sentence: str, heading: str, brief: GenerationBrief) -> bool:
    kind = category(heading)
    if kind == "pricing":  # a price, or the terms it is paid on
        return (
            re.search(r"[$\u20ac\u00a3]\s?\d|\bfees?\b|\binvoic|\bminimum term\b", sentence)
            is not None
        )
    if kind in _ANSWERS:
        return _ANSWERS[kind].search(sentence) is not None
    if kind in ("faq", "timeline", "steps", "results", "quotes"):
        return True  # judged as a block: a question's answer, a step, the proof's lede
    return bool(_stems(sentence) & (_stems(heading) | _stems(brief.topic)))


def page_defects(raw: dict[str, Any]) -> list[str]:
    """Every defect of the issue on one page: unanswered headings, lost scales, captions that
    repeat their number, quotes ending in a comma, titles cut mid-phrase, a goal replaced."""
    brief, page = compose(raw)
    found = [
        f"heading {h!r} not answered"
        for h, blocks in sections_of(page)
        if h.lower() in {s.strip().lower() for s in brief.sections}
        and not answers(h, blocks, brief)
    ]
    found += _stat_defects(page, brief)
    found += [
        f"quote ends with a comma: {b['quote']!r}"
        for b in page["blocks"]
        if b["type"] == "quote" and b["quote"].rstrip().endswith(",")
    ]
    found += _title_defects(page, brief)
    found += _goal_defects(page, brief)
    found += _acronym_defects(page, raw)
    return found


def _stat_defects(page: dict[str, Any], brief: GenerationBrief) -> list[str]:
    found = []
    for item in [i for b in page["blocks"] if b["type"] == "stats" for i in b["items"]]:
        figure = re.search(r"[\d.,]*\d", item["value"])
        assert figure is not None, item
        if figure.group(0) in item["label"]:
            found.append(f"caption repeats its number: {item}")
        for fact in brief.proof:
            at = fact.find(item["value"])
            if at >= 0 and _SCALE_AFTER.match(fact[at + len(item["value"]) :]):
                found.append(f"stat lost its scale: {item['value']!r} from {fact!r}")
    return found


def _title_defects(page: dict[str, Any], brief: GenerationBrief) -> list[str]:
    found = []
    topic = brief.topic.strip().rstrip(".")
    whole = {s.rstrip(".").lower() for s in sentences(brief.offer)}
    for text in (page["title"], page["blocks"][0]["title"]):
        if text.lower() in whole:  # a whole sentence of the offer, not a cut
            continue
        last = re.findall(r"[a-z']+", text.lower())[-1:]
        rest = topic[len(text) :] if topic.lower().startswith(text.lower()) else ""
        if last and last[0] in DANGLING:
            found.append(f"title ends on {last[0]!r}: {text!r}")
        elif rest and "," in text and re.match(r"\s(?:and|or)\b", rest):
            found.append(f"title cut inside a list: {text!r}")
        elif rest and re.search(r"\b(?:who|whose|which|that)\b[^,;:]*$", text):
            found.append(f"title cut inside a clause: {text!r}")
    return found


def _goal_defects(page: dict[str, Any], brief: GenerationBrief) -> list[str]:
    labels = {page.get("cta_label")} | {b.get("ctaLabel") for b in page["blocks"]}
    labels.discard(None)
    if brief.cta_label and brief.cta_href:
        if page.get("cta_label") != brief.cta_label or page.get("cta_href") != brief.cta_href:
            return ["the brief's button did not win"]
        return []
    if brief.goal and _UNSERVED_GOAL.search(brief.goal):
        noted = {n.field for n in notes_of(brief, page)}
        if labels or any(b["type"] == "cta" for b in page["blocks"]) or "goal" not in noted:
            return [f"goal {brief.goal!r} replaced by {labels or 'a closing'} without a note"]
    return []


def _acronym_defects(page: dict[str, Any], raw: dict[str, Any]) -> list[str]:
    typed = " ".join(str(raw.get(k, "")) for k in ("topic", "icp", "offer"))
    said = " ".join(
        t
        for b in page["blocks"]
        for t in [b.get("title") or "", b.get("sub") or "", b.get("markdown") or ""]
    )
    found = [
        f"{word!r} printed in lower case"
        for word in ("crm", "b2b", "saas")
        if re.search(rf"\b{word}\b", typed) and re.search(rf"\b{word}\b", said)
    ]
    if re.search(r"\b(?:of it|it teams|it security)\b", typed) and not re.search(r"\bIT\b", said):
        found.append("'it' the department printed as the pronoun")
    return found


def left_out_without_a_note(raw: dict[str, Any]) -> list[str]:
    brief, page = compose(raw)
    headings = {str(b.get("title", "")).lower() for b in page["blocks"]}
    notes = {n.field: n.message for n in notes_of(brief, page)}
    missing = []
    for index, name in enumerate(brief.sections):
        if name.strip().lower() in headings:
            continue
        note = notes.get(f"sections.{index}", "")
        if name not in note or "left out" not in note or "to have it" not in note:
            missing.append(name)
    return missing


def shared_sentences(raws: list[dict[str, Any]]) -> list[str]:
    """Sentences said under two different headings that do not answer both."""
    under: dict[str, dict[str, tuple[str, GenerationBrief]]] = defaultdict(dict)
    for raw in raws:
        brief, page = compose(raw)
        for heading, blocks in sections_of(page):
            # The closing request is one ask however the voice titles it; an agent's card says
            # both who does the work and what it delivers ("Meet the team", "What you get").
            ask = {"cta": "closing", "leadform": "closing", "features": "cards"}.get(
                blocks[0]["type"]
            )
            asked = category(heading)
            kind = (
                asked
                if asked in _ANSWERS or asked == "pricing"
                else ask or asked or heading.lower()
            )
            for sentence in body_sentences(blocks):
                under[quote_key(sentence)][heading.lower()] = (_SAME_ASK.get(kind, kind), brief)
    return [
        f"{key!r} under {sorted(by)}"
        for key, by in under.items()
        if len({kind for kind, _brief in by.values()}) > 1
        and not all(sentence_answers(key, h, brief) for h, (_kind, brief) in by.items())
    ]


def figures(raws: list[dict[str, Any]]) -> dict[str, int]:
    """The counts this test pins at zero, for a set of briefs (reported per set)."""
    defects = [d for raw in raws for d in page_defects(raw)]
    pricing = [
        (raw["slug"], h)
        for raw in raws
        for h, blocks in sections_of(compose(raw)[1])
        if category(h) == "pricing" and not answers(h, blocks, compose(raw)[0])
    ]
    return {
        "briefs": len(raws),
        "pages with a defect": sum(1 for raw in raws if page_defects(raw)),
        "headings not answered": sum("not answered" in d for d in defects),
        "pricing sections without a price": len(pricing),
        "stats that lost their scale": sum("lost its scale" in d for d in defects),
        "captions repeating their number": sum("repeats its number" in d for d in defects),
        "sentences under two headings": len(shared_sentences(raws)),
        "headings left out without a note": sum(len(left_out_without_a_note(r)) for r in raws),
        "headings left out": sum(
            1
            for raw in raws
            for n in notes_of(*compose(raw))
            if n.field.startswith("sections.") and "left out" in n.message
        ),
    }


def test_the_corpus_has_thirty_briefs_in_three_voices_asking_the_six_headings() -> None:
    """Must show: at least 30 fresh briefs, three voices, the six headings each asked often."""
    asked = [category(name) for raw in HEADING_BRIEFS for name in raw["sections"]]

    assert len(HEADING_BRIEFS) >= 30
    assert len(HELD_OUT) * 3 == len(HEADING_BRIEFS)
    assert len(TUNED) + len(HELD_OUT) == len(HEADING_BRIEFS)
    for kind in ("pricing", "security", "integrations", "timeline", "faq", "notfit"):
        assert asked.count(kind) >= 5, kind


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("raw", HEADING_BRIEFS, ids=IDS)
def test_a_page_has_none_of_the_defects_of_the_last_copy_test(raw: dict[str, Any]) -> None:
    """Every requested heading answered, stats whole with captions that do not repeat them,
    quotes without a trailing comma, titles ending at a clause, the brief's goal or a note."""
    assert page_defects(raw) == []


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("raw", HEADING_BRIEFS, ids=IDS)
def test_notes_name_every_heading_left_out_with_why_and_what_to_add(raw: dict[str, Any]) -> None:
    """A heading nothing answers is not on the page, and `notes[]` names it, why, and what to
    add to the brief."""
    assert left_out_without_a_note(raw) == []


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("raw", HEADING_BRIEFS, ids=IDS)
def test_the_page_passes_the_gate_with_the_companys_prices_on_the_first_draft(
    raw: dict[str, Any],
) -> None:
    """A price under "Pricing" is the company's own, which the gate accepts for a generated
    page; every other figure is the brief's."""
    brief, page = compose(raw)

    assert check_page(page, brand=CATALOG.brand, brief=brief, published=TERMS) == []


@pytest.mark.spec("content.generate")
def test_no_sentence_stands_under_two_headings_it_does_not_answer_across_the_corpus() -> None:
    """ "We work in weekly sprints..." never under both "Security" and "Integrations"."""
    assert shared_sentences(HEADING_BRIEFS) == []


@pytest.mark.spec("content.generate")
def test_the_held_out_briefs_show_the_same_figures_as_the_tuned_ones() -> None:
    """The third kept aside while the writer was tuned: zero on every count, as on the rest."""
    held_out = figures(HELD_OUT)

    assert held_out["pages with a defect"] == 0
    assert held_out["sentences under two headings"] == 0
    assert held_out["headings left out without a note"] == 0
