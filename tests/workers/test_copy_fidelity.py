"""Pages that say only what the brief and the company's material support, read as a buyer would.

A card for an agent the brief is not about promises work the offer never did; an offer that
times its own work ("in one week") meets none of the program's timing (a two-week audit,
weekly sprints, a three-month term) anywhere on its page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from gate.check import check_page
from schemas.errors import errors_of
from tests.conftest import CONTENT_KEY
from tests.workers.briefs import BRIEFS, SWEEP_BRIEFS
from tests.workers.test_copy_quality import CATALOG, TERMS, compose, notes_of, visible
from workers.authoring.proof import read_quote
from workers.authoring.scope import contradicts, own_timeline, stated_timeline
from workers.authoring.sections import kind_of

SWEEP = {brief["slug"]: brief for brief in SWEEP_BRIEFS}
ALL = {brief["slug"]: brief for brief in BRIEFS}
PIPELINE_REVIEW = {**SWEEP["pipeline-review"], "publish": True}
PROGRAM_STEPS = {"Two-week audit", "Plan", "Weekly sprints", "Monthly review"}
PROGRAM_TIMING = re.compile(
    r"two-week|90-day|weekly|monthly|each week|each friday|minimum term|exit fees", re.I
)


def blocks_of(page: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [b for b in page["blocks"] if b["type"] == kind]


def card_titles(page: dict[str, Any]) -> list[str]:
    return [item["title"] for block in blocks_of(page, "features") for item in block["items"]]


@pytest.mark.spec("content.generate")
def test_what_you_get_shows_no_agent_whose_work_the_brief_is_not_about() -> None:
    """A pipeline review rebuilt from CRM data gets Ledger (CRM data), not Prism (experiment
    design) padded in beside it: a buyer would read "you get experiment design"."""
    _brief, page = compose(PIPELINE_REVIEW)

    assert card_titles(page) == ["Ledger"]
    (features,) = blocks_of(page, "features")
    assert "agents" not in features.get("lede", "")  # one card: "the agent", not "the agents"


@pytest.mark.spec("content.generate")
def test_a_heading_that_names_a_block_kind_matches_no_agent_by_its_words() -> None:
    """ "Results" or "What you get" says nothing about the subject: Prism, who "writes up the
    result", is no card on a page whose sections merely include "Results"."""
    _brief, page = compose(SWEEP["sweep-copy-review"])

    assert card_titles(page) == ["Quill"]


@pytest.mark.spec("content.generate")
def test_an_agent_matched_only_by_how_it_works_or_in_passing_is_left_out() -> None:
    """A signals page whose offer is Beacon's work gets Beacon: not Prism, who shares only the
    word "watches", nor Scout, who shares "target accounts" and nothing the offer sells."""
    _brief, page = compose(SWEEP["sweep-signals"])

    assert card_titles(page) == ["Beacon"]


@pytest.mark.spec("content.generate")
def test_the_goal_matches_no_agent() -> None:
    """ "Collect requests through the form" steers the page to a form; it is no sign the brief
    is about Beacon's form fills."""
    _brief, page = compose({**SWEEP["sweep-copy-review"], "goal": "Collect requests via the form"})

    assert "Beacon" not in card_titles(page)


@pytest.mark.spec("content.generate")
def test_the_buyers_sales_team_matches_no_agent() -> None:
    """ "Messaging that sales will actually use" is for a sales team, not about Beacon, who
    "alerts your sales team": no Beacon card."""
    _brief, page = compose(ALL["leadform-goal"])

    assert "Beacon" not in card_titles(page)


@pytest.mark.spec("content.generate")
def test_a_brief_no_agent_fits_gets_the_strategist_card_not_agents_picked_at_random() -> None:
    """Board reporting for CFOs names no agent's work: the card is the named strategist who
    signs off, and no lede introduces "the agents below"."""
    _brief, page = compose(SWEEP["sweep-nooffer-formal"])

    (features,) = blocks_of(page, "features")
    assert [item["title"] for item in features["items"]] == ["A named strategist"]
    assert "strategist" in features["items"][0]["body"]
    assert "agents" not in features.get("lede", "")


TIMED = [
    "pipeline-review",
    "sweep-pricing-audit",
    "sweep-workshop",
    "sweep-one-week-sprint",
    "sweep-question",
    "sweep-all-lower",
    "sweep-pilot",
]


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("slug", TIMED)
def test_an_offer_that_times_its_own_work_meets_none_of_the_programs_timing(slug: str) -> None:
    """ "In one week", "in 48 hours", "a two-day workshop": no step, FAQ or prose on the page
    speaks of a two-week audit, a 90-day plan, weekly sprints or the program's term."""
    _brief, page = compose(SWEEP[slug])

    steps = [item["title"] for block in blocks_of(page, "steps") for item in block["items"]]
    assert PROGRAM_STEPS.isdisjoint(steps)
    said = [(field, text) for field, text in visible(page) if PROGRAM_TIMING.search(text)]
    assert said == []
    assert errors_of(check_page(page, brand=CATALOG.brand, brief=_brief)) == []


@pytest.mark.spec("content.generate")
def test_the_offer_sentence_that_times_the_work_is_how_it_works() -> None:
    """The steps a buyer reads are the intro call the button books, then the offer's own work
    ("We rebuild your pipeline report from CRM data in one week."), said once on the page."""
    _brief, page = compose(PIPELINE_REVIEW)

    (steps,) = blocks_of(page, "steps")
    assert steps["items"][0]["title"] == "Intro call"
    assert steps["items"][1] == {
        "title": "We get to work",
        "body": "We rebuild your pipeline report from CRM data in one week.",
    }
    hero = page["blocks"][0]
    assert "You get stage conversion by rep" in hero["sub"]


@pytest.mark.spec("content.generate")
def test_a_pilot_shorter_than_the_minimum_term_is_the_intro_call_then_its_own_work() -> None:
    """A six-week pilot: the intro call, then "A six-week pilot on one segment." in the voice's
    own step title; the hero leads with what the client gets."""
    _brief, page = compose(SWEEP["sweep-pilot"])

    (steps,) = blocks_of(page, "steps")
    assert [item["title"] for item in steps["items"]] == ["Intro call", "The work"]
    assert steps["items"][1]["body"] == "A six-week pilot on one segment."


@pytest.mark.spec("content.generate")
def test_an_offer_as_long_as_the_programs_minimum_term_is_the_program() -> None:
    """ "A three-month program" is the program: its steps stay, with no extra step restating
    the offer, and the hero leads with the offer."""
    _brief, page = compose(SWEEP["sweep-program"])

    (steps,) = blocks_of(page, "steps")
    titles = [item["title"] for item in steps["items"]]
    assert set(titles) >= PROGRAM_STEPS
    assert "Delivery" not in titles
    assert page["blocks"][0]["sub"].endswith("A three-month program across two channels.")


@pytest.mark.spec("content.generate")
def test_a_prose_section_holding_the_top_agent_promotes_no_runner_up_to_a_card() -> None:
    """Account briefs: Scout writes up "Sample brief", so "What's inside" gets the strategist
    card, not Beacon (alerts), who matched the brief half as well as Scout."""
    _brief, page = compose(SWEEP["sweep-deliverables-only"])

    assert "Beacon" not in card_titles(page)
    assert "Scout" in prose_of(page)["Sample brief"]


@pytest.mark.spec("content.generate")
def test_an_offer_with_no_timeline_still_gets_the_programs_steps() -> None:
    """A program offer ("refreshed each month") keeps the two-week audit and the plan."""
    _brief, page = compose({**SWEEP["sweep-abm-formal"], "sections": []})

    steps = [item["title"] for block in blocks_of(page, "steps") for item in block["items"]]
    assert steps[0] == "Intro call"
    assert len(PROGRAM_STEPS & set(steps)) >= 2


@pytest.mark.spec("content.generate")
def test_the_pipeline_review_brief_posted_to_generate_is_published_without_padding(
    client: FlaskClient,
) -> None:
    """Through POST generate: 201, the page passes the gate, Ledger is the only card and how
    it works is the call and the one-week rebuild; the same brief again gives the same page."""
    headers = {"x-api-key": CONTENT_KEY}
    body = {**PIPELINE_REVIEW, "generate_image": False}

    first = client.post("/api/public/content/pages/generate", json=body, headers=headers)
    again = client.post("/api/public/content/pages/generate", json=body, headers=headers)

    assert first.status_code == 201, first.get_json()
    page = first.get_json()["page"]
    assert card_titles(page) == ["Ledger"]
    steps = [item["title"] for block in blocks_of(page, "steps") for item in block["items"]]
    assert steps == ["Intro call", "We get to work"]
    assert again.get_json()["page"]["blocks"] == page["blocks"]


@pytest.mark.parametrize(
    ("texts", "days"),
    [
        (("A pipeline review", "We rebuild your report in one week."), 7),
        (("Pricing page audit in 48 hours", None), 2),
        (("A two-day experiment design workshop", None), 2),
        (("Alerts your reps within one hour", None), None),
        (("A one-page brief on every account, refreshed each month", None), None),
        (("Two rewritten landing pages a month", None), None),
    ],
)
def test_the_timeline_a_brief_states_is_its_longest_stretch_of_a_day_or_more(
    texts: tuple[str | None, ...], days: float | None
) -> None:
    """A response time ("within one hour") or a rate ("a month") is no timeline."""
    assert stated_timeline(*texts) == days


@pytest.mark.parametrize(
    ("text", "timeline", "expected"),
    [
        ("Two-week audit: we review tracking", 7, True),
        ("Weekly sprints: agents do the research", 7, True),
        ("Weekly sprints: agents do the research", 10, True),
        ("Weekly sprints: agents do the research", 42, False),
        ("Intro call: we look at your pipeline numbers together", 2, False),
        ("Weekly sprints: agents do the research", None, False),
    ],
)
def test_company_material_contradicts_a_timeline_it_outlasts_or_outpaces(
    text: str, timeline: float | None, expected: bool
) -> None:
    """Longer work than the brief's, or a rhythm it would repeat fewer than three times."""
    assert contradicts(text, timeline) is expected


def prose_of(page: dict[str, Any]) -> dict[str, str]:
    return {b["title"]: b["markdown"] for b in blocks_of(page, "richtext")}


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    ("slug", "heading", "stranger"),
    [
        ("sweep-workshop", "Agenda", "Quill"),
        ("sweep-abm-formal", "What we deliver", "Beacon"),
        ("sweep-odd-sections", "Meet the team", "Relay"),
    ],
)
def test_no_section_promises_an_agents_work_the_brief_is_not_about(
    slug: str, heading: str, stranger: str
) -> None:
    """An experiment workshop's "Agenda" is not Quill drafting ad copy; account research's "What
    we deliver" is not Beacon's alerts; a landing-page team is not Relay's outbound."""
    _brief, page = compose(SWEEP[slug])

    said = " ".join(text for _field, text in visible(page))
    assert stranger not in said


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    ("slug", "heading"),
    [("sweep-odd-sections", "Sound familiar?"), ("revops-table", "The problem")],
)
def test_the_programs_exit_terms_are_said_only_under_a_terms_heading(
    slug: str, heading: str
) -> None:
    """ "Sound familiar?" or "The problem" never answers "No exit fees"; "Pricing" may."""
    _brief, page = compose(ALL[slug])

    assert "exit fees" not in prose_of(page).get(heading, "")


@pytest.mark.parametrize(
    ("name", "kind"),
    [("Meet the team", "features"), ("What we deliver", "features"), ("Our team", "features")],
)
def test_a_team_or_delivery_heading_is_a_features_section(name: str, kind: str) -> None:
    """The agents and the strategist are the team a buyer meets: cards, not padded prose."""
    assert kind_of(name) == kind


@pytest.mark.parametrize(
    ("topic", "offer", "days"),
    [
        ("A pipeline review", "We rebuild your report in one week.", 7),
        ("A six-week outbound pilot", None, 42),
        ("A growth program", "A three-month program across two channels.", None),
        ("A 90-day plan for your first growth hire", None, None),
        ("Outbound help", None, None),
    ],
)
def test_a_brief_times_its_own_work_only_below_the_programs_minimum_term(
    topic: str, offer: str | None, days: float | None
) -> None:
    """Three months or a 90-day plan is the program (minimum term "3 months"); six weeks is not."""
    assert own_timeline(topic, offer, minimum_term="3 months, after a paid two-week audit") == days


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("tone", ["direct", "warm", "formal"])
def test_a_results_heading_with_no_proof_is_left_out_and_the_note_asks_for_proof(
    tone: str,
) -> None:
    """ "The numbers" with no `proof` has no result to show: saying how results are reported
    would not answer it, so the section is left out and a note asks for the proof."""
    raw = {
        "slug": "no-proof-numbers",
        "topic": "Board-ready pipeline reporting",
        "icp": "CFOs at venture-backed software companies",
        "sections": ["How we report", "The numbers"],
        "tone": tone,
    }

    brief, page = compose(raw)

    assert "The numbers" not in prose_of(page)
    assert blocks_of(page, "stats") == []
    (note,) = [n for n in notes_of(brief, page) if n.field == "sections.1"]
    assert note.code == "not_used"
    assert "'The numbers' left out" in note.message
    assert "proof" in note.message


@pytest.mark.spec("content.generate")
def test_a_who_its_for_section_names_the_icp_and_the_faq_does_not_ask_again() -> None:
    """ "Who it's for" says who the page is for (not the strategist's sign-off), and the FAQ
    below leaves out its own "Who is this for?"."""
    raw = {
        "slug": "fit",
        "topic": "Attribution after a rebrand",
        "icp": "marketing ops managers",
        "sections": ["Who it's for", "FAQ"],
    }

    _brief, page = compose(raw)

    assert prose_of(page)["Who it's for"].startswith("It is for marketing ops managers.")
    (faq,) = blocks_of(page, "faq")
    assert "Who is this for?" not in [item["q"] for item in faq["items"]]


@pytest.mark.spec("content.generate")
def test_acronyms_typed_in_lower_case_are_printed_as_spelled() -> None:
    """The brief's "cleaner crm data", "revops leads at series b saas", section "faq" and offer
    "you get a clean crm" read "Cleaner CRM data", "RevOps leads at series b SaaS", "FAQ" and
    "You get a clean CRM"."""
    _brief, page = compose(SWEEP["sweep-all-lower"])

    hero = page["blocks"][0]
    assert hero["title"] == "Cleaner CRM data before board season"
    assert "RevOps leads at series b SaaS" in hero["sub"]
    assert "FAQ" in [b.get("title") for b in page["blocks"]]
    said = " ".join(text for _field, text in visible(page))
    assert "You get a clean CRM in two weeks." in said
    assert " crm " not in said
    assert errors_of(check_page(page, brand=CATALOG.brand, brief=_brief)) == []


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("slug", list(ALL))
def test_a_section_with_nothing_of_its_own_does_not_repeat_the_footers_tagline(slug: str) -> None:
    """ "Guarantee", on a brief with no offer, takes how the company works from its description;
    the tagline every page's footer prints is not said again above it, on any corpus page."""
    _brief, page = compose(ALL[slug])

    assert CATALOG.company.tagline not in [text for _field, text in visible(page)]


@pytest.mark.spec("content.generate")
def test_a_multiple_reached_from_another_is_a_stat_the_gate_accepts_on_the_first_draft() -> None:
    """ "Pipeline coverage rose from 2.1x to 3.4x" shows "3.4x", not "3.4" (which the gate
    refuses, so the retry dropped the stats and the fact went unused)."""
    brief, page = compose(SWEEP["sweep-ten-sections"])

    values = [item["value"] for block in blocks_of(page, "stats") for item in block["items"]]
    assert values == ["3.4x"]
    assert errors_of(check_page(page, brand=CATALOG.brand, brief=brief, published=TERMS)) == []


@pytest.mark.spec("content.generate")
def test_a_figure_inside_a_proof_decimal_backs_no_figure_of_its_own() -> None:
    """The "3" of "3.4x" does not let the page say "The minimum term is 3 months" anywhere
    but under "Pricing", which states the company's own published prices and terms."""
    _brief, page = compose(SWEEP["sweep-ten-sections"])

    (pricing,) = [b for b in blocks_of(page, "features") if b["title"] == "Pricing"]
    said = " ".join(
        text
        for field, text in visible(page)
        if field.split(".")[:2] != ["blocks", str(page["blocks"].index(pricing))]
    )
    assert "3 months" not in said
    assert "exit fees" in pricing["items"][-1]["body"]


@pytest.mark.spec("content.generate")
def test_a_pricing_section_shows_the_prices_first_and_the_terms_as_its_last_card() -> None:
    """A buyer reads the prices first: the minimum term and notice are the last card, not fine
    print above the plans."""
    _brief, page = compose(SWEEP["sweep-ten-sections"])

    (pricing,) = [b for b in blocks_of(page, "features") if b["title"] == "Pricing"]
    *plans, terms = pricing["items"]
    assert "lede" not in pricing
    assert plans
    assert all("$" in plan["title"] for plan in plans)
    assert terms["title"] in ("Terms", "How the terms work", "Commercial terms")  # by voice
    assert "minimum term is 3 months" in terms["body"]


@pytest.mark.spec("content.generate")
def test_about_us_introduces_the_founders_from_the_companys_material() -> None:
    """ "About us" is the founders, each with the first sentence of their bio, not the tagline
    the footer prints or a sentence about weekly reports."""
    _brief, page = compose(SWEEP["sweep-ten-sections"])

    (about,) = [b for b in page["blocks"] if b.get("title") == "About us"]
    assert about["type"] == "features"
    assert [item["title"] for item in about["items"]] == [
        f"{f.name}, {f.title}" for f in CATALOG.company.founders
    ]


@pytest.mark.spec("content.generate")
def test_a_board_pack_offer_matches_no_agent_on_a_word_like_have() -> None:
    """ "A board pack you do not have to build" shares only "have" with Quill and "build" with
    Relay: the card is the strategist's."""
    _brief, page = compose(SWEEP["sweep-deliverables-list"])

    assert card_titles(page) == ["A named strategist"]


@pytest.mark.parametrize(
    ("fact", "quote", "who", "company"),
    [
        (
            "'Fastest review cycle we've had' - Jo, Ledgerly",
            "Fastest review cycle we've had",
            "Jo",
            "Ledgerly",
        ),
        (
            "\u201cLegal approved the page.\u201d \u2014 Sam Cole, Head of Marketing, Paybright",
            "Legal approved the page.",
            "Sam Cole, Head of Marketing",
            "Paybright",
        ),
        (
            '"We trust the number" - Dana Ortiz, VP Sales at Fieldline',
            "We trust the number",
            "Dana Ortiz, VP Sales",
            "Fieldline",
        ),
    ],
)
def test_a_quote_in_single_quotes_or_with_a_comma_before_the_company_is_attributed(
    fact: str, quote: str, who: str, company: str
) -> None:
    """A quote block, not raw prose; "Head of Marketing" is Sam's role, not his company."""
    read = read_quote(fact)

    assert read is not None
    assert (read.quote, read.who, read.company) == (quote, who, company)
