"""On `make run-emulated`'s stack: a worker crash loses nothing, and a
message no worker can take ends on its dead letter topic with its job `failed`.

The generation worker killed in the middle of a writer call is
tests/e2e/test_generation_emulated.py; here the crashes happen to the stack's own processes,
with a dead letter policy in place (8 delivery attempts; terraform's default is 5). Each
test starts the worker it killed again.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import httpx
import pytest

from devtools.emulated import EmulatedStack
from tests.polling import wait_for

pytestmark = pytest.mark.emulator

SIGNALS = "/api/public/v1/signals"
PAGES = "/api/public/content/pages"


def test_a_batch_pushed_while_the_ingest_worker_is_down_is_stored_once_it_is_back(
    emulated_stack: EmulatedStack,
) -> None:
    """SIGKILL the ingest worker, ingest, start it again: Pub/Sub redelivers; nothing is lost."""
    stack = emulated_stack
    domain = f"{uuid.uuid4().hex[:10]}.example"
    events = [
        {
            "source": "crm",
            "row_id": uuid.uuid4().hex[:12],
            "type": "newsletter_signup",
            "occurred_at": datetime.now(UTC).isoformat(),
            "person": {"email": f"p{i}@{domain}"},
        }
        for i in range(3)
    ]
    read = {"x-api-key": stack.keys["signals"]}
    stack.kill("ingest")
    try:
        with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:
            accepted = http.post(
                f"{SIGNALS}/events",
                json={"events": events},
                headers={"x-api-key": stack.keys["ingest"]},
            )
            assert accepted.status_code == 202, accepted.json()
            stack.restart("ingest")

            def stored() -> list[str]:
                found = http.get(SIGNALS, params={"domain": domain}, headers=read).json()
                return sorted(e["id"] for e in found["events"])

            wait_for(lambda: len(stored()) == 3, what="the batch stored after the restart")
            assert stored() == sorted(accepted.json()["accepted"])
    finally:
        stack.revive()  # the worker is back for the tests that follow, whatever failed here


def test_a_job_message_no_worker_takes_is_dead_lettered_and_its_job_failed(
    emulated_stack: EmulatedStack,
) -> None:
    """Every push fails (the worker is down): every attempt, the dead letter topic, `failed`."""
    stack = emulated_stack
    key = {"x-api-key": stack.keys["content"]}
    brief = {
        "slug": f"dead-{uuid.uuid4().hex[:8]}",
        "topic": "Attribution you can check",
        "icp": "Heads of growth at Series A SaaS companies",
    }
    stack.kill("generation")
    try:
        with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:
            accepted = http.post(
                f"{PAGES}/generate", json=brief, headers={**key, "Prefer": "respond-async"}
            )
            assert accepted.status_code == 202, accepted.json()
            job_id = accepted.json()["job"]["id"]
            location = accepted.headers["location"]

            def status() -> str:
                found: str = http.get(location, headers=key).json()["job"]["status"]
                return found

            wait_for(lambda: status() == "failed", timeout=60, what="the job marked failed")
            job = http.get(location, headers=key).json()["job"]
    finally:
        stack.restart("generation")  # the dead-lettered message is not delivered to it again

    assert job["error"]["code"] == "worker_failed"
    held = stack.pull("generation-jobs-dead-letter-hold")
    mine = [m for m in held if json.loads(m["data"]).get("job_id") == job_id]
    assert len(mine) == 1
    attempts = mine[0]["attributes"]["CloudPubSubDeadLetterSourceDeliveryCount"]
    assert attempts == str(stack.config.max_delivery_attempts)
