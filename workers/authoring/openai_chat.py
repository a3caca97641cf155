"""OpenAIChatAuthor: any OpenAI-compatible server, chat completions with a JSON schema."""

from __future__ import annotations

import openai

from schemas.catalog import Brand
from schemas.content.jobs import GenerationBrief
from schemas.errors import Issue
from schemas.public import Company
from workers.authoring.base import ModelError, PagePayload
from workers.authoring.prompt import (
    SCHEMA_NAME,
    page_schema,
    parse_page,
    system_prompt,
    user_prompt,
)

PROVIDER = "openai"


class OpenAIChatAuthor:
    """Author on `POST {base}/chat/completions` with `response_format: json_schema`."""

    def __init__(self, client: openai.OpenAI, *, model: str, angle: int = 0) -> None:
        self._client = client
        self._model = model
        self._angle = angle  # a variant's angle (prompt.ANGLE_ASKS); 0 is the page itself

    def at_angle(self, angle: int) -> OpenAIChatAuthor:
        """The same model asked for a variant of the page from `angle`."""
        return OpenAIChatAuthor(self._client, model=self._model, angle=angle)

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> PagePayload:
        """A page payload from the model. Raises: ModelError."""
        try:
            completion = self._client.chat.completions.create(
                model=self._model,
                messages=[
                    {"role": "system", "content": system_prompt(brand=brand, company=company)},
                    {"role": "user", "content": user_prompt(brief, feedback, angle=self._angle)},
                ],
                response_format={
                    "type": "json_schema",
                    # strict mode refuses length limits and optional fields; the gate checks them
                    "json_schema": {"name": SCHEMA_NAME, "schema": page_schema(), "strict": False},
                },
            )
        except openai.OpenAIError as err:
            raise ModelError(PROVIDER, type(err).__name__) from err
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ModelError(PROVIDER, "answer has no choices")
        message = choices[0].message
        if getattr(message, "refusal", None):
            raise ModelError(PROVIDER, "the model refused")
        if choices[0].finish_reason == "length":
            raise ModelError(PROVIDER, "answer was cut off")
        return parse_page(message.content, provider=PROVIDER)
