"""Pages a copywriter would sign, over 22 varied briefs written by the built-in writer.

No text ends mid-phrase or in an ellipsis, no sentence appears twice, the goal is never printed,
every proof fact is used, every requested section is a heading in order, no clause is empty,
no number is stated that the proof does not give, and `notes[]` names what was left out.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from gate.check import check_page
from gate.context import quote_key
from gate.text import text_fields
from schemas.content.jobs import GenerationBrief
from schemas.errors import errors_of
from tests.workers.briefs import BRIEFS
from workers.authoring.library import library_of
from workers.authoring.notes import brief_notes
from workers.authoring.phrasing import lower_first, sentence_case, sentences
from workers.authoring.pricing import company_terms
from workers.authoring.proof import read_quote, read_stat
from workers.authoring.sections import kind_of
from workers.authoring.template import TemplateWriter

CATALOG = load_catalog(Settings().content_dir)
TERMS = company_terms(CATALOG.company)
# The writer as the service builds it: drawing also on the company's research, blog and careers.
WRITER = TemplateWriter(library=library_of(CATALOG))
META = {"title", "description", "cta_label"}
# Words a clipped text ends on; a whole sentence (ending . ! ?) may end on "on" or "be".
DANGLING = frozenset(
    str.split(
        "a an the and or but of to for with from into than as your our their its which who "
        "when while if because that this these at by in"
    )
)
_FIGURE = re.compile(r"(?<![A-Za-z])\d+(?:[.,]\d+)*")  # B2B is a word, not a figure
_EMPTY_CLAUSE = re.compile(r"[:;,]\s*[.,;:!?]|\(\s*\)|:\s*$|\s[,.;:]")


def compose(raw: dict[str, Any]) -> tuple[GenerationBrief, dict[str, Any]]:
    brief = GenerationBrief.model_validate(raw)
    page = WRITER.write(brief, brand=CATALOG.brand, company=CATALOG.company, feedback=None)
    return brief, page


def copy(page: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f, t) for f, t in text_fields(page) if not f.endswith("imageAlt")]


def visible(page: dict[str, Any]) -> list[tuple[str, str]]:
    """Copy a visitor reads as prose (buttons repeat by design: the hero's and the closing's)."""
    return [(f, t) for f, t in copy(page) if f not in META and not f.endswith("ctaLabel")]


def notes_of(brief: GenerationBrief, page: dict[str, Any]) -> list[Any]:
    """The notes a generate answer carries: the page's, with the writer's own replacing them."""
    own = WRITER.brief_notes(brief, brand=CATALOG.brand, company=CATALOG.company)
    noted = brief_notes(brief, page, brand=CATALOG.brand)
    return [n for n in noted if n.field not in {o.field for o in own}] + own


def page_key(page: dict[str, Any]) -> str:
    return " | ".join(quote_key(t) for _f, t in copy(page))


IDS = [b["slug"] for b in BRIEFS]


def test_the_corpus_has_at_least_twenty_varied_briefs() -> None:
    """Must show: at least 20 briefs, with and without proof, sections and tone."""
    assert len(BRIEFS) >= 20
    assert any(b.get("proof") for b in BRIEFS)
    assert any(not b.get("proof") for b in BRIEFS)
    assert any(b.get("sections") for b in BRIEFS)
    assert any(not b.get("sections") for b in BRIEFS)
    assert len({b.get("tone") for b in BRIEFS}) >= 6


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_every_text_ends_at_a_phrase_boundary_and_no_clause_is_empty(raw: dict[str, Any]) -> None:
    """Never clipped: no ellipsis, no dangling last word, no empty clause ("For X: ."); a
    section name printed as the brief gave it ("Who it's for") is the partner's own words."""
    brief, page = compose(raw)
    headings = {sentence_case(name.strip()) for name in brief.sections}

    for field, text in copy(page):
        if field.endswith(".title") and text in headings:
            continue
        assert text.strip(), field
        assert "\u2026" not in text, (field, text)
        assert "..." not in text, (field, text)
        last = re.findall(r"[a-z0-9%$']+", text.lower())
        if not text.rstrip().endswith((".", "!", "?")):
            assert not last or last[-1] not in DANGLING, (field, text)
        assert not text.rstrip().endswith((",", ":", ";", "-")), (field, text)
        assert not _EMPTY_CLAUSE.search(text), (field, text)


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_no_sentence_appears_twice_on_a_page(raw: dict[str, Any]) -> None:
    """Every visible sentence is said once."""
    _brief, page = compose(raw)

    said = Counter(quote_key(s) for _f, text in visible(page) for s in sentences(text))

    assert [s for s, n in said.items() if n > 1] == []


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_the_goal_steers_but_is_never_printed(raw: dict[str, Any]) -> None:
    """`goal` is an instruction to the writer, not copy (a button the writer labels from its own
    set, "Book a working session", may match a goal worded the same)."""
    brief, page = compose(raw)
    said = " | ".join(
        quote_key(t) for f, t in copy(page) if not f.endswith(("cta_label", "ctaLabel"))
    )

    if brief.goal:
        assert quote_key(brief.goal) not in said


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_every_proof_fact_is_used_once_where_it_fits(raw: dict[str, Any]) -> None:
    """Quotes as attributed quote blocks; numbers as stats with the whole fact, else prose."""
    brief, page = compose(raw)
    blocks = page["blocks"]
    quotes = [b for b in blocks if b["type"] == "quote"]
    labels = [i["label"] for b in blocks if b["type"] == "stats" for i in b["items"]]
    text = page_key(page)

    stats = [i for b in blocks if b["type"] == "stats" for i in b["items"]]

    for fact in brief.proof:
        quote = read_quote(fact)
        stat = read_stat(fact)
        if quote is not None:
            assert [q for q in quotes if q["quote"] == quote.quote and q["who"]], fact
        elif stat is not None:  # its figure shown large over what the figure measures
            assert {"value": stat.value, "label": stat.label} in stats, fact
            assert stat.value in fact, fact
        else:
            assert quote_key(fact.rstrip(".")) in text, fact
            assert text.count(quote_key(fact.rstrip("."))) == 1 or fact in labels, fact


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_each_requested_section_is_a_heading_in_order(raw: dict[str, Any]) -> None:
    """`sections`: each appears as a block title, in the brief's order, with a body (a name typed
    in lower case starts with its capital: "why it matters" is "Why it matters", "faq" "FAQ"),
    unless nothing answers it: then it is left out and a note names it."""
    brief, page = compose(raw)
    titles = [b.get("title", "").lower() for b in page["blocks"]]
    left_out = {
        brief.sections[int(n.field.split(".")[1])].strip().lower()
        for n in notes_of(brief, page)
        if n.field.startswith("sections.") and "left out" in n.message
    }
    wanted = list(dict.fromkeys(s.strip().lower() for s in brief.sections))
    wanted = [s for i, s in enumerate(wanted) if s.lower() not in map(str.lower, wanted[:i])]
    wanted = [s for s in wanted if s not in left_out]

    positions = [titles.index(name) for name in wanted]

    assert positions == sorted(positions)
    assert all(page["blocks"][p]["title"][:1].isupper() for p in positions)
    for position in positions:
        block = page["blocks"][position]
        assert any(block.get(k) for k in ("markdown", "items", "sub", "lede")) or (
            block["type"] == "logos"
        )


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_no_number_is_stated_that_the_proof_does_not_give(raw: dict[str, Any]) -> None:
    """Every figure on the page, however small, comes from `proof` (or the ICP, named as given);
    under a pricing heading, the company's own published prices and terms too."""
    brief, page = compose(raw)
    allowed = set(_FIGURE.findall(" ".join([*brief.proof, brief.icp])))
    priced = allowed | set(_FIGURE.findall(" ".join(TERMS)))
    pricing = {
        f"blocks.{i}"
        for i, b in enumerate(page["blocks"])
        if kind_of(b.get("title") or "") == "pricing"
        or re.search(r"(?i)\b(?:timeline|schedule|when|timing)\b", b.get("title") or "")
    }

    stated = {
        n
        for f, text in copy(page)
        if ".".join(f.split(".")[:2]) not in pricing
        for n in _FIGURE.findall(text)
    }
    stated_priced = {
        n
        for f, text in copy(page)
        if ".".join(f.split(".")[:2]) in pricing
        for n in _FIGURE.findall(text)
    }

    assert stated <= allowed
    assert stated_priced <= priced


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_the_page_passes_the_gate_on_the_first_draft(raw: dict[str, Any]) -> None:
    """The composer screens its copy against the same rules the gate applies."""
    brief, page = compose(raw)

    assert errors_of(check_page(page, brand=CATALOG.brand, brief=brief, published=TERMS)) == []


@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_notes_name_every_brief_element_left_out(raw: dict[str, Any]) -> None:
    """Nothing disappears silently: each missing offer sentence, topic, section or CTA is noted."""
    brief, page = compose(raw)
    noted = {n.field for n in brief_notes(brief, page, brand=CATALOG.brand)}
    text = page_key(page)
    titles = {str(b.get("title", "")).lower() for b in page["blocks"]}

    if quote_key(brief.topic) not in text:
        assert "topic" in noted
    if any(quote_key(s) not in text for s in sentences(brief.offer)):
        assert "offer" in noted
    for index, name in enumerate(brief.sections):
        if name.strip().lower() not in titles or brief.sections.index(name) != index:
            assert f"sections.{index}" in noted
    if brief.cta_label and page["cta_label"] != brief.cta_label:
        assert "cta_label" in noted
    if brief.cta_href and page["cta_href"] != brief.cta_href:
        assert "cta_href" in noted


def test_the_same_brief_gives_the_same_page() -> None:
    """Seeded by the brief."""
    assert compose(BRIEFS[2])[1] == compose(BRIEFS[2])[1]


def test_three_tones_read_differently() -> None:
    """Direct, warm and formal briefs word the same plan differently."""
    base = {"slug": "tone", "topic": "Attribution your CFO can check", "icp": "RevOps leads"}
    pages = [compose({**base, "tone": tone})[1] for tone in ("direct", "warm", "formal")]

    for part in ("sub",):
        assert len({p["blocks"][0][part] for p in pages}) == 3
    headings = [tuple(b.get("title") for b in p["blocks"][1:]) for p in pages]
    assert len(set(headings)) == 3
    closings = [p["blocks"][-1]["sub"] for p in pages]
    assert len(set(closings)) == 3


def test_different_briefs_get_different_steps_faqs_and_features() -> None:
    """Steps, FAQs and features come from the brief, not a fixed set."""
    pages = [compose(raw)[1] for raw in BRIEFS if not raw.get("sections")]

    def items(page: dict[str, Any], kind: str) -> tuple[str, ...]:
        return tuple(
            i.get("title") or i.get("q")
            for b in page["blocks"]
            if b["type"] == kind
            for i in b["items"]
        )

    for kind in ("features", "steps", "faq"):
        assert len({items(p, kind) for p in pages}) >= 3, kind


def test_a_topic_naming_b2b_is_printed_not_dropped_as_an_unbacked_figure() -> None:
    """A digit inside a word ("B2B") is no figure: the topic is used and no note drops it."""
    raw = {
        "slug": "pricing-audit",
        "topic": "A pricing page audit for B2B SaaS teams",
        "icp": "heads of growth at B2B SaaS companies",
        "goal": "Get a reply to schedule a call",
        "proof": ["Raised demo requests by 24% for Fieldline"],
    }

    brief, page = compose(raw)

    notes = brief_notes(brief, page, brand=CATALOG.brand)
    assert "topic" not in {n.field for n in notes}
    assert any("pricing page audit" in t.lower() for _f, t in copy(page))


# Every place a sentence starts, in lower case or not (the test's own judge, not the writer's
# splitter).
_SENTENCE_STARTS = re.compile(r"(?<=[.!?])\s+")


def _typed_in_lower_case(raw: dict[str, Any]) -> dict[str, Any]:
    """The brief as an agent or a hurried person types it: every text, and every sentence of
    the offer, starting in lower case ("... and copy. you get ...")."""
    lowered = {k: lower_first(v) for k, v in raw.items() if k in ("topic", "icp")}
    if raw.get("offer"):
        said = _SENTENCE_STARTS.split(raw["offer"])
        lowered["offer"] = " ".join(lower_first(sentence) for sentence in said)
    return {**raw, **lowered, "slug": raw["slug"] + "-lower"}


LOWER_CASE_BRIEFS = [
    *[_typed_in_lower_case(raw) for raw in BRIEFS if raw.get("offer") or raw.get("sections")][:8],
    {
        "slug": "deliverability-lower",
        "topic": "cold email deliverability",
        "icp": "marketing managers",
        "goal": "request a demo",
        "offer": "pages",
        "tone": "friendly",
    },
    {
        "slug": "landing-lower",
        "topic": "landing pages that convert",
        "icp": "founders of seed-stage B2B startups",
        "offer": "we check your domains and copy. you get a fix list in 48 hours.",
    },
    {
        "slug": "fix-list-lower",
        "topic": "landing pages that convert",
        "icp": "founders of seed-stage B2B startups",
        "offer": "we check your domains and copy. you get a written fix list. you keep it.",
    },
]


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    "raw", BRIEFS + LOWER_CASE_BRIEFS, ids=IDS + [b["slug"] for b in LOWER_CASE_BRIEFS]
)
def test_every_heading_and_sentence_a_visitor_reads_starts_with_a_capital(
    raw: dict[str, Any],
) -> None:
    """A brief typed in lower case still gives "Cold email deliverability" as the title and
    "Marketing managers. If that is not you..." in the answers, never a sentence in lower case."""
    _brief, page = compose(raw)

    texts = [*visible(page), ("title", page["title"]), ("description", page.get("description"))]
    starts = [
        (field, sentence)
        for field, text in texts
        if text
        for sentence in _SENTENCE_STARTS.split(text)
        if sentence[:1].islower()
    ]
    assert starts == []


AGENT_NAMES = [agent.name for agent in CATALOG.company.agents]


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("raw", BRIEFS, ids=IDS)
def test_an_agent_named_on_the_page_is_introduced_on_it(raw: dict[str, Any]) -> None:
    """A buyer who reads "Ledger and your strategist review tracking" must find who Ledger is
    on the same page (a features card titled with the name, or a sentence saying what it does);
    else the step says "one of our agents"."""
    _brief, page = compose(raw)

    introduced = {
        item["title"]
        for block in page["blocks"]
        if block["type"] == "features"
        for item in block["items"]
    } | {
        name
        for block in page["blocks"]
        if block["type"] == "richtext"
        for name in AGENT_NAMES
        if re.search(rf"(^|\. ){name} [a-z]", block["markdown"])
    }
    named = {
        name
        for _field, text in visible(page)
        for name in AGENT_NAMES
        if re.search(rf"\b{name}\b", text)
    }
    assert named <= introduced


@pytest.mark.spec("content.generate")
def test_each_sentence_of_an_offer_typed_in_lower_case_is_printed_whole_with_its_capital() -> None:
    """An offer typed as "... and copy. you get a written fix list." is two sentences a buyer
    reads, each with its capital, not one sentence with "you" in lower case after a stop."""
    brief = LOWER_CASE_BRIEFS[-1]

    _brief, page = compose(brief)

    said = {
        sentence.rstrip(".")
        for _f, text in visible(page)
        for sentence in _SENTENCE_STARTS.split(text)
    }
    assert "We check your domains and copy" in said
    assert "You get a written fix list" in said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we check your copy. you get a list!", ["We check your copy.", "You get a list!"]),
        ("ready? we start monday.", ["Ready?", "We start monday."]),
        (
            "Ads, e.g. search and social, vs. organic. we report weekly.",
            ["Ads, e.g. search and social, vs. organic.", "We report weekly."],
        ),
        (
            "Pages for the U.S. market, etc. and more.",
            ["Pages for the U.S. market, etc. and more."],
        ),
    ],
)
def test_the_writer_splits_sentences_at_every_full_stop_but_not_after_an_abbreviation(
    text: str, expected: list[str]
) -> None:
    """A sentence may start in lower case as typed; "e.g.", "vs.", "etc." or "U.S." end none."""
    assert sentences(text) == expected


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    "raw", BRIEFS + LOWER_CASE_BRIEFS, ids=IDS + [b["slug"] for b in LOWER_CASE_BRIEFS]
)
def test_no_sentence_a_visitor_reads_is_a_single_word(raw: dict[str, Any]) -> None:
    """An offer of one word ("pages") is no sentence a buyer can read: never "For marketing
    managers. Pages." in the hero or the description; a note says it was left out and why."""
    brief, page = compose(raw)

    prose = [(f, t) for f, t in visible(page) if not f.endswith(("title", ".q"))]
    texts = [*prose, ("description", page.get("description"))]
    one_word = [
        (field, sentence)
        for field, text in texts
        if text
        for sentence in _SENTENCE_STARTS.split(text)
        if re.fullmatch(r"[\w'-]+[.!?]", sentence)
    ]
    assert one_word == []
    if raw.get("offer") == "pages":
        (note,) = [n for n in brief_notes(brief, page, brand=CATALOG.brand) if n.field == "offer"]
        assert note.code == "dropped"
        assert "one word" in note.message


@pytest.mark.spec("content.generate")
def test_a_title_written_for_the_icp_keeps_the_icp_in_lower_case_mid_sentence() -> None:
    """A topic the writer cannot print gives "Growth work for sales leaders at Series C SaaS
    companies", not "... for Sales leaders ..."."""
    raw = next(b for b in BRIEFS if b["slug"] == "long-proof")

    _brief, page = compose(raw)

    assert page["blocks"][0]["title"] == "Growth work for sales leaders at Series C SaaS companies"


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("tone", ["direct", "warm", "formal"])
def test_the_question_about_stopping_asks_what_its_answer_says(tone: str) -> None:
    """With the notice period left out (a figure the proof does not give), the answer is "No
    exit fees; you keep ...": the question asks what happens, not how to stop."""
    raw = {"slug": "stop", "topic": "Growth work", "icp": "Marketing leaders", "tone": tone}

    _brief, page = compose(raw)

    (faq,) = [b for b in page["blocks"] if b["type"] == "faq"]
    (stop,) = [item for item in faq["items"] if "exit fees" in item["a"]]
    assert not stop["q"].startswith("How")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A one-page brief per account.", "a one-page brief per account."),
        ("I think so.", "I think so."),
        ("CRM data.", "CRM data."),
        ("Weekly reports.", "weekly reports."),
    ],
)
def test_a_sentence_carried_mid_sentence_loses_its_capital_unless_it_opens_with_a_name(
    text: str, expected: str
) -> None:
    """ "For enterprise AEs: a one-page brief ...", not "...: A one-page brief"."""
    assert lower_first(text) == expected
