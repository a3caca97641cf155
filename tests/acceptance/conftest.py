"""One `service` fixture, parametrized over two real served modes: embedded and emulated.

embedded: `python -m frontdoor.serve` on SQLite (the session's `served_process`).
emulated: `make run-emulated`'s orchestration (devtools/emulated.py), started here on the
session's emulators under a project of its own: the API, and the three workers pushed to by
Pub/Sub. Tests talk HTTP to either with httpx and never look behind the API.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from devtools.emulated import EmulatedStack, EmulatorHosts, StackConfig, start_stack
from tests.emulators import LOG_DIR, ManagedProcess, free_port

MODES = ["embedded", "emulated"]
DELIVERY_ATTEMPTS = 8


@dataclass(frozen=True)
class Service:
    """A served process: its mode, origin and the three partner keys it accepts."""

    mode: str
    base_url: str
    content_key: str
    signals_key: str
    ingest_key: str

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=60, trust_env=False)


@pytest.fixture(scope="session")
def emulated_stack(
    firestore_emulator: ManagedProcess,
    pubsub_emulator: ManagedProcess,
    storage_emulator: ManagedProcess,
    tasks_emulator: ManagedProcess,
) -> Iterator[EmulatedStack]:
    """`make run-emulated` on the session's emulators; the API and the workers are its own."""
    project = f"demo-acc-{uuid.uuid4().hex[:8]}"
    config = StackConfig(
        project=project,
        port=free_port(),
        keys={
            "content": "acc-content-key-0123456789",
            "signals": "acc-signals-key-0123456789",
            "ingest": "acc-ingest-key-01234567890",
        },
        state_dir=LOG_DIR.parent / "emulated" / project,
        logs=LOG_DIR,
        # Within terraform's 5-100: a worker restarted under load stays inside the attempts.
        max_delivery_attempts=DELIVERY_ATTEMPTS,
    )
    hosts = EmulatorHosts(
        firestore=firestore_emulator.host,
        pubsub=pubsub_emulator.host,
        storage=storage_emulator.host,
        tasks=tasks_emulator.host,
    )
    stack = start_stack(config, hosts=hosts)
    yield stack
    stack.stop()


@pytest.fixture(scope="session", params=MODES)
def service(request: pytest.FixtureRequest) -> Service:
    """The service as a partner meets it, once per mode."""
    if request.param == "embedded":
        env: dict[str, str] = request.getfixturevalue("served_process")
        return Service(
            mode="embedded",
            base_url=env["PUBLIC_BASE_URL"],
            content_key=env["CONTENT_API_KEY"],
            signals_key=env["SIGNALS_API_KEY"],
            ingest_key=env["INGEST_API_KEY"],
        )
    stack: EmulatedStack = request.getfixturevalue("emulated_stack")
    return Service(
        mode="emulated",
        base_url=stack.base_url,
        content_key=stack.keys["content"],
        signals_key=stack.keys["signals"],
        ingest_key=stack.keys["ingest"],
    )


@pytest.fixture
def http(service: Service) -> Iterator[httpx.Client]:
    with service.client() as client:
        yield client


@pytest.fixture
def slug() -> str:
    """A page slug of this test's own: the modes keep their stores for the whole session."""
    return f"acc-{uuid.uuid4().hex[:10]}"
