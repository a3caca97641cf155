"""Numbers, phrases, goals and buttons kept whole by the built-in writer, and its notes.

A stat keeps its scale and its caption says what it measures without the number; a quote
loses the comma that led into its attribution; a title never ends inside a list or a clause;
`it` typed for the department is IT; the brief's button wins; a goal the page cannot serve is
noted, not replaced; the lead form says what follows for the goal; a heading nothing answers
is left out and the job's notes say so.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from gate.check import check_page
from renderers.page_html import render_page
from schemas.content.pages import SitePageInput
from schemas.errors import errors_of
from tests.conftest import CONTENT_KEY
from tests.renderers.test_page_html import _page, _site
from tests.workers.test_copy_quality import CATALOG, TERMS, compose, notes_of, visible
from workers.authoring.captions import caption
from workers.authoring.phrasing import fit_phrase, with_acronyms
from workers.authoring.proof import read_quote, read_stat
from workers.authoring.relevance import RELEVANCE_FLOOR, Ranker

BASE = {"slug": "kept-whole", "topic": "A CRM you can trust", "icp": "RevOps leads at SaaS firms"}


@pytest.mark.parametrize(
    ("fact", "value", "label"),
    [
        ("Merged 1.2 million CRM records", "1.2 million", "CRM records merged"),
        ("Processed 2.4 billion events", "2.4 billion", "Events processed"),
        ("Booked 41 meetings in 90 days", "41 meetings", "Meetings booked in 90 days"),
        ("Trial to paid rose from 8.1% to 11.4%", "11.4%", "Trial to paid, up from 8.1%"),
        (
            "Reply rates rose 24% after sequences were cut to three touches",
            "24%",
            "Rise in reply rates after sequences were cut to three touches",
        ),
        (
            "Found 18% of pipeline double-counted across 3 ad platforms",
            "18%",
            "Share of pipeline double-counted across 3 ad platforms",
        ),
        (
            "Cut forecast error from 31% to 9% for a 40-rep team",
            "9%",
            "Forecast error, down from 31% for a 40-rep team",
        ),
    ],
)
def test_a_stat_keeps_its_scale_and_its_caption_says_what_it_measures_without_it(
    fact: str, value: str, label: str
) -> None:
    """ "Merged 1.2 million CRM records" is 1.2 million over "CRM records merged", never "1.2"
    over the whole fact again."""
    stat = read_stat(fact)

    assert stat is not None
    assert (stat.value, stat.label) == (value, label)


@pytest.mark.spec("content.generate")
def test_a_fact_with_no_caption_of_that_shape_is_said_whole_in_prose() -> None:
    """ "Sourced $2.4M in pipeline ..." has no caption the writer can say without the figure:
    the page says the fact whole, and shows no "$2.4" of it."""
    fact = "Sourced $2.4M in pipeline from existing target accounts"

    brief, page = compose({**BASE, "proof": [fact]})

    said = " ".join(text for _field, text in visible(page))
    assert read_stat(fact) is None
    assert fact in said
    assert errors_of(check_page(page, brand=CATALOG.brand, brief=brief, published=TERMS)) == []


def test_a_caption_that_would_repeat_its_number_is_refused() -> None:
    """The caption of 1.2 million never says "1.2"."""
    fact = "Merged 1.2 million CRM records, 1.2 of them twice"

    assert caption(fact, start=7, end=18) is None


@pytest.mark.parametrize(
    "fact",
    [
        '"We finally trust the number we send the board," - Dana Ortiz, VP Sales at Fieldline',
        "'Our AEs walk in knowing who signs,' - Omar Haddad, CRO at Paylane",
    ],
)
def test_a_quote_loses_the_comma_that_led_into_its_attribution(fact: str) -> None:
    """ "words," - Name: the comma belongs to the sentence around the quote, not the quote."""
    quote = read_quote(fact)

    assert quote is not None
    assert not quote.quote.endswith(",")
    assert quote.quote[-1].isalpha()


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("Clean attribution for RevOps teams whose ad, web and CRM data disagree every month", 60),
        ("Attribution for RevOps teams whose ad, web analytics and CRM numbers never agree", 60),
    ],
)
def test_a_shortened_title_never_ends_inside_a_list_or_a_whose_clause(
    text: str, limit: int
) -> None:
    """Never "...for RevOps teams whose ad, web": no shorter phrase reads whole, so none."""
    assert fit_phrase(text, limit) is None


@pytest.mark.spec("content.generate")
def test_a_topic_that_cannot_be_shortened_whole_gives_a_title_written_from_the_brief() -> None:
    raw = {
        **BASE,
        "topic": "Clean attribution for RevOps teams whose ad, web and CRM data disagree every "
        "single month",
    }

    _brief, page = compose(raw)

    assert "whose ad, web" not in page["title"]
    assert not re.search(r",\s*\w+$", page["title"])


@pytest.mark.parametrize(
    ("typed", "printed"),
    [
        ("heads of it at b2b saas companies", "heads of IT at B2B SaaS companies"),
        ("crm hygiene for it teams", "CRM hygiene for IT teams"),
        ("make it work for your crm", "make it work for your CRM"),
    ],
)
def test_acronyms_typed_in_lower_case_keep_their_case_and_it_the_pronoun_stays(
    typed: str, printed: str
) -> None:
    assert with_acronyms(typed) == printed


@pytest.mark.spec("content.generate")
def test_the_briefs_button_wins_over_a_goal_the_page_cannot_serve() -> None:
    """A trial goal with the brief's own label and link: the page prints those, with no note."""
    raw = {
        **BASE,
        "goal": "Get a free trial signup",
        "cta_label": "Start your trial",
        "cta_href": "/trial",
    }

    brief, page = compose(raw)

    assert (page["cta_label"], page["cta_href"]) == ("Start your trial", "/trial")
    assert page["blocks"][0]["ctaHref"] == "/trial"
    assert "goal" not in {n.field for n in notes_of(brief, page)}


@pytest.mark.spec("content.generate")
def test_a_goal_the_page_cannot_serve_is_noted_and_no_other_goal_is_printed() -> None:
    """ "Get a free trial signup" never becomes "Book an intro call" to the booking page."""
    brief, page = compose({**BASE, "goal": "Get a free trial signup"})

    (note,) = [n for n in notes_of(brief, page) if n.field == "goal"]
    assert "cta_label" not in page
    assert "cta_href" not in page
    assert "ctaLabel" not in page["blocks"][0]
    assert not [b for b in page["blocks"] if b["type"] in ("cta", "leadform")]
    assert "free trial" in note.message
    assert "cta_href" in note.message


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    ("goal", "promise"),
    [
        ("Download the attribution playbook", "the write-up you asked for"),
        ("Get a reply through the form", "reply by email"),
    ],
)
def test_a_generated_lead_form_says_what_follows_for_the_goal(goal: str, promise: str) -> None:
    """The form's "What happens next" comes from the page, set from the goal, not a 45-minute
    intro call whatever the page offers."""
    _brief, page = compose({**BASE, "goal": goal})

    (form,) = [b for b in page["blocks"] if b["type"] == "leadform"]
    html = render_page(SitePageInput.model_validate(page), site=_site()).html
    assert any(promise in step for step in form["next"])
    assert promise in html
    assert "45-minute" not in html


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        ("Download the attribution playbook", "emails you the write-up you asked for"),
        ("Get a reply through the form", "replies by email"),
    ],
)
def test_the_steps_of_a_goal_answered_by_email_begin_with_that_answer_not_an_intro_call(
    goal: str, answer: str
) -> None:
    """A timeline or how-it-works section on a page whose form gets a reply or a write-up says
    that comes first; it never promises a 45-minute call the page does not offer."""
    _brief, page = compose({**BASE, "goal": goal, "sections": ["Timeline", "How it works"]})

    steps = [b for b in page["blocks"] if b["type"] == "steps"]
    assert [b["title"] for b in steps] == ["Timeline", "How it works"]
    assert all(answer in b["items"][0]["body"] for b in steps)
    assert not any("call" in text.lower() for _field, text in visible(page) if "45" in text)
    assert not any(re.search(r"(?i)intro call", text) for _field, text in visible(page))


@pytest.mark.spec("content.generate")
def test_the_steps_of_a_call_goal_begin_with_the_intro_call() -> None:
    """A page whose button books a call keeps the company's first step, the intro call."""
    _brief, page = compose({**BASE, "goal": "Book a call", "sections": ["Timeline"]})

    (steps,) = [b for b in page["blocks"] if b["type"] == "steps"]
    assert steps["items"][0]["title"] == "Intro call (45 minutes)"


@pytest.mark.spec("pages.render")
def test_a_lead_form_without_next_steps_shows_the_companys_own() -> None:
    """A page written by hand keeps the company's steps (a 45-minute intro call)."""
    html = render_page(_page(), site=_site()).html

    assert "45-minute intro call" in html


@pytest.mark.spec("content.generate")
def test_the_gate_accepts_the_companys_prices_only_as_its_published_terms() -> None:
    """A "Pricing" section states "$9,500 / month": the company's figure, not the brief's, so
    it passes as published, and is still an unsupported claim when nothing publishes it."""
    brief, page = compose({**BASE, "sections": ["Pricing"]})

    unpublished = errors_of(check_page(page, brand=CATALOG.brand, brief=brief))
    assert errors_of(check_page(page, brand=CATALOG.brand, brief=brief, published=TERMS)) == []
    assert {i.code for i in unpublished} == {"unsupported_claim"}
    assert any("$9,500" in i.message for i in unpublished)


def test_a_sentence_sharing_only_words_most_of_the_pool_uses_scores_under_the_floor() -> None:
    """BM25 over the writer's material: "pipeline" alone answers nothing; "security" does."""
    pool = [["pipeline", "weekly", "sprint", f"word{i}"] for i in range(12)]
    pool.append(["security", "read-only", "access", "pipeline"])

    scores = Ranker(pool).scores(["pipeline"])
    security = Ranker(pool).scores(["security"])

    assert max(scores) < RELEVANCE_FLOOR
    assert security[-1] >= RELEVANCE_FLOOR
    assert set(security[:-1]) == {0.0}


@pytest.mark.spec("content.generate")
def test_a_generate_answer_names_each_heading_left_out_and_what_to_add(
    client: FlaskClient,
) -> None:
    """Over HTTP: "Security" and "Integrations" nothing answers are not headings, and the
    answer's notes say which, why and what to add; "Pricing" states the prices."""
    body: dict[str, Any] = {
        **BASE,
        "sections": ["Pricing", "Security", "Integrations"],
        "goal": "Book a call",
    }

    response = client.post(
        "/api/public/content/pages/generate", json=body, headers={"x-api-key": CONTENT_KEY}
    )

    answer = response.get_json()
    assert response.status_code == 201
    titles = [b.get("title") for b in answer["page"]["blocks"]]
    notes = {n["field"]: n["message"] for n in answer["job"]["notes"]}
    assert "Pricing" in titles
    assert "Security" not in titles
    assert "Integrations" not in titles
    assert "section 'Security' left out" in notes["sections.1"]
    assert "to have it, state in the offer" in notes["sections.1"]
    assert "section 'Integrations' left out" in notes["sections.2"]
