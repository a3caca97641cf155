"""Answers in each provider's documented wire format: good pages, refusals, malformed bodies.

OpenAI chat completions, Anthropic Messages (tool use), Vertex AI generateContent (Gemini)
and Vertex AI predict (Imagen). `brief_of` reads the brief back out of our prompt so a
default answer can be a page written for whatever brief the worker sent.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from typing import Any

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from schemas.catalog import Catalog
from schemas.content.jobs import GenerationBrief
from tests.wire.server import Answer, Recorded, Responder
from workers.authoring.template import TemplateWriter

_MARK = "Write the page for this brief:\n"


@cache
def catalog() -> Catalog:
    return load_catalog(Settings().content_dir)


def brief_of(request: Recorded) -> GenerationBrief:
    """The brief inside the user prompt of any provider's request."""
    text = json.dumps(request.body)
    decoded = json.loads(text)
    prompt = _find_prompt(decoded)
    data, _end = json.JSONDecoder().raw_decode(prompt.split(_MARK, 1)[1])
    return GenerationBrief.model_validate(data)


def _find_prompt(node: Any) -> str:
    if isinstance(node, str) and _MARK in node:
        return node
    if isinstance(node, dict):
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            found = _find_prompt(item)
            if found:
                return found
    return ""


def good_page(request: Recorded) -> dict[str, Any]:
    """A page that passes the gate, written for the request's brief."""
    cat = catalog()
    return TemplateWriter().write(
        brief_of(request), brand=cat.brand, company=cat.company, feedback=None
    )


def off_icp_page(request: Recorded) -> dict[str, Any]:
    """A page whose hero names nobody: the gate answers `icp_missing`."""
    page = good_page(request)
    page["blocks"][0]["sub"] = "Pages that help."
    return page


# --- OpenAI-compatible chat completions -------------------------------------------------


def openai_content(
    content: str | None, *, refusal: str | None = None, finish: str = "stop"
) -> Answer:
    return Answer(
        body={
            "id": "chatcmpl-wire",
            "object": "chat.completion",
            "created": 1_763_800_000,
            "model": "wire-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                    "logprobs": None,
                    "finish_reason": finish,
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
    )


def openai_page(make: Any = good_page) -> Responder:
    return lambda request: openai_content(json.dumps(make(request)))


def openai_refusal(request: Recorded) -> Answer:
    return openai_content(None, refusal="I can't help with that request.")


def openai_malformed(request: Recorded) -> Answer:
    return openai_content("Sure! Here is your page: {blocks: [")


def openai_server_error(request: Recorded) -> Answer:
    return Answer(
        status=500,
        body={
            "error": {"message": "The server had an error", "type": "server_error", "code": None}
        },
    )


def not_json(request: Recorded) -> Answer:
    return Answer(body=b"<html>bad gateway</html>", headers={"Content-Type": "text/html"})


# --- Anthropic Messages -----------------------------------------------------------------


def anthropic_message(content: list[dict[str, Any]], *, stop: str) -> Answer:
    return Answer(
        body={
            "id": "msg_wire",
            "type": "message",
            "role": "assistant",
            "model": "wire-model",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
    )


def anthropic_page(request: Recorded) -> Answer:
    tool = {
        "type": "tool_use",
        "id": "toolu_wire",
        "name": "site_page",
        "input": good_page(request),
    }
    return anthropic_message([tool], stop="tool_use")


def anthropic_refusal(request: Recorded) -> Answer:
    return anthropic_message([{"type": "text", "text": "I can't write that."}], stop="refusal")


def anthropic_text_only(request: Recorded) -> Answer:
    return anthropic_message([{"type": "text", "text": "Here is a page"}], stop="end_turn")


def anthropic_overloaded(request: Recorded) -> Answer:
    return Answer(
        status=529,
        body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    )


# --- Vertex AI: Gemini generateContent and Imagen predict -------------------------------


def gemini_text(text: str, *, finish: str = "STOP") -> Answer:
    return Answer(
        body={
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 10,
                "totalTokenCount": 20,
            },
            "modelVersion": "wire-model",
        }
    )


def gemini_page(request: Recorded) -> Answer:
    return gemini_text(json.dumps(good_page(request)))


def gemini_blocked(request: Recorded) -> Answer:
    return Answer(
        body={"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {}}
    )


def gemini_safety_stop(request: Recorded) -> Answer:
    return Answer(body={"candidates": [{"finishReason": "SAFETY", "safetyRatings": []}]})


def gemini_malformed(request: Recorded) -> Answer:
    return gemini_text('{"title": "unterminated')


def vertex_unavailable(request: Recorded) -> Answer:
    return Answer(
        status=503,
        body={
            "error": {
                "code": 503,
                "message": "The service is unavailable.",
                "status": "UNAVAILABLE",
            }
        },
    )


def imagen_image(png: bytes) -> Responder:
    encoded = base64.b64encode(png).decode()
    return lambda request: Answer(
        body={"predictions": [{"bytesBase64Encoded": encoded, "mimeType": "image/png"}]}
    )


def imagen_filtered(request: Recorded) -> Answer:
    return Answer(body={"predictions": [{"raiFilteredReason": "Filtered by safety policy"}]})


# --- recorded answers (tests/wire/recorded/) ---------------------------------------------


def page_answer(provider: str, page: dict[str, Any]) -> Responder:
    """A recorded page as `provider` sends it: chat content, a tool call or JSON text."""
    if provider == "openai":
        return lambda request: openai_content(json.dumps(page))
    if provider == "anthropic":
        tool = {"type": "tool_use", "id": "toolu_wire", "name": "site_page", "input": page}
        return lambda request: anthropic_message([tool], stop="tool_use")
    return lambda request: gemini_text(json.dumps(page))
