"""Which of the company's agents a brief is about: the only ones a page may show as cards.

A card promises the agent's work, so an agent the brief is not about is never padded in. The
match is on meaning words shared by the brief's topic, offer and free section names and the
agent's description, less words that say how or for whom an agent works ("watches", "each",
"your sales team"). The agent the brief is most about leads; another joins only when the brief
is about its work at least half as much. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from schemas.public import Agent
from workers.authoring.phrasing import (
    closed_sentence,
    content_words,
    lower_first,
    sentence_case,
    sentences,
)

# Words that say how or how often an agent works ("watches", "each", "every", "checks"), or for
# whom ("your sales team"), not what it works on.
GENERIC_WORDS = frozenset(
    str.split(
        "watche watch build write keep mark flag schedule team route every each check against "
        "inside right start source need sale have will does make more what them they"
    )
)
MAX_CARDS = 3


def agents_for(
    subject: str, agents: Sequence[Agent], *, taken: Collection[str] = ()
) -> list[Agent]:
    """The agents `subject` is about, best first; those named in `taken` (another section
    has them) are left out, but still set the bar the others must reach."""
    wanted = content_words(subject) - GENERIC_WORDS
    ranked = sorted(
        ((len(content_words(a.does) & wanted), index, a) for index, a in enumerate(agents)),
        key=lambda row: (-row[0], row[1]),
    )
    best = ranked[0][0] if ranked else 0
    return [
        agent
        for score, _index, agent in ranked
        if score > 0 and score * 2 >= best and agent.name not in taken
    ][:MAX_CARDS]


def agent_sentence(agent: Agent) -> str:
    """The agent introduced in one sentence: "Ledger reconciles ... ."."""
    return closed_sentence(f"{agent.name} {lower_first(agent.does)}")


def name_strangers(blocks: list[dict[str, Any]], agents: Sequence[Agent]) -> None:
    """An agent the page names but never introduces (the company's steps say "Ledger and
    your strategist review...") becomes "one of our agents": a buyer meets no name the
    page has not explained. Introduced: a features card's title, or a prose sentence that
    opens with the name and says what the agent does. Changes `blocks` in place."""
    introduced = {i["title"] for b in blocks if b["type"] == "features" for i in b["items"]}
    for block in blocks:
        if block["type"] == "richtext":
            introduced |= {
                a.name
                for a in agents
                if re.search(rf"(^|[.!?] ){re.escape(a.name)} [a-z]", block["markdown"])
            }
    strangers = [a.name for a in agents if a.name not in introduced]
    if not strangers:
        return
    named = re.compile(r"\b(" + "|".join(re.escape(n) for n in strangers) + r")\b")
    for block in blocks:
        items = block.get("items") if block["type"] in ("steps", "faq") else None
        for item in items or []:
            for key in ("body", "a"):
                if isinstance(item.get(key), str) and named.search(item[key]):
                    item[key] = " ".join(
                        sentence_case(named.sub("one of our agents", text))
                        for text in sentences(item[key])
                    )
