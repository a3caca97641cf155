"""What of a brief a page left out, and why: the `notes[]` of every generate answer and job.

Written for any writer (built-in or model): each brief element is looked for on the finished
page, and one that is missing, shortened or merged gets a note naming its field and the reason
(an off-brand word, a number the proof does not give, no room). `goal` and `tone` steer the page
and are never printed, so they get no note here; the built-in writer adds one for a `tone` that
names none of its voices (workers/authoring/voices.py). Pure.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gate.claims import numbers
from gate.context import quote_key
from gate.text import text_fields
from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from workers.authoring.material import Screen
from workers.authoring.phrasing import one_word, sentences
from workers.authoring.proof import read_quote

_LINK_FIELDS = ("cta_href", "ctaHref")


def brief_notes(
    brief: GenerationBrief, payload: dict[str, Any], *, brand: Brand
) -> list[BriefNote]:
    """One note per brief element the page does not carry whole."""
    screen = Screen(brand=brand, proof=brief.proof)
    page = _Page(payload)
    notes = list(_topic(brief, page, screen))
    notes += _offer(brief, page, screen)
    notes += _proof(brief, page, screen)
    notes += _sections(brief, page, screen)
    notes += _cta(brief, page, screen)
    return notes


class _Page:
    def __init__(self, payload: dict[str, Any]) -> None:
        fields = list(text_fields(payload))
        self.text = " | ".join(quote_key(text) for _f, text in fields)
        self.numbers = {norm for _f, text in fields for _raw, norm in numbers(text)}
        raw = payload.get("blocks")
        blocks: list[Any] = raw if isinstance(raw, list) else []
        self.headings = [
            str(b.get("title", "")).strip().lower() for b in blocks if isinstance(b, dict)
        ]
        self.titles = [str(payload.get("title", ""))] + [
            str(b.get("title", "")) for b in blocks[:1] if isinstance(b, dict)
        ]
        self.links = {str(payload.get(k)) for k in _LINK_FIELDS} | {
            str(b.get("ctaHref")) for b in blocks if isinstance(b, dict)
        }
        self.labels = {str(payload.get("cta_label"))} | {
            str(b.get("ctaLabel")) for b in blocks if isinstance(b, dict)
        }

    def says(self, text: str) -> bool:
        key = quote_key(text)
        return bool(key) and key in self.text


def _note(field: str, code: str, message: str) -> BriefNote:
    return BriefNote(field=field, code=code, message=message)


def _why(screen: Screen, text: str, fallback: str) -> tuple[str, str]:
    problem = screen.problem(text)
    return ("dropped", problem) if problem else ("not_used", fallback)


def _topic(brief: GenerationBrief, page: _Page, screen: Screen) -> Iterator[BriefNote]:
    if page.says(brief.topic):
        return
    shortened = [t for t in page.titles if t and quote_key(brief.topic).startswith(quote_key(t))]
    if shortened and screen.problem(brief.topic) is None:
        longest = max(shortened, key=len)
        yield _note("topic", "shortened", f"too long for the title; printed as {longest!r}")
        return
    code, why = _why(screen, brief.topic, "the page is titled from the offer instead")
    yield _note("topic", code, f"not printed: {why}")


def _offer(brief: GenerationBrief, page: _Page, screen: Screen) -> Iterator[BriefNote]:
    for sentence in sentences(brief.offer):
        if one_word(sentence):
            why = "one word is not a sentence a buyer can read; say what the client gets"
            yield _note("offer", "dropped", f"{_start(sentence)} left out: {why}")
            continue
        # "Security: we work in ..." is printed without its label under the heading it names.
        if page.says(sentence) or page.says(sentence.partition(": ")[2]):
            continue
        code, why = _why(screen, sentence, "no block had room for it")
        yield _note("offer", code, f"{_start(sentence)} left out: {why}")


def _proof(brief: GenerationBrief, page: _Page, screen: Screen) -> Iterator[BriefNote]:
    for index, fact in enumerate(brief.proof):
        quote = read_quote(fact)
        if quote is not None and page.says(quote.quote):
            continue
        if quote is None and page.says(fact):
            continue
        stated = {norm for _raw, norm in numbers(fact)}
        if quote is None and stated and stated <= page.numbers:
            continue
        code, why = _why(screen, fact, "the writer found no place for it")
        yield _note(f"proof.{index}", code, f"{_start(fact)} not used: {why}")


def _sections(brief: GenerationBrief, page: _Page, screen: Screen) -> Iterator[BriefNote]:
    seen: dict[str, int] = {}
    for index, name in enumerate(brief.sections):
        key = name.strip().lower()
        if key in seen:
            yield _note(
                f"sections.{index}",
                "merged",
                f"section {name!r} repeats sections.{seen[key]}; merged into it",
            )
            continue
        seen[key] = index
        if key in page.headings:
            continue
        code, why = _why(screen, name, "no heading on the page carries it")
        yield _note(f"sections.{index}", code, f"section {name!r} has no heading: {why}")


def _cta(brief: GenerationBrief, page: _Page, screen: Screen) -> Iterator[BriefNote]:
    if brief.cta_label and brief.cta_label.strip() not in page.labels:
        code, why = _why(screen, brief.cta_label, "the page uses another label")
        yield _note("cta_label", code, f"not used: {why}")
    if brief.cta_href and brief.cta_href not in page.links:
        yield _note("cta_href", "dropped", "not used: a link must be a site path or an https URL")


def _start(text: str) -> str:
    words = text.split()
    return repr(" ".join(words[:6]) + (" ..." if len(words) > 6 else ""))
