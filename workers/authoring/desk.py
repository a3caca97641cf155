"""What the built-in writer reads once per brief before planning a page, and what it hands out.

The brief with lower-case acronyms printed as spelled, its voice, the screens copy must pass
(material.py), the proof sorted into quotes, stats and prose (proof.py), the brief's own
timeline (scope.py), the pool of sentences each block draws from, and the seeded choices among
a voice's phrasings. Only the plan (plan.py) draws on the pool and the seed, in page order; the
block writers (blocks.py) never see them. The same brief always gives the same page.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from schemas.public import Company
from workers.authoring.answers import leave_out_note
from workers.authoring.blocks import Button
from workers.authoring.goals import unserved_goal
from workers.authoring.library import Library
from workers.authoring.material import Pool, Screen, fill_pool
from workers.authoring.phrasing import content_words, one_word, sentences, with_acronyms
from workers.authoring.pricing import company_terms
from workers.authoring.proof import Quote, Stat, sort_proof
from workers.authoring.scope import own_timeline, stated_timeline
from workers.authoring.sections import kind_of
from workers.authoring.voices import next_voice, voice_of

# Variants of one brief: 0 is the page as it always was; 1 leads the hero with another
# headline (the offer's lead, or the ICP named first); 2 puts another proof first (a proof
# fact as the headline, the stats in another order); 3 writes the page in another voice.
ANGLES = 4
ANGLE_HEADLINE, ANGLE_PROOF, ANGLE_VOICE = 1, 2, 3
HERO_TITLE_MAX = 90
_CTA_BY_GOAL = (
    (re.compile(r"\baudit\b"), "Book an audit call"),
    (re.compile(r"\b(reply|email|note|message|write)\b"), "Send us a note"),
    (re.compile(r"\b(download|guide|report|playbook)\b"), "Request the write-up"),
    (re.compile(r"\b(workshop|session)\b"), "Book a working session"),
    (re.compile(r"\b(call|meeting|schedule|book|talk|chat)\b"), "Book a call"),
)


class Desk:
    """One brief's material and choices, drawn on by the plan in page order."""

    def __init__(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        angle: int = 0,
        library: Library | None = None,
    ) -> None:
        if angle not in range(ANGLES):
            raise ValueError(f"angle must be 0 to {ANGLES - 1}, not {angle}")
        self.angle = angle
        # Angle 0 is the page as it always was; another angle also words the page's seeded
        # choices (headings, closing) another way.
        seed = brief.model_dump_json() + (f"\nangle {angle}" if angle else "")
        digest = hashlib.sha256(seed.encode()).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "big"))  # noqa: S311  # wording seed
        # Acronyms typed in lower case ("crm", "b2b saas", "faq") are printed as spelled; the
        # seed above stays the brief's own.
        brief = self.brief = brief.model_copy(
            update={
                "topic": with_acronyms(brief.topic),
                "icp": with_acronyms(brief.icp),
                "offer": with_acronyms(brief.offer) if brief.offer else brief.offer,
                "sections": [with_acronyms(name) for name in brief.sections],
            }
        )
        self.company = company
        self.voice = voice_of(brief.tone)
        if angle == ANGLE_VOICE:
            self.voice = next_voice(self.voice)
        self.screen = Screen(brand=brand, proof=brief.proof)
        # The company's own prices and terms may be stated under a pricing or timeline heading:
        # they are what the company publishes, not a claim about clients.
        self.priced = Screen(brand=brand, proof=brief.proof, published=company_terms(company))
        self.left_out: list[BriefNote] = []
        self.goal_note = unserved_goal(brief)
        # A heading that names a block kind ("What you get", "Results") says nothing about the
        # subject: its words would match agents to the page by "what" or "result".
        self.subject = [name for name in brief.sections if kind_of(name) == "richtext"]
        self.words = content_words(
            " ".join([brief.topic, brief.offer or "", brief.goal or "", *self.subject])
        )
        # Set only when the brief sells a piece of work shorter than the program (scope.py).
        self.timeline = own_timeline(
            brief.topic, brief.offer, minimum_term=company.engagement_model.minimum_term
        )
        self.pool = Pool()
        self.asked: dict[str, tuple[int, str]] = {}  # a requested heading: its index and name
        proof = sort_proof(brief.proof, ok=self.screen.ok)
        self.quotes, self.stats, self.plain = proof.quotes, proof.stats, proof.plain
        # A one-word offer ("pages") is no sentence to print; notes.py says it was left out.
        self.offer = [s for s in sentences(brief.offer) if self.screen.ok(s) and not one_word(s)]
        self.offer_steps = self._reserve_offer_steps()
        fill_pool(
            self.pool,
            offer=self.offer,
            company=company,
            timeline=self.timeline,
            screen=self.screen,
            library=library,
        )
        for fact in self.plain:  # a fact about a heading's subject may answer it
            self.pool.add(fact, "proof")
        self.headline_fact = self._headline_fact() if angle == ANGLE_PROOF else None

    def _headline_fact(self) -> str | None:
        """For the proof-first angle, the proof fact the hero states, taken from the rest of
        the page: the last stat that fits a title (the page shows another first), else a fact
        said in prose."""
        fits = [s for s in self.stats if len(s.fact.rstrip(".")) <= HERO_TITLE_MAX]
        if fits:
            chosen = fits[-1]
            self.stats = [s for s in self.stats if s is not chosen]
            return chosen.fact.rstrip(".")
        fact = next((f for f in self.plain if len(f.rstrip(".")) <= HERO_TITLE_MAX), None)
        return None if fact is None else self.pool.spend(fact).rstrip(".")

    def _reserve_offer_steps(self) -> list[str]:
        """With its own timeline, the offer's sentence stating it is how the work runs: kept
        for the steps when another offer sentence can lead the hero."""
        if self.timeline is None or len(self.offer) < 2:
            return []
        if self.brief.sections and not any(kind_of(n) == "steps" for n in self.brief.sections):
            return []
        timed = next((s for s in self.offer if stated_timeline(s) and says_work(s)), None)
        return [self.pool.spend(timed)] if timed else []

    @property
    def serves_goal(self) -> bool:
        """Whether the page can serve the brief's goal (goals.py); else it prints no other."""
        return self.goal_note is None

    def pick(self, options: tuple[str, ...]) -> str:
        """A seeded choice among a voice's phrasings."""
        return options[self.rng.randrange(len(options))]

    def line(self, options: tuple[str, ...]) -> str | None:
        """A voice line not yet on the page."""
        for text in sorted(options, key=lambda _t: self.rng.random()):
            if not self.pool.is_used(text):
                return self.pool.spend(text)
        return None

    def heading(self, kind: str) -> str:
        """A heading in the voice for a section of `kind` the brief did not name."""
        options = self.voice.headings.get(kind) or self.voice.headings["features"]
        return self.pick(options)

    def leave_out(self, title: str, why: str, add: str | None = None) -> None:
        """Note that the requested section under `title` is left out, and why."""
        index, name = self.asked.get(title, (None, title))
        if index is not None:
            self.left_out.append(leave_out_note(index, name, why=why, add=add))

    def button(self) -> Button:
        """The page's one button: the brief's own label and link win."""
        label = (self.brief.cta_label or "").strip()
        if not (label and self.screen.ok(label)):
            goal = (self.brief.goal or "").lower()
            label = next(
                (text for cue, text in _CTA_BY_GOAL if cue.search(goal)), "Book an intro call"
            )
        href = self.brief.cta_href
        if not (
            href
            and (
                href.startswith("https://") or (href.startswith("/") and not href.startswith("//"))
            )
        ):
            href = str(self.company.urls.book_call)
        return Button(label=label, href=href)


def says_work(sentence: str) -> bool:
    """A sentence that can stand as a step's body: a clause, not a fragment ("One week.")."""
    return len(sentence.split()) >= 4


@dataclass(frozen=True)
class Section:
    """One planned section and what the plan handed it before any block was written: the
    proof's stats and quotes go to one section each, the offer's reserved steps to the first
    steps, and an agent's sentence to the prose heading that names its work."""

    kind: str
    title: str
    kinds: tuple[str, ...] = ()  # every planned section's kind, in order
    features_planned: bool = False
    assigned: Mapping[str, str] = field(default_factory=dict)
    stats: tuple[Stat, ...] = ()
    quotes: tuple[Quote, ...] = ()
    quotes_pending: bool = False  # the proof's quotes are shown here or further down
    quote_lede: bool = False  # a quote heading after the results: a lede, then the quotes
    takes_results: bool = False  # a heading with the proof's prose, then its stats
    fit_said: bool = False  # a "Who it's for" section above answers the FAQ's fit question
    offer_steps: tuple[str, ...] = ()
