"""AnthropicAuthor: the Messages API, with one forced tool whose input is the page."""

from __future__ import annotations

from typing import Any

import anthropic

from schemas.catalog import Brand
from schemas.content.jobs import GenerationBrief
from schemas.errors import Issue
from schemas.public import Company
from workers.authoring.base import ModelError, PagePayload
from workers.authoring.prompt import (
    SCHEMA_NAME,
    ensure_object,
    page_schema,
    system_prompt,
    user_prompt,
)

PROVIDER = "anthropic"
MAX_TOKENS = 8192


class AnthropicAuthor:
    """Author on `POST {base}/v1/messages` with `tool_choice` forcing the page tool."""

    def __init__(self, client: anthropic.Anthropic, *, model: str, angle: int = 0) -> None:
        self._client = client
        self._model = model
        self._angle = angle  # a variant's angle (prompt.ANGLE_ASKS); 0 is the page itself

    def at_angle(self, angle: int) -> AnthropicAuthor:
        """The same model asked for a variant of the page from `angle`."""
        return AnthropicAuthor(self._client, model=self._model, angle=angle)

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> PagePayload:
        """A page payload from the tool call's input. Raises: ModelError."""
        tool: Any = {
            "name": SCHEMA_NAME,
            "description": "Submit the landing page.",
            "input_schema": page_schema(),
        }
        try:
            message = self._client.messages.create(
                model=self._model,
                max_tokens=MAX_TOKENS,
                system=system_prompt(brand=brand, company=company),
                messages=[
                    {"role": "user", "content": user_prompt(brief, feedback, angle=self._angle)}
                ],
                tools=[tool],
                tool_choice={"type": "tool", "name": SCHEMA_NAME},
            )
        except anthropic.AnthropicError as err:
            raise ModelError(PROVIDER, type(err).__name__) from err
        stop = getattr(message, "stop_reason", None)
        if stop == "refusal":
            raise ModelError(PROVIDER, "the model refused")
        if stop == "max_tokens":
            raise ModelError(PROVIDER, "answer was cut off")
        for block in getattr(message, "content", None) or []:
            if getattr(block, "type", None) == "tool_use" and block.name == SCHEMA_NAME:
                return ensure_object(block.input, provider=PROVIDER)
        raise ModelError(PROVIDER, "answer has no page tool call")
