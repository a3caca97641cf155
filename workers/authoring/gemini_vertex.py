"""GeminiAuthor: Gemini on Vertex AI through google-genai, with a response JSON schema."""

from __future__ import annotations

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from schemas.catalog import Brand
from schemas.content.jobs import GenerationBrief
from schemas.errors import Issue
from schemas.public import Company
from workers.authoring.base import ModelError, PagePayload
from workers.authoring.prompt import page_schema, parse_page, system_prompt, user_prompt

PROVIDER = "gemini"
_BLOCKED = frozenset({"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION"})


class GeminiAuthor:
    """Author on Vertex AI `models/{model}:generateContent` with `responseJsonSchema`."""

    def __init__(self, client: genai.Client, *, model: str, angle: int = 0) -> None:
        self._client = client
        self._model = model
        self._angle = angle  # a variant's angle (prompt.ANGLE_ASKS); 0 is the page itself

    def at_angle(self, angle: int) -> GeminiAuthor:
        """The same model asked for a variant of the page from `angle`."""
        return GeminiAuthor(self._client, model=self._model, angle=angle)

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> PagePayload:
        """A page payload from the model's JSON text. Raises: ModelError."""
        config = types.GenerateContentConfig(
            system_instruction=system_prompt(brand=brand, company=company),
            response_mime_type="application/json",
            response_json_schema=page_schema(),
        )
        try:
            response = self._client.models.generate_content(
                model=self._model,
                contents=user_prompt(brief, feedback, angle=self._angle),
                config=config,
            )
        except genai_errors.APIError as err:
            raise ModelError(PROVIDER, f"{type(err).__name__} {err.code}") from err
        except ValueError as err:  # google-genai raises it for bodies it cannot read
            raise ModelError(PROVIDER, "unreadable answer") from err
        feedback_block = response.prompt_feedback
        if feedback_block is not None and feedback_block.block_reason is not None:
            raise ModelError(PROVIDER, "the model refused")
        candidates = response.candidates or []
        if not candidates:
            raise ModelError(PROVIDER, "answer has no candidates")
        reason = candidates[0].finish_reason
        if reason is not None and str(reason.value) in _BLOCKED:
            raise ModelError(PROVIDER, "the model refused")
        if reason is not None and reason.value == "MAX_TOKENS":
            raise ModelError(PROVIDER, "answer was cut off")
        return parse_page(response.text, provider=PROVIDER)
