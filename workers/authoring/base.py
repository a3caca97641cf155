"""The authoring port: one method from a brief (and the gate's feedback) to a page payload."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from schemas.errors import Issue
from schemas.public import Company

PagePayload = dict[str, Any]


class ModelError(Exception):
    """The authoring or image model failed: unreachable, refused, or answered malformed.

    The job fails with `model_failed` (502, retryable): the partner may send the brief again.
    """

    def __init__(self, provider: str, reason: str) -> None:
        super().__init__(f"{provider}: {reason}")
        self.provider = provider
        self.reason = reason


class Author(Protocol):
    """Writes one landing page payload (SitePageInput shape) for a brief."""

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> PagePayload:
        """A page payload; `feedback` holds the gate's issues with the previous draft.

        Raises: ModelError.
        """


@runtime_checkable
class NotingAuthor(Protocol):
    """An author with notes of its own on a brief: what it read its own way (the built-in
    writer's `tone` when it names none of its voices), a section it left out because nothing
    answers it, a goal it cannot serve. A model reads the brief as it is written, so the model
    adapters have none."""

    def brief_notes(
        self, brief: GenerationBrief, *, brand: Brand, company: Company
    ) -> list[BriefNote]:
        """The notes to add to the page's (workers/authoring/notes.py); one on a field the
        page's notes also name replaces theirs, since the writer knows why."""


@runtime_checkable
class AngledAuthor(Protocol):
    """An author that can write another version of a page from another angle (desk.py: 1
    another headline, 2 another proof first, 3 another voice), for a brief's `variants`."""

    def at_angle(self, angle: int) -> Author:
        """The same author writing from `angle` (0: the page as it always was)."""
