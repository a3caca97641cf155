"""The evidence behind a roll-up's stage and reasons: a small record of one event, kept in the
roll-up as events are folded (never looked up at read time).

Pure. A record holds the event's id, type, when it happened, its page path and the person's own
words when the event has them (a Slack request's text, a form's message), cut to WORDS_LIMIT
characters with control characters removed. Escaping for Slack is the Slack renderer's
(services/slack_messages.py); here the words stay as the person wrote them.
"""

import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from schemas.signals.events import Event, EventType

# The properties that hold what a person wrote, first found first: a Slack request's `text`, a
# form's `message`, and the names CRMs and form tools commonly give the same thing.
WORDS_PROPERTIES = ("text", "message", "comment", "question", "request", "notes")
WORDS_LIMIT = 280
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")

# As kept in a roll-up: id, type, at (occurred_at), rec (recorded_at, to break ties), path, words
EvidenceRecord = dict[str, Any]


def person_words(properties: dict[str, Any]) -> str | None:
    """What the person wrote, from the first words property that holds text, cut to
    WORDS_LIMIT characters (between words where it can) with control characters as spaces."""
    for name in WORDS_PROPERTIES:
        value = properties.get(name)
        if isinstance(value, str) and value.strip():
            return cut_words(" ".join(_CONTROL.sub(" ", value).split()), WORDS_LIMIT)
    return None


def cut_words(text: str, limit: int) -> str:
    """`text` at most `limit` characters, cut between words where it can, `…` marking a cut."""
    if len(text) <= limit:
        return text
    room = text[: limit - 1]
    space = room.rfind(" ")
    return (room[:space] if space > limit // 2 else room).rstrip() + "…"


def evidence_of(event: Event) -> EvidenceRecord:
    """The record a roll-up keeps of one event."""
    return {
        "id": event.id,
        "type": event.type,
        "at": event.occurred_at.isoformat(),
        "rec": event.recorded_at.isoformat(),
        "path": event.page.path,
        "words": person_words(event.properties) if event.properties else None,
    }


class Evidence(BaseModel):
    """One event behind a stage or a reason."""

    model_config = ConfigDict(defer_build=True)

    id: str = Field(examples=["slack:1731"])
    type: EventType
    occurred_at: datetime = Field(description="When it happened")
    page: str | None = Field(description="The page's path, if the event had one")
    words: str | None = Field(
        description="The person's own words (a Slack request's text, a form's message), at most"
        f" {WORDS_LIMIT} characters; null when the event has none"
    )


class Reason(BaseModel):
    """A reason with the events behind it."""

    model_config = ConfigDict(defer_build=True)

    reason: str = Field(examples=["hand raiser since 3 hours ago"])
    events: list[Evidence] = Field(description="The event(s) behind it; [] for a page or a count")


def evidence_view(record: EvidenceRecord | None) -> Evidence | None:
    """The API view of a kept record (None: none kept, as for roll-ups stored before)."""
    if not record:
        return None
    return Evidence(
        id=record["id"],
        type=record["type"],
        occurred_at=datetime.fromisoformat(record["at"]),
        page=record.get("path"),
        words=record.get("words"),
    )


def describe(evidence: Evidence, *, words_limit: int = 120) -> str:
    """The event in words: `slack request on /community: "what does it cost?"`."""
    text = evidence.type.replace("_", " ")
    if evidence.page:
        text += f" on {evidence.page}"
    if evidence.words:
        text += f': "{cut_words(evidence.words, words_limit)}"'
    return text
