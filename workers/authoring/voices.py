"""The three voices of the built-in writer: direct, warm and formal.

Each voice words the same plan differently: how the hero introduces the reader, the default
section headings, the closing request and what happens after the click. A brief's `tone` picks
one by its words; a tone the writer does not recognise gets the direct voice and a note that
says so (`tone_note`).
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.content.jobs import BriefNote


@dataclass(frozen=True)
class Voice:
    """The phrasings of one tone."""

    name: str
    cues: tuple[str, ...]
    sub_with_lead: tuple[str, ...]
    sub_alone: tuple[str, ...]
    headings: dict[str, tuple[str, ...]]
    features_lede: tuple[str, ...]
    features_lede_one: tuple[str, ...]  # for a single agent card
    results_lede: tuple[str, ...]
    cta_titles: tuple[str, ...]
    cta_subs: tuple[str, ...]
    questions: dict[str, str]
    fit_answer: str
    after_answer: str
    quote_lede: tuple[str, ...]
    # Steps for an offer that times its own work: the work, then what the client gets.
    step_titles: tuple[str, str]
    terms_title: str  # the pricing card holding the minimum term, notice and what is kept
    # The hero title when a variant of the page is written in this voice instead of the
    # brief's (`{topic}` as the brief names it).
    headline: str


DIRECT = Voice(
    name="direct",
    cues=("direct", "plain", "blunt", "concise", "no-nonsense", "straight", "crisp", "punchy"),
    sub_with_lead=("For {icp_lower}. {lead}", "For {icp_lower}: {lead_lower}"),
    sub_alone=(
        "For {icp_lower}: a strategist plans the work, agents do it, and the strategist checks "
        "every output before it ships.",
        "For {icp_lower}. A named strategist plans the work and checks every output.",
        "For {icp_lower}.",
    ),
    headings={
        "features": ("What you get", "What is included"),
        "steps": ("How it works", "How the work runs"),
        "faq": ("Questions", "Straight answers"),
        "results": ("Results", "What the work produced"),
    },
    features_lede=(
        "The agents below do the legwork; nothing they produce ships without sign-off.",
    ),
    features_lede_one=(
        "The agent below does the legwork; nothing it produces ships without sign-off.",
    ),
    results_lede=("What the work has produced so far.",),
    cta_titles=("Talk to a strategist this week", "Get a straight answer on fit"),
    cta_subs=(
        "A strategist reads your request first, then tells you plainly whether we are a fit. "
        "If we are not, we say so.",
    ),
    questions={
        "fit": "Who is this for?",
        "checks": "Who checks the work?",
        "term": "How long do we commit for?",
        "stop": "What if we stop?",
        "scope": "What exactly do we get?",
        "after": "What happens after I get in touch?",
    },
    fit_answer="It is for {icp_lower}. If that is not you, we will say so on the first call.",
    after_answer="A strategist replies with times to talk. On the call you look at your "
    "pipeline numbers together.",
    quote_lede=("In the words of the people we work with.", "What clients told us."),
    step_titles=("The work", "What you leave with"),
    terms_title="Terms",
    headline="{topic}. Planned by a strategist, run by agents",
)

WARM = Voice(
    name="warm",
    cues=("warm", "friendly", "casual", "conversational", "human", "approachable", "relaxed"),
    sub_with_lead=("Built for {icp_lower}. {lead}", "If you are one of the {icp_lower}: {lead}"),
    sub_alone=(
        "Built for {icp_lower}, with a named strategist who plans the work with you and "
        "reads everything before it goes out.",
        "Built for {icp_lower}, with a strategist who reads everything first.",
        "Built for {icp_lower}.",
    ),
    headings={
        "features": ("What we'll do together", "What you can expect"),
        "steps": ("How we'll work with you", "What working together looks like"),
        "faq": ("Questions you might have", "Things people ask us"),
        "results": ("What clients have seen", "How it has gone for others"),
    },
    features_lede=("Meet the agents who will do the legwork for you.",),
    features_lede_one=("Meet the agent who will do the legwork for you.",),
    results_lede=("Here is how the work has gone for teams like yours.",),
    cta_titles=("Let's see if this fits your team", "Tell us where your pipeline stands"),
    cta_subs=(
        "You'll hear back from a strategist, not a sales rep, with times to talk and what "
        "to bring.",
    ),
    questions={
        "fit": "Is this a good fit for my team?",
        "checks": "Who looks over what the agents write?",
        "term": "How long would we work together?",
        "stop": "What if we want to stop?",
        "scope": "What will you actually do for us?",
        "after": "What happens once I reach out?",
    },
    fit_answer="It is built for {icp_lower}. If you are somewhere else, we'll tell you honestly.",
    after_answer="A strategist gets back to you personally and suggests a few times to talk. "
    "Bring your pipeline numbers if you have them to hand.",
    quote_lede=("A few words from people we've worked with.", "Here's what clients have said."),
    step_titles=("We get to work", "What you take away"),
    terms_title="How the terms work",
    headline="{topic}, with a strategist beside you",
)

FORMAL = Voice(
    name="formal",
    cues=(
        "formal",
        "executive",
        "measured",
        "professional",
        "board",
        "authoritative",
        "serious",
        "analytical",
    ),
    sub_with_lead=("Prepared for {icp_lower}. {lead}", "Prepared for {icp_lower}: {lead_lower}"),
    sub_alone=(
        "Prepared for {icp_lower}: a programme planned with you and reviewed by a senior "
        "strategist at every step.",
        "Prepared for {icp_lower}, and reviewed by a senior strategist.",
        "Prepared for {icp_lower}.",
    ),
    headings={
        "features": ("Scope of the engagement", "What the engagement includes"),
        "steps": ("How the engagement runs", "Engagement structure"),
        "faq": ("Frequently asked questions", "Common questions"),
        "results": ("Evidence", "Recorded outcomes"),
    },
    features_lede=("The engagement draws on the following agents, each with a defined remit.",),
    features_lede_one=("The engagement draws on the following agent, with a defined remit.",),
    results_lede=("Outcomes recorded in recent engagements.",),
    cta_titles=("Arrange an introductory call", "Discuss your requirements with a strategist"),
    cta_subs=(
        "A senior strategist will review your request and propose a time to discuss your "
        "pipeline and whether the engagement suits you.",
    ),
    questions={
        "fit": "Which organisations is this suited to?",
        "checks": "How is the agents' work reviewed?",
        "term": "What is the minimum commitment?",
        "stop": "What happens if the engagement ends?",
        "scope": "What does the engagement include?",
        "after": "What follows an initial enquiry?",
    },
    fit_answer="It is designed for {icp_lower}. Where it is not suitable, we will say so at "
    "the outset.",
    after_answer="A strategist responds with proposed times for an introductory call, at which "
    "your current pipeline figures are reviewed together.",
    quote_lede=("Comments from clients.", "Client testimony."),
    step_titles=("Delivery", "Deliverables"),
    terms_title="Commercial terms",
    headline="{topic}: an engagement reviewed by a senior strategist",
)

VOICES = (DIRECT, WARM, FORMAL)


def voice_of(tone: str | None) -> Voice:
    """The voice a brief's tone asks for; direct when the tone names none of them."""
    return _named_voice(tone) or DIRECT


def next_voice(voice: Voice) -> Voice:
    """Another voice than `voice`, for a variant of a page written in another voice."""
    return VOICES[(VOICES.index(voice) + 1) % len(VOICES)]


def tone_note(tone: str | None) -> BriefNote | None:
    """The note for a tone that names none of the voices (none for no tone, or a known one)."""
    if tone is None or not tone.strip() or _named_voice(tone) is not None:
        return None
    names = ", ".join(voice.name for voice in VOICES)
    return BriefNote(
        field="tone",
        code="not_used",
        message=f"tone {tone.strip()!r} names none of the voices ({names}); "
        "written in the direct voice",
    )


def _named_voice(tone: str | None) -> Voice | None:
    lowered = (tone or "").lower()
    for voice in (FORMAL, WARM, DIRECT):
        if any(cue in lowered for cue in voice.cues):
            return voice
    return None
