"""The built-in writer's composer: plans a page from the brief, then writes each block for it.

The plan puts the hero first (the ICP named, the offer's lead), then each requested section in
order under its own heading, the proof where it fits (numbers as stats, quotes as attributed
quote blocks, other facts as prose) and one request at the end. Copy is drawn from a pool of
screened sentences, each used once; a text that is too long is replaced by a shorter
formulation, never cut. `goal` only steers (the request, the form); it is never printed.
Nothing is padded in: an agent gets a card only when the brief is about its work
(agents.py), and an offer that times its own work (scope.py) meets none of the program's
timing.
The same brief always gives the same page: every choice is seeded by the brief.

This module holds the plan and the block writers, which share one pool and one seed. What they
draw on is made beside it: the pool and its screen (material.py), the proof sorted into quotes,
stats and prose (proof.py), the agents a brief is about and how an agent is introduced
(agents.py), the brief's own timeline (scope.py).
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any

from gate.context import quote_key
from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from schemas.public import Company
from workers.authoring.agents import GENERIC_WORDS, agent_sentence, agents_for, name_strangers
from workers.authoring.answers import FRAMING_WORDS, leave_out_note, not_for, subject_words
from workers.authoring.goals import next_steps, unserved_goal
from workers.authoring.material import Pool, Screen, fill_pool
from workers.authoring.phrasing import (
    closed_sentence,
    content_words,
    first_fit,
    fit_phrase,
    lower_first,
    one_word,
    sentence_case,
    sentences,
    upper_first,
    with_acronyms,
)
from workers.authoring.pricing import company_terms, plans_lasting, price_cards, price_terms
from workers.authoring.proof import sort_proof
from workers.authoring.scope import (
    contradicts,
    durations,
    own_timeline,
    stated_span,
    stated_timeline,
)
from workers.authoring.sections import kind_of
from workers.authoring.voices import voice_of
from workers.imaging.compositions import hero_alt

Block = dict[str, Any]
_FORM_GOALS = re.compile(r"\b(form|lead|reply|request|enquir\w*|contact|download)\b")
_CTA_BY_GOAL = (
    (re.compile(r"\baudit\b"), "Book an audit call"),
    (re.compile(r"\b(reply|email|note|message|write)\b"), "Send us a note"),
    (re.compile(r"\b(download|guide|report|playbook)\b"), "Request the write-up"),
    (re.compile(r"\b(workshop|session)\b"), "Book a working session"),
    (re.compile(r"\b(call|meeting|schedule|book|talk|chat)\b"), "Book a call"),
)
_PROOF_KINDS = ("results", "proof", "quote")
_ASKS_WHEN = re.compile(r"(?i)\b(?:timeline|schedule|when|timing)\b")


class Composer:
    """One page for one brief."""

    def __init__(self, brief: GenerationBrief, *, brand: Brand, company: Company) -> None:
        digest = hashlib.sha256(brief.model_dump_json().encode()).digest()
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
        self.features_planned = False
        self.asked: dict[str, tuple[int, str]] = {}  # a requested heading: its index and name
        self.fit_said = False  # a "Who it's for" section answers the FAQ's fit question
        self.assigned: dict[str, str] = {}
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
        )
        for fact in self.plain:  # a fact about a heading's subject may answer it
            self.pool.add(fact, "proof")

    # --- material ---------------------------------------------------------------------

    def _reserve_offer_steps(self) -> list[str]:
        """With its own timeline, the offer's sentence stating it is how the work runs: kept
        for the steps when another offer sentence can lead the hero."""
        if self.timeline is None or len(self.offer) < 2:
            return []
        if self.brief.sections and not any(kind_of(n) == "steps" for n in self.brief.sections):
            return []
        timed = next((s for s in self.offer if stated_timeline(s) and _says_work(s)), None)
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

    # --- the page ---------------------------------------------------------------------

    def page(self) -> dict[str, Any]:
        """The page payload (SitePageInput shape)."""
        brief = self.brief
        hero = self.hero()
        blocks: list[Block] = [hero]
        plan = self.plan()
        self.features_planned = any(kind == "features" for kind, _t in plan)
        self._assign_agents(plan)
        proof_home = any(kind in _PROOF_KINDS for kind, _t in plan)
        for kind, title in plan:
            if not proof_home and kind in ("cta", "leadform"):
                blocks.extend(self.unplaced_proof())
                proof_home = True
            blocks.extend(self.section(kind, title, plan=plan))
        if not proof_home:
            blocks.extend(self.unplaced_proof())
        if self.serves_goal and not any(b["type"] in ("cta", "leadform") for b in blocks[1:]):
            blocks.append(self.closing())
        name_strangers(blocks, self.company.agents)
        payload: dict[str, Any] = {
            "slug": brief.slug,
            "title": self.page_title(hero["title"]),
            "is_published": brief.publish,
            "blocks": blocks[:30],
        }
        if self.serves_goal:
            payload["cta_label"], payload["cta_href"] = self.cta_label(), self.cta_href()
        description = self.description()
        if description:
            payload["description"] = description
        return payload

    def plan(self) -> list[tuple[str, str]]:
        """(kind, heading) per section: the brief's, in order, else a plan chosen for it."""
        if self.brief.sections:
            seen: set[str] = set()
            planned = []
            for index, name in enumerate(self.brief.sections):
                key = name.strip().lower()
                if key in seen:
                    continue  # the same section twice: merged into the first
                seen.add(key)
                kind = kind_of(name)
                heading = (
                    sentence_case(name.strip()) if self.screen.ok(name) else self._heading(kind)
                )
                self.asked.setdefault(heading, (index, name))
                planned.append((kind, heading))
            return planned
        plan = [("features", self._heading("features"))]
        if self.brief.proof:
            plan.append(("proof", self._heading("results")))
        plan.append(("steps", self._heading("steps")))
        plan.append(("faq", self._heading("faq")))
        return plan

    def _assign_agents(self, plan: list[tuple[str, str]]) -> None:
        """A prose section whose heading names an agent's work gets that agent first."""
        taken: set[str] = set()
        for kind, title in plan:
            if kind != "richtext":
                continue
            words = content_words(title)
            best = max(
                self.company.agents, key=lambda a: len(content_words(a.does) & words), default=None
            )
            if best is None or best.name in taken or not content_words(best.does) & words:
                continue
            text = agent_sentence(best)
            if self.screen.ok(text):
                self.assigned[title] = text
                taken.add(best.name)

    def _heading(self, kind: str) -> str:
        options = self.voice.headings.get(kind) or self.voice.headings["features"]
        return self.pick(options)

    def section(self, kind: str, title: str, *, plan: list[tuple[str, str]]) -> list[Block]:
        kinds = [k for k, _t in plan]
        if kind == "features":
            return [self.features(title)]
        if kind == "steps" and _ASKS_WHEN.search(title):
            return [self.timeline_steps(title)]
        if kind == "steps":
            return [self.steps(title)]
        if kind == "faq":
            return [self.faq(title)]
        if kind == "results":
            blocks = self.results(title)
            if "quote" not in kinds and "proof" not in kinds:
                blocks.extend(self.quote_blocks())
            return blocks
        if kind == "proof":
            blocks = self.results(title)
            blocks.extend(self.quote_blocks())
            return blocks
        if kind == "quote":
            if self.quotes and ("results" in kinds or "proof" in kinds):
                lede = self.line(self.voice.quote_lede) or self.company.tagline
                return [
                    {"type": "richtext", "title": title, "markdown": lede},
                    *self.quote_blocks(),
                ]
            blocks = self.results(title)
            blocks.extend(self.quote_blocks())
            return blocks
        if kind == "about":
            return [self.founders(title)]
        if kind == "logos":
            return [{"type": "logos", "title": title}]
        if kind == "leadform":
            return [self.form(title)]
        if kind == "cta":
            if not self.serves_goal:
                return self._leave_out(title, "the page has no way to serve the brief's goal")
            return [self.closing(title)]
        if kind == "pricing":
            return self.pricing(title)
        if kind == "terms":
            return [self.prose(title, sources=("terms", "engagement"))]
        if kind == "fit":
            self.fit_said = True
            return [{"type": "richtext", "title": title, "markdown": self._fit_answer()}]
        if kind == "notfit":
            return self.not_for(title)
        return self.answer(title)

    # --- blocks -----------------------------------------------------------------------

    def hero(self) -> Block:
        brief, voice = self.brief, self.voice
        icp = brief.icp.strip()
        title = self.hero_title()
        if self.offer and quote_key(title) == quote_key(self.offer[0]):
            self.pool.spend(self.offer[0])
        lead = next((s for s in self.offer if not self.pool.is_used(s)), None)
        fill = {"icp": icp, "icp_lower": lower_first(icp)}
        options = []
        if lead:
            options += [
                t.format(**fill, lead=lead, lead_lower=lower_first(lead))
                for t in voice.sub_with_lead
            ]
        options += [t.format(**fill) for t in voice.sub_alone]
        sub = first_fit(options, 220) or f"For {icp}."
        if lead and lead in sub:
            self.pool.spend(lead)
        hero: Block = {"type": "hero", "title": title, "sub": sub}
        if self.serves_goal:
            hero["ctaLabel"], hero["ctaHref"] = self.cta_label(), self.cta_href()
        bullets = [
            self.pool.spend(s) for s in self.offer if len(s) <= 100 and not self.pool.is_used(s)
        ][:3]
        if len(bullets) >= 2:
            hero["bullets"] = [b.rstrip(".") for b in bullets]
        else:
            for bullet in bullets:
                self.pool.unspend(bullet)
        if brief.generate_image:
            hero["imageAlt"] = hero_alt(brief)
        return hero

    def hero_title(self) -> str:
        topic = sentence_case(self.brief.topic.strip().rstrip("."))
        if self.screen.ok(topic):
            fitted = fit_phrase(topic, 90)
            if fitted:
                return fitted
        return (
            first_fit(
                [
                    self.offer[0].rstrip(".") if self.offer else None,
                    f"Growth work for {lower_first(self.brief.icp.strip())}",
                    "Growth work, planned and checked by a strategist",
                ],
                90,
            )
            or "Growth work, planned and checked by a strategist"
        )

    def page_title(self, hero_title: str) -> str:
        topic = sentence_case(self.brief.topic.strip().rstrip("."))
        fitted = fit_phrase(topic, 60) if self.screen.ok(topic) else None
        return (
            first_fit(
                [
                    fitted,
                    hero_title,
                    f"{self.company.name} for {lower_first(self.brief.icp.strip())}",
                ],
                60,
            )
            or self.company.name
        )

    def description(self) -> str | None:
        topic = sentence_case(self.brief.topic.strip())
        lead = self.offer[0] if self.offer else None
        icp = self.brief.icp.strip()
        topic_ok = self.screen.ok(topic)
        said = closed_sentence(topic) if topic_ok else None
        if said and one_word(said):  # "SEO." is no sentence: "SEO for CMOs."
            said = closed_sentence(f"{topic} for {lower_first(icp)}")
            return first_fit([f"{said} {lead}" if lead else None, said], 160)
        return first_fit(
            [
                f"{said} {lead}" if said and lead else None,
                f"{said} For {lower_first(icp)}." if said else None,
                f"For {lower_first(icp)}: {lower_first(lead)}" if lead else None,
                said,
                f"For {lower_first(icp)}.",
            ],
            160,
        )

    def features(self, title: str) -> Block:
        # Only agents whose work the brief is about (agents.py), never padding: the goal
        # only steers ("through the form" is no sign of Beacon's form fills).
        taken = {a.name for a in self.company.agents if agent_sentence(a) in self.assigned.values()}
        chosen = agents_for(
            " ".join([self.brief.topic, self.brief.offer or "", *self.subject]),
            self.company.agents,
            taken=taken,
        )
        reserved = set(self.assigned.values())
        items = []
        for agent in chosen:
            text = agent_sentence(agent)
            if text in reserved:
                continue
            if self.screen.ok(agent.does) and not self.pool.is_used(text):
                self.pool.spend(text)
                items.append({"title": agent.name, "body": closed_sentence(agent.does)})
        lede = self.pool.take(self.words, sources=("offer",))
        if lede is None and items:  # it introduces "the agents below"
            lede = self.line(
                self.voice.features_lede if len(items) > 1 else self.voice.features_lede_one
            )
        block: Block = {"type": "features", "title": title, "items": items or self._fallback()}
        if lede:
            block["lede"] = lede
        return block

    def founders(self, title: str) -> Block:
        """ "About us": the founders, each with the first sentence of their bio."""
        items = []
        for founder in self.company.founders:
            said = next(iter(sentences(founder.bio)), "")
            if said and self.screen.ok(said) and not self.pool.is_used(said):
                items.append({"title": f"{founder.name}, {founder.title}", "body": said})
        if not items:
            return self.prose(title)
        return {"type": "features", "title": title, "items": items}

    def _fallback(self) -> list[dict[str, str]]:
        body = (
            self.pool.take({"named", "strategist"}, sources=("engagement",), relevant=True)
            or self.pool.take(self.words, sources=("engagement", "offer"))
            or self.company.tagline
        )
        return [{"title": "A named strategist", "body": body}]

    def steps(self, title: str) -> Block:
        # Work the brief times itself is not the program: of its steps, only the intro call the
        # button books (when nothing in it contradicts the brief's timeline).
        steps = [re.sub(r"\s*\([^)]*\)", "", text) for text in self.company.engagement_model.steps]
        raw = (
            [step for step in steps[:1] if not contradicts(step, self.timeline)]
            if self.timeline is not None
            else steps
        )
        scored = [(index, len(content_words(step) & self.words)) for index, step in enumerate(raw)]
        picked = {0} | {i for i, score in scored if score > 0} if raw else set()
        for index, _score in scored:
            if len(picked) >= 3:
                break
            picked.add(index)
        items = []
        for index in sorted(picked)[:5]:
            head, _, body = raw[index].partition(": ")
            head = head if self.screen.ok(head) else _without_numbers(head)
            kept = [s for s in sentences(body) if self.screen.ok(s) and not self.pool.is_used(s)]
            if head and kept:
                items.append({"title": upper_first(head), "body": upper_first(" ".join(kept))})
        if self.timeline is not None:
            items += self._offer_steps()
        return {"type": "steps", "title": title, "items": items or self._fallback()}

    def timeline_steps(self, title: str) -> Block:
        """ "Timeline": every step in time, each saying when, with the company's own timings
        (an intro call of 45 minutes, a two-week audit). A brief timing its own work gets the
        intro call, then its work over the time it states and what is left at the end; when
        the offer has no sentence left for that, the company's step or plan for the same work."""
        steps = self.company.engagement_model.steps
        own: list[dict[str, str]] = []
        if self.timeline is not None:
            own = self._offer_steps()
            steps = [
                step
                for index, step in enumerate(steps)
                if (index == 0 and not contradicts(step, self.timeline))
                or (not own and durations(step.partition(": ")[0]) == [self.timeline])
            ]
        items = []
        for step in steps:
            head, _, body = step.partition(": ")
            head = head if self.priced.ok(head) else _without_numbers(head)
            kept = [s for s in sentences(body) if self.priced.ok(s) and not self.pool.is_used(s)]
            if head and kept:
                items.append({"title": upper_first(head), "body": upper_first(" ".join(kept))})
        if self.timeline is not None and len(items) < 2 and not own:
            own = [
                {"title": self.voice.step_titles[0], "body": closed_sentence(plan.summary)}
                for plan in plans_lasting(self.company, self.timeline)[:1]
                if self.priced.ok(plan.summary)
                and not self.pool.is_used(closed_sentence(plan.summary))
            ]
        span = stated_span(self.brief.topic, self.brief.offer)
        for item in own:
            last = item["title"] == self.voice.step_titles[1]
            item["title"] = "At the end" if last else f"Over {span}" if span else item["title"]
            items.append(item)
        return {"type": "steps", "title": title, "items": items or self._fallback()}

    def _offer_steps(self) -> list[dict[str, str]]:
        """The offer's own work and what the client gets, as steps titled in the voice."""
        work_title, result_title = self.voice.step_titles
        steps: dict[str, str] = {}
        unspent = [s for s in self.offer if not self.pool.is_used(s)]
        reserved, self.offer_steps = self.offer_steps, []
        for text in [*reserved, *(s for s in unspent if _says_work(s))]:
            step = (
                result_title
                if re.match(r"(?i)you(?:'ll)? (?:get|keep|receive)\b", text)
                else work_title
            )
            if step not in steps:
                steps[step] = text if text in reserved else self.pool.spend(text)
        return [{"title": step, "body": body} for step, body in steps.items()]

    def results(self, title: str) -> list[Block]:
        """A heading with the proof's prose, then its numbers as stats."""
        body = [self.pool.spend(s) for s in self.plain if not self.pool.is_used(s)]
        if not body and self.quotes and not self.stats:
            body = [self.line(self.voice.quote_lede) or self.company.tagline]
        if not body:
            found = (
                None
                if self.stats
                else self.pool.take(
                    self.words | {"results", "report"}, sources=("engagement",), relevant=True
                )
            )
            # "Outcomes recorded in recent engagements." over no figures claims what the page
            # never shows: with none, the section says how results are reported instead.
            lede = self.voice.results_lede if self.stats else self.voice.results_none
            body = [found or self.line(lede) or self.company.tagline]
        blocks: list[Block] = [{"type": "richtext", "title": title, "markdown": " ".join(body)}]
        stats, self.stats = self.stats, []
        for start in range(0, len(stats), 4):
            items = [{"value": s.value, "label": s.label} for s in stats[start : start + 4]]
            blocks.append({"type": "stats", "items": items})
        return blocks

    def unplaced_proof(self) -> list[Block]:
        """The proof no requested section took: its own heading, stats and quotes."""
        blocks = (
            self.results(self.pick(self.voice.headings["results"]))
            if (self.stats or any(not self.pool.is_used(s) for s in self.plain))
            else []
        )
        return blocks + self.quote_blocks()

    def quote_blocks(self) -> list[Block]:
        quotes, self.quotes = self.quotes, []
        blocks = []
        for quote in quotes:
            block: Block = {"type": "quote", "quote": quote.quote, "who": quote.who}
            if quote.company:
                block["company"] = quote.company
            blocks.append(block)
        return blocks

    def _fit_answer(self) -> str:
        icp = self.brief.icp.strip()
        return self.voice.fit_answer.format(icp=sentence_case(icp), icp_lower=lower_first(icp))

    def faq(self, title: str) -> Block:
        voice = self.voice
        answers: dict[str, str | None] = {
            "fit": None if self.fit_said else self._fit_answer(),
            "scope": " ".join(self.pool.spend(s) for s in self.offer if not self.pool.is_used(s))[
                :600
            ]
            or None,
            "checks": self.pool.take(
                {"strategist", "signs", "agents", "produce"}, sources=("engagement",), relevant=True
            ),
            "term": self.pool.take({"minimum", "term"}, sources=("terms",), relevant=True),
            "stop": self.pool.take(
                {"cancel", "exit", "fees", "keep"}, sources=("terms",), relevant=True
            ),
            "after": self.line((voice.after_answer,)),
        }
        keys = [k for k in ("fit", "scope", "checks", "term", "stop", "after") if answers[k]]
        if not keys:  # a second FAQ after everything is said: the fit question again
            keys, answers["fit"] = ["fit"], self._fit_answer()
        items = [{"q": voice.questions[k], "a": answers[k] or ""} for k in keys[:5]]
        return {"type": "faq", "title": title, "items": items}

    def prose(self, title: str, *, sources: tuple[str, ...] | None = None) -> Block:
        wanted = (content_words(title) | self.words) - GENERIC_WORDS
        # Agents belong to a features section when the page has one; prose takes the rest.
        # An agent's work is a promise, so it is said only under a heading or for a brief
        # about it; the program's terms only under a terms heading ("Terms").
        order = sources or (
            ("offer", "engagement") if self.features_planned else ("offer", "agent", "engagement")
        )
        own = self.assigned.get(title)
        if own and not self.pool.is_used(own):
            first: str | None = self.pool.spend(own)
        else:
            # Else any offer or engagement sentence; a terms heading's own terms come first.
            first = self.pool.take(wanted, sources=order, relevant=True) or self.pool.take(
                wanted, sources=tuple(s for s in order if s in ("terms", "offer", "engagement"))
            )
        second = (
            self.pool.take(wanted, sources=order, relevant=True, min_shared=2) if first else None
        )
        body = [s for s in (first, second) if s]
        return {
            "type": "richtext",
            "title": title,
            "markdown": " ".join(body) or self.company.tagline,
        }

    def answer(self, title: str) -> list[Block]:
        """A free heading answered from material about it, or left out with a note.

        A heading that names a subject ("Security", "Integrations") is answered only by
        sentences about that subject (relevance.py's floor); one that only frames the brief
        ("The problem", "Why it matters") by sentences about the brief's own subject.
        """
        subject = subject_words(title)
        wanted = subject or (self.words - GENERIC_WORDS - FRAMING_WORDS)
        order = ("offer", "proof") + (
            ("engagement",) if self.features_planned else ("agent", "engagement")
        )
        own = self.assigned.get(title)
        if own and not self.pool.is_used(own):
            first: str | None = self.pool.spend(own)
        else:
            first = self.pool.take(wanted, sources=order, relevant=True)
        if first is None:
            what = f"about {title.lower()!r}" if subject else "about the brief's topic"
            return self._leave_out(
                title,
                f"nothing in the brief or the company's content that the page has not already "
                f"said is {what}",
                f"state in the offer what a buyer should know {what}",
            )
        second = self.pool.take(wanted, sources=order, relevant=True, min_shared=2)
        body = " ".join(_unlabelled(s, title) for s in (first, second) if s)
        return [{"type": "richtext", "title": title, "markdown": body}]

    def pricing(self, title: str) -> list[Block]:
        """The company's plans with their prices, or left out when they do not price the
        brief's own piece of work (scope.py)."""
        plans = None if self.timeline is None else plans_lasting(self.company, self.timeline)
        if plans == []:
            return self._leave_out(
                title,
                "the company's price list prices its program, not the piece of work this "
                "brief sells",
                "state the work's price in the offer",
            )
        cards = price_cards(self.company, ok=self.priced.ok, plans=plans)
        for card in cards:  # said once: a timeline step does not say a plan's summary again
            for said in sentences(card["body"]):
                self.pool.spend(said)
        if not cards:
            return self._leave_out(
                title, "no price in the company's content may be printed", "state a price"
            )
        block: Block = {"type": "features", "title": title, "items": cards}
        terms = price_terms(self.company, ok=self.priced.ok) if plans is None else []
        lede = [self.pool.spend(t) for t in terms if not self.pool.is_used(t)]
        if lede:
            block["lede"] = " ".join(lede)
        return [block]

    def not_for(self, title: str) -> list[Block]:
        """ "Who it is not for": only what the brief itself says about who it does not suit."""
        said = [s for s in self.offer if not_for(s) and not self.pool.is_used(s)]
        if not said:
            return self._leave_out(
                title,
                "neither the brief nor the company's content says who the offer does not suit",
                "add a sentence to the offer saying who it is not for",
            )
        return [
            {"type": "richtext", "title": title, "markdown": " ".join(map(self.pool.spend, said))}
        ]

    def _leave_out(self, title: str, why: str, add: str | None = None) -> list[Block]:
        index, name = self.asked.get(title, (None, title))
        if index is not None:
            self.left_out.append(leave_out_note(index, name, why=why, add=add))
        return []

    def form(self, title: str) -> Block:
        block: Block = {"type": "leadform", "title": title, "sub": self.pick(self.voice.cta_subs)}
        block["next"] = next_steps(self.brief.goal, voice=self.voice.name)
        return block

    def closing(self, title: str | None = None) -> Block:
        heading = title or self.pick(self.voice.cta_titles)
        goal = (self.brief.goal or "").lower()
        if _FORM_GOALS.search(goal):  # a write-up or a reply is asked for through the form
            return self.form(heading)
        return {
            "type": "cta",
            "title": heading,
            "sub": self.pick(self.voice.cta_subs),
            "ctaLabel": self.cta_label(),
            "ctaHref": self.cta_href(),
        }

    def cta_label(self) -> str:
        label = (self.brief.cta_label or "").strip()
        if label and self.screen.ok(label):
            return label
        goal = (self.brief.goal or "").lower()
        return next((text for cue, text in _CTA_BY_GOAL if cue.search(goal)), "Book an intro call")

    def cta_href(self) -> str:
        href = self.brief.cta_href
        if href and (
            href.startswith("https://") or (href.startswith("/") and not href.startswith("//"))
        ):
            return href
        return str(self.company.urls.book_call)


def _unlabelled(sentence: str, heading: str) -> str:
    """A sentence the brief labelled with the heading's words ("Security: we work in ...")
    without the label, which the heading above it already says."""
    label, colon, rest = sentence.partition(": ")
    if colon and rest and content_words(label) and content_words(label) <= content_words(heading):
        return upper_first(rest)
    return sentence


def _says_work(sentence: str) -> bool:
    """A sentence that can stand as a step's body: a clause, not a fragment ("One week.")."""
    return len(sentence.split()) >= 4


def _without_numbers(text: str) -> str:
    return " ".join(w for w in text.split() if not re.search(r"\d", w))
