"""Shared fixtures: a fresh app and backends per test on tmp_path; emulators once per session."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import hypothesis
import pytest
from flask import Flask
from flask.testing import FlaskClient
from google.cloud import firestore as google_firestore
from playwright.sync_api import Browser, sync_playwright

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from tests.black_hole import BlackHole, black_hole
from tests.emulators import (
    ManagedProcess,
    start_firestore,
    start_pubsub,
    start_storage,
    start_tasks,
)
from tests.served import start_served

# The CLI tests' DATA_DIR fixture (tests/cli_runner.py), for every module that runs the CLI.
pytest_plugins = ("tests.cli_runner",)

CONTENT_KEY = "test-content-key-0123456789"
SIGNALS_KEY = "test-signals-key-0123456789"
INGEST_KEY = "test-ingest-key-01234567890"
PROJECT = "demo-frontdoor"

# Property tests check behaviour, never speed (that is bench/'s): on two shared cores one example
# can take seconds, and Hypothesis's default 200 ms deadline made them flaky.
hypothesis.settings.register_profile("frontdoor", deadline=None)
hypothesis.settings.load_profile("frontdoor")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        public_base_url="http://testserver",
        content_api_key=CONTENT_KEY,
        signals_api_key=SIGNALS_KEY,
        ingest_api_key=INGEST_KEY,
    )


@pytest.fixture
def backends(settings: Settings) -> Iterator[Backends]:
    built = build_backends(settings)
    yield built
    built.close()


@pytest.fixture
def app(settings: Settings, backends: Backends) -> Flask:
    return create_app(app_config(settings), backends)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="session")
def firestore_emulator() -> Iterator[ManagedProcess]:
    """The Firestore emulator, started once; FIRESTORE_EMULATOR_HOST points at it."""
    proc = start_firestore()
    os.environ["FIRESTORE_EMULATOR_HOST"] = proc.host
    os.environ.setdefault("GOOGLE_CLOUD_PROJECT", PROJECT)
    yield proc
    proc.stop()
    os.environ.pop("FIRESTORE_EMULATOR_HOST", None)


@pytest.fixture
def unique_prefix() -> str:
    """A collection prefix of its own, so emulator tests share one database without cleanup."""
    return f"t{uuid.uuid4().hex[:10]}_"


@pytest.fixture(scope="session")
def tasks_emulator() -> Iterator[ManagedProcess]:
    """gcloud-tasks-emulator with `-r 0`: it never retries, so every retry is our own new task."""
    proc = start_tasks(max_retries=0)
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def pubsub_emulator() -> Iterator[ManagedProcess]:
    """The Pub/Sub emulator, started once; PUBSUB_EMULATOR_HOST points at it."""
    proc = start_pubsub()
    os.environ["PUBSUB_EMULATOR_HOST"] = proc.host
    os.environ.setdefault("GOOGLE_CLOUD_PROJECT", PROJECT)
    yield proc
    proc.stop()
    os.environ.pop("PUBSUB_EMULATOR_HOST", None)


@pytest.fixture(scope="session")
def storage_emulator() -> Iterator[ManagedProcess]:
    """gcp-storage-emulator in memory, started once; STORAGE_EMULATOR_HOST points at it."""
    proc = start_storage()
    os.environ["STORAGE_EMULATOR_HOST"] = f"http://{proc.host}"
    os.environ.setdefault("GOOGLE_CLOUD_PROJECT", PROJECT)
    yield proc
    proc.stop()
    os.environ.pop("STORAGE_EMULATOR_HOST", None)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium (installed by .ci/run with apt), one per test module.

    Playwright's sync API runs an event loop in the main thread while it is open, so one
    instance at a time, closed after each browser module: asyncio tests that follow
    (the MCP client) need the thread's loop free.
    """
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def served_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The real served process (`python -m frontdoor.serve`), once for the docs and README tests."""
    served = start_served(tmp_path_factory.mktemp("served") / "data")
    yield served.env
    served.stop()


@pytest.fixture
def down_firestore() -> Iterator[google_firestore.Client]:
    """A real Firestore client whose Firestore answers every call ABORTED, which the client
    gives up on at once (tests/firestore_wire.py): the real adapters on it are down."""
    import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs

    from tests.firestore_wire import client_of_down_firestore

    with client_of_down_firestore(grpc.StatusCode.ABORTED) as client:
        yield client


@pytest.fixture
def firestore_hole(firestore_emulator: ManagedProcess) -> Iterator[BlackHole]:
    """The Firestore emulator behind a black hole (tests/black_hole.py): calls pass on until
    the test makes it go silent, and again once it comes back."""
    with black_hole(firestore_emulator.host) as hole:
        yield hole


@pytest.fixture
def firestore_behind_hole(firestore_hole: BlackHole) -> Iterator[google_firestore.Client]:
    """A real Firestore client whose Firestore is the emulator behind `firestore_hole`."""
    from tests.firestore_wire import client_of_black_hole

    with client_of_black_hole(firestore_hole) as client:
        yield client
