"""The model adapters against loopback servers speaking each provider's wire format."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types
from google.oauth2.credentials import Credentials
from PIL import Image

from schemas.content.jobs import GenerationBrief
from tests.wire import providers
from tests.wire.server import Recorded, Responder, WireServer
from workers.authoring.anthropic_messages import AnthropicAuthor
from workers.authoring.base import Author, ModelError
from workers.authoring.gemini_vertex import GeminiAuthor
from workers.authoring.openai_chat import OpenAIChatAuthor
from workers.imaging.base import ImageModelError
from workers.imaging.imagen import ImagenImager

BRIEF = GenerationBrief(slug="wire-page", topic="A wire page", icp="RevOps leads")
CATALOG = providers.catalog()


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer(lambda request: providers.not_json(request)).start()
    yield server
    server.stop()


def openai_author(wire: WireServer) -> Author:
    client = openai.OpenAI(base_url=f"{wire.url}/v1", api_key="k", max_retries=0, timeout=10)
    return OpenAIChatAuthor(client, model="wire-model")


def anthropic_author(wire: WireServer) -> Author:
    client = anthropic.Anthropic(base_url=wire.url, api_key="k", max_retries=0, timeout=10)
    return AnthropicAuthor(client, model="wire-model")


def vertex_client(wire: WireServer) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-frontdoor",
        location="us-central1",
        credentials=Credentials(token="wire-token"),  # type: ignore[no-untyped-call]  # untyped
        http_options=types.HttpOptions(base_url=wire.url, retry_options=None),
    )


def gemini_author(wire: WireServer) -> Author:
    return GeminiAuthor(vertex_client(wire), model="gemini-wire")


ADAPTERS = {"openai": openai_author, "anthropic": anthropic_author, "gemini": gemini_author}
GOOD: dict[str, Responder] = {
    "openai": providers.openai_page(),
    "anthropic": providers.anthropic_page,
    "gemini": providers.gemini_page,
}
BAD: list[tuple[str, Responder]] = [
    ("openai", providers.openai_refusal),
    ("openai", providers.openai_malformed),
    ("openai", providers.openai_server_error),
    ("openai", providers.not_json),
    ("anthropic", providers.anthropic_refusal),
    ("anthropic", providers.anthropic_text_only),
    ("anthropic", providers.anthropic_overloaded),
    ("anthropic", providers.not_json),
    ("gemini", providers.gemini_blocked),
    ("gemini", providers.gemini_safety_stop),
    ("gemini", providers.gemini_malformed),
    ("gemini", providers.vertex_unavailable),
]


def write(author: Author, *, feedback: Any = None) -> dict[str, Any]:
    return author.write(BRIEF, brand=CATALOG.brand, company=CATALOG.company, feedback=feedback)


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("provider", sorted(ADAPTERS))
def test_each_adapter_returns_the_page_its_provider_answered(
    wire: WireServer, provider: str
) -> None:
    """Each adapter reads a well-formed structured answer into a page payload."""
    wire.default = GOOD[provider]

    page = write(ADAPTERS[provider](wire))

    assert page["slug"] == "wire-page"
    assert page["blocks"][0]["type"] == "hero"
    assert wire.calls == 1


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(("provider", "answer"), BAD, ids=[f"{p}-{a.__name__}" for p, a in BAD])
def test_refused_malformed_or_failed_answers_raise_a_model_error(
    wire: WireServer, provider: str, answer: Responder
) -> None:
    """A refusal, a malformed body or a provider error is a ModelError (502 over HTTP)."""
    wire.default = answer

    with pytest.raises(ModelError):
        write(ADAPTERS[provider](wire))


def test_openai_requests_carry_the_json_schema_of_the_block_registry(wire: WireServer) -> None:
    """OpenAI-compatible: chat completions with `response_format: json_schema`."""
    wire.default = GOOD["openai"]

    write(openai_author(wire))

    sent = wire.requests[0]
    assert sent.path == "/v1/chat/completions"
    schema = sent.body["response_format"]["json_schema"]["schema"]
    block_types = {
        b["properties"]["type"]["const"] for b in schema["properties"]["blocks"]["items"]["anyOf"]
    }
    assert block_types == {
        "hero",
        "logos",
        "stats",
        "features",
        "steps",
        "quote",
        "richtext",
        "faq",
        "leadform",
        "cta",
    }


def test_anthropic_requests_force_the_page_tool(wire: WireServer) -> None:
    """Anthropic Messages: one tool whose input schema is the page, chosen by tool_choice."""
    wire.default = GOOD["anthropic"]

    write(anthropic_author(wire))

    sent = wire.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body["tool_choice"] == {"type": "tool", "name": "site_page"}
    assert sent.body["tools"][0]["input_schema"]["properties"]["blocks"]


def test_gemini_requests_go_to_vertex_with_a_response_schema(wire: WireServer) -> None:
    """Vertex AI generateContent with `responseJsonSchema` and the bearer token."""
    wire.default = GOOD["gemini"]

    write(gemini_author(wire))

    sent = wire.requests[0]
    assert sent.path.endswith(
        "/projects/demo-frontdoor/locations/us-central1/publishers/google/models/gemini-wire:generateContent"
    )
    assert sent.headers["Authorization"] == "Bearer wire-token"
    assert sent.body["generationConfig"]["responseMimeType"] == "application/json"
    assert "blocks" in sent.body["generationConfig"]["responseJsonSchema"]["properties"]


def test_the_retry_prompt_names_the_gates_issues(wire: WireServer) -> None:
    """The second writer call carries the first draft's issues."""
    from schemas.errors import Issue

    wire.default = GOOD["openai"]

    write(
        openai_author(wire),
        feedback=[Issue(field="blocks.0.sub", code="icp_missing", message="name the ICP")],
    )

    assert "blocks.0.sub: icp_missing" in str(wire.requests[0].body)


def _png(request: Recorded) -> Any:
    buffer = io.BytesIO()
    Image.new("RGB", (1408, 768), "#b3471d").save(buffer, format="PNG")
    return providers.imagen_image(buffer.getvalue())(request)


def test_imagen_returns_the_generated_picture(wire: WireServer) -> None:
    """Imagen on Vertex AI `:predict`: the base64 image comes back as a picture."""
    wire.default = _png

    picture = ImagenImager(vertex_client(wire), model="imagen-wire").render(
        slug="wire-page", topic="wires", palette=dict(CATALOG.brand.palette)
    )

    assert picture.size == (1408, 768)
    assert wire.requests[0].path.endswith("/models/imagen-wire:predict")


@pytest.mark.parametrize("answer", [providers.imagen_filtered, providers.vertex_unavailable])
def test_imagen_filtered_or_failed_answers_raise_an_image_model_error(
    wire: WireServer, answer: Responder
) -> None:
    """A filtered or failed Imagen answer is an ImageModelError (the pipeline draws instead)."""
    wire.default = answer

    with pytest.raises(ImageModelError):
        ImagenImager(vertex_client(wire), model="imagen-wire").render(
            slug="wire-page", topic="wires", palette={}
        )


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("provider", sorted(ADAPTERS))
def test_settings_build_each_author_against_a_configured_base_url(
    wire: WireServer, provider: str, tmp_path: Any
) -> None:
    """AUTHOR_MODEL, AUTHOR_BASE_URL and AUTHOR_API_KEY choose and point the adapter."""
    from frontdoor.generation_wiring import build_author
    from frontdoor.settings import Settings

    wire.default = GOOD[provider]
    settings = Settings(
        data_dir=tmp_path,
        author_model=provider,
        author_base_url=wire.url + ("/v1" if provider == "openai" else ""),
        author_api_key="wire-test-key-0123456789",
    )

    page = write(build_author(settings))

    assert page["slug"] == "wire-page"
    sent = {name.lower(): value for name, value in wire.requests[0].headers.items()}
    assert "wire-test-key-0123456789" in " ".join(
        sent.get(h, "") for h in ("authorization", "x-api-key", "x-goog-api-key")
    )


@pytest.mark.spec("content.generate")
def test_a_refused_imagen_picture_falls_back_to_the_drawn_hero(
    wire: WireServer, tmp_path: Any
) -> None:
    """The image model is optional: when Imagen refuses, the job still gets a hero image."""
    from datetime import UTC, datetime, timedelta

    from backends.embedded.blobs import LocalBlobStore
    from backends.embedded.jobs import SqliteJobStore
    from backends.embedded.pages import SqlitePageStore
    from backends.embedded.sqlite import SqliteDatabase
    from backends.embedded.variants import SqliteVariantStore
    from gate.check import check_page, ruleset
    from tests.workers.generation_ports import queued_job
    from workers.authoring.template import TemplateWriter
    from workers.pipeline import GenerationPorts, run_generation

    wire.default = providers.imagen_filtered
    db = SqliteDatabase(tmp_path / "db.sqlite3")
    now = datetime(2026, 11, 22, tzinfo=UTC)
    ports = GenerationPorts(
        jobs=SqliteJobStore(db),
        pages=SqlitePageStore(db),
        variants=SqliteVariantStore(db),
        blobs=LocalBlobStore(tmp_path / "assets", base_url="http://testserver/assets"),
        author=TemplateWriter(),
        imager=ImagenImager(vertex_client(wire), model="imagen-wire"),
        brand=CATALOG.brand,
        company=CATALOG.company,
        gate=lambda payload, brief: check_page(payload, brand=CATALOG.brand, brief=brief),
        ruleset=ruleset(CATALOG.brand),
        clock=lambda: now,
    )
    ports.jobs.create_job(queued_job("img-job", BRIEF, now=now))

    done = run_generation("img-job", ports=ports, worker="w", lease=timedelta(seconds=60))

    assert wire.calls == 1
    assert done.status == "succeeded"
    assert done.hero_image_url is not None
    assert done.hero_image_url.endswith("-1200x630.png")
