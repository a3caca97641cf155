"""Recorded model answers replayed through each adapter, its wire server, the pipeline and the gate.

tests/wire/recorded/ holds answers written as a capable model answers our real prompt: clean
pages (which must publish on the first writer call: no gate error, though a promise with every,
never, all or always may carry a warning; with a negated banned word, scare quotes and a proof
quote whose punctuation changed), and pages with the faults models commonly make, each with the
corrected page the retry returns. tests/wire/held_out/ holds a third of the corpus that was
kept aside while the gate's rules were tuned on the rest (tests/wire/corpus_scores.py reports
precision and recall on each folder); both run here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from backends.embedded.sqlite import SqliteDatabase
from gate.brand_rules import brand_rules
from schemas.content.jobs import GenerationBrief, JobRecord
from schemas.errors import Issue
from tests.wire import providers
from tests.wire.server import WireServer
from tests.wire.test_model_adapters import ADAPTERS, vertex_client
from tests.workers.generation_ports import CATALOG, embedded_ports, queued_job
from workers.authoring.anthropic_messages import AnthropicAuthor
from workers.authoring.base import Author
from workers.authoring.gemini_vertex import GeminiAuthor
from workers.authoring.openai_chat import OpenAIChatAuthor
from workers.pipeline import run_generation

RECORDED = Path(__file__).parent / "recorded"
HELD_OUT = Path(__file__).parent / "held_out"
CASES = {
    path.stem: json.loads(path.read_text())
    for folder in (RECORDED, HELD_OUT)
    for path in sorted(folder.glob("*.json"))
}
CLEAN = sorted(name for name in CASES if name.startswith("clean-"))
FAULTY = sorted(name for name in CASES if name.startswith("fault-"))


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer(lambda request: providers.not_json(request)).start()
    yield server
    server.stop()


def author_on(provider: str, wire: WireServer) -> tuple[Author, Any]:
    """The provider's adapter on the wire server, and its SDK client (closed after the run)."""
    if provider == "openai":
        chat = openai.OpenAI(base_url=f"{wire.url}/v1", api_key="k", max_retries=0, timeout=10)
        return OpenAIChatAuthor(chat, model="wire-model"), chat
    if provider == "anthropic":
        messages = anthropic.Anthropic(base_url=wire.url, api_key="k", max_retries=0, timeout=10)
        return AnthropicAuthor(messages, model="wire-model"), messages
    vertex = vertex_client(wire)
    return GeminiAuthor(vertex, model="gemini-wire"), vertex


def replay(case: dict[str, Any], provider: str, wire: WireServer, tmp_path: Path) -> JobRecord:
    wire.answer_next(*(providers.page_answer(provider, page) for page in case["answers"]))
    author, client = author_on(provider, wire)
    ports = embedded_ports(SqliteDatabase(tmp_path / "db.sqlite3"), tmp_path, author=author)
    brief = GenerationBrief.model_validate(case["brief"])
    ports.jobs.create_job(queued_job("recorded", brief))
    try:
        return run_generation("recorded", ports=ports, worker="w", lease=timedelta(seconds=60))
    finally:
        client.close()


def test_the_corpus_covers_clean_answers_and_every_common_fault() -> None:
    """Invented stat, inflated claim and caption, invented quote, banned word, no ICP, negated
    ICP, long title, a dropped scale, an http link, and a promise the gate only warns about."""
    faults = {
        (code, severity) for name in FAULTY for _field, code, severity in CASES[name]["faults"]
    }
    held_out = [path.stem for path in HELD_OUT.glob("*.json")]

    assert len(CLEAN) >= 20
    assert len(FAULTY) >= 12
    assert len(held_out) * 3 >= len(CASES)
    assert {
        "fault-invented-statistic",
        "fault-inflated-claim",
        "fault-inflated-stat-caption",
        "fault-invented-customer-quote",
        "fault-banned-word",
        "fault-hero-sub-without-icp",
        "fault-negated-icp",
        "fault-title-over-limit",
        "fault-stat-drops-scale",
    } <= set(FAULTY)
    assert faults == {
        ("unsupported_claim", "error"),
        ("off_brand", "error"),
        ("icp_missing", "error"),
        ("too_long", "error"),
        ("unsafe_url", "error"),
        ("universal_promise", "warning"),
    }


def findings(issues: list[Issue] | None) -> list[list[str]]:
    return [[i.field, i.code, i.severity] for i in issues or []]


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("provider", sorted(ADAPTERS))
@pytest.mark.parametrize("name", CLEAN)
def test_a_clean_recorded_answer_publishes_on_the_first_writer_call(
    name: str, provider: str, wire: WireServer, tmp_path: Path
) -> None:
    """No gate false positive: a clean answer passes as it is, with one writer call; its
    promises may be warned about, and the job carries those warnings."""
    job = replay(CASES[name], provider, wire, tmp_path)

    assert job.status == "succeeded"
    assert job.writer_calls == 1
    assert wire.calls == 1
    assert [f for f in findings(job.drafts[0].issues) if f[2] == "error"] == []
    assert job.warnings == job.drafts[0].issues
    assert job.drafts[0].payload["blocks"][0]["imageAlt"].startswith("Illustration: ")


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("provider", sorted(ADAPTERS))
@pytest.mark.parametrize("name", FAULTY)
def test_a_planted_fault_is_named_then_the_retry_publishes(
    name: str, provider: str, wire: WireServer, tmp_path: Path
) -> None:
    """The gate names the fault on the first call (an error, or a warning for a judgement
    call); the retry prompt quotes every error and no warning; the page publishes by call two."""
    case = CASES[name]
    planted_errors = [f for f in case["faults"] if f[2] == "error"]

    job = replay(case, provider, wire, tmp_path)

    first = findings(job.drafts[0].issues)
    assert [f for f in first if f[2] == "error"] == planted_errors
    assert all(fault in first for fault in case["faults"])
    assert job.status == "succeeded"
    calls = 2 if planted_errors else 1
    assert (job.writer_calls, wire.calls) == (calls, calls)
    if planted_errors:
        retry_prompt = json.dumps(wire.requests[1].body)
        for field, code, _severity in planted_errors:
            assert f"{field}: {code}" in retry_prompt
            assert "your text:" in retry_prompt
        for field, code, severity in first:
            if severity == "warning":
                assert f"{field}: {code}" not in retry_prompt
    assert [f for f in findings(job.drafts[-1].issues) if f[2] == "error"] == []


def test_the_retry_quotes_the_offending_text_of_each_field(
    wire: WireServer, tmp_path: Path
) -> None:
    """The second prompt carries the field path, the code and the words the gate refused."""
    replay(CASES["fault-banned-word"], "openai", wire, tmp_path)

    prompt = wire.requests[1].body["messages"][1]["content"]

    assert "blocks.3.items.2.body: off_brand: avoid 'seamlessly'" in prompt
    assert "A shorter form runs seamlessly against your current one" in prompt


def test_the_first_prompt_gives_the_icp_rule_the_limits_and_the_proof_list(
    wire: WireServer, tmp_path: Path
) -> None:
    """What a model needs to pass the gate the first time is in the prompt, from the same
    brand rules document GET /api/public/content/brand answers."""
    replay(CASES["clean-attribution-audit"], "openai", wire, tmp_path)

    system, user = (m["content"] for m in wire.requests[0].body["messages"])

    assert "`sub` names the brief's `icp` verbatim" in system
    rules = brand_rules(CATALOG.brand)
    assert f"ruleset {rules.ruleset}" in system
    assert "title 60;" in system
    assert "blocks[hero].title 90; blocks[hero].sub 220" in system
    assert "seamless (instead: Say what the setup takes: steps, hours, who does it.)" in system
    assert "never '1.2'" in system
    assert "no 'every client'" in system
    assert "The only facts you may state (the proof list):\n1. Found 18% of pipeline" in user


def test_the_first_prompt_gives_the_published_prices_and_the_lead_forms_next_steps(
    wire: WireServer, tmp_path: Path
) -> None:
    """A pricing heading can state the company's prices (content/company.json, which the gate
    accepts as published) and a lead form can say what follows for the brief's goal."""
    replay(CASES["clean-attribution-audit"], "openai", wire, tmp_path)

    system = wire.requests[0].body["messages"][0]["content"]

    for plan in CATALOG.company.pricing:
        assert f"- {plan.name}: {plan.price}. {plan.billing}." in system
    assert "`leadform` block's `next`" in system
    assert "at most 4, each at most 200 characters" in system
