"""The container image's start commands, run from the repository as Cloud Run would run them.

No Docker engine runs here, so the image is checked in two halves: the Dockerfile's own facts
(base, non-root user, installed project, content/, default CMD) and, for every Cloud Run
service of terraform/run.tf, its command and args run from this checkout with the image's ENV
and run.tf's environment shape (emulated: `make run-emulated`'s env) on a port given only by
PORT, until the API answers /healthz or the worker acks a Pub/Sub push.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from devtools.emulated import EmulatedStack
from devtools.processes import (
    ManagedProcess,
    free_port,
    http_ok,
    spawn_process,
    tcp_open,
    wait_ready,
)
from tests.emulators import LOG_DIR, REPO
from tests.terraform.config import container, locals_
from tests.terraform.config import run_services as terraform_services

pytestmark = pytest.mark.emulator

DOCKERFILE = REPO / "Dockerfile"
IMAGE_WORKDIR = "/app"


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, rest = line.partition(" ")
            pairs.append((instruction.upper(), rest.strip()))
    return pairs


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction, rest in dockerfile():
        if instruction == "ENV":
            for item in shlex.split(rest):
                name, _, value = item.partition("=")
                env[name] = value
    return env


def image_cmd() -> list[str]:
    (cmd,) = [json.loads(rest) for instruction, rest in dockerfile() if instruction == "CMD"]
    assert isinstance(cmd, list)
    return [str(part) for part in cmd]


def run_services() -> dict[str, list[str]]:
    """Each Cloud Run service's command + args, with run.tf's locals filled in."""
    local_values = locals_()
    services: dict[str, list[str]] = {}
    for name, body in terraform_services().items():
        words = [*container(body)["command"], *container(body)["args"]]
        services[name] = [
            re.sub(r"\$\{local\.(\w+)\}", lambda m: str(local_values[m.group(1)]), w) for w in words
        ]
    return services


def test_the_image_is_python_311_slim_non_root_with_the_project_and_content() -> None:
    """Dockerfile: one image, pinned project installed by pip, content/ included."""
    steps = dockerfile()
    instructions = [instruction for instruction, _ in steps]

    assert steps[0] == ("FROM", "python:3.11-slim")
    assert ("RUN", "pip install . && pip check") in steps
    assert ("COPY", "content/ content/") in steps
    assert ("WORKDIR", IMAGE_WORKDIR) in steps
    user = [rest for instruction, rest in steps if instruction == "USER"]
    assert user
    assert user[-1].split(":")[0] not in ("root", "0")
    assert "ENTRYPOINT" not in instructions
    assert image_env()["HOST"] == "0.0.0.0"  # noqa: S104  # the container's port, published by Cloud Run
    assert image_env()["CONTENT_DIR"] == f"{IMAGE_WORKDIR}/content"


def test_the_default_cmd_is_the_api_services_command() -> None:
    """terraform/run.tf: the API runs the image's default command; workers override it."""
    services = run_services()

    assert services["api"] == image_cmd() == ["frontdoor", "serve"]
    for name in ("generation", "generation_dead_letter", "ingest"):
        assert services[name][0] == "functions-framework"
        assert "--signature-type=cloudevent" in services[name]


def push_envelope(body: dict[str, Any]) -> dict[str, Any]:
    data = base64.b64encode(json.dumps(body).encode()).decode()
    return {
        "message": {
            "data": data,
            "messageId": uuid.uuid4().hex,
            "publishTime": "2026-11-22T00:00:00Z",
        },
        "subscription": "projects/demo/subscriptions/image-check",
    }


PUSHES: dict[str, dict[str, Any]] = {
    "generation": {"job_id": "job_unknown_to_the_image_check"},
    "generation_dead_letter": {"job_id": "job_unknown_to_the_image_check"},
    "ingest": {"events": []},
}


def test_every_cloud_run_services_command_serves_on_the_port_given_by_port(
    emulated_stack: EmulatedStack, tmp_path: Path
) -> None:
    """Cloud Run sets PORT: the API answers /healthz on it; each worker acks a push on it."""
    started: dict[str, ManagedProcess] = {}
    try:
        for service, words in run_services().items():  # side by side: each takes seconds
            port = free_port()
            env = {
                **emulated_stack.app_env,
                **image_env(),
                "CONTENT_DIR": str(REPO / "content"),  # the image's /app is this checkout
                "DATA_DIR": str(tmp_path / service),
                "HOST": "127.0.0.1",  # loopback only here; the image listens on 0.0.0.0
                "PORT": str(port),
            }
            executable = Path(sys.executable).parent / words[0]  # the image puts it on PATH
            started[service] = spawn_process(
                f"image-{service}",
                [str(executable), *words[1:]],
                port=port,
                log_dir=LOG_DIR,
                env=env,
                cwd=REPO,
            )
        for service, proc in started.items():
            wait_ready(
                proc, ready=http_ok("/healthz") if service == "api" else tcp_open, timeout=120
            )

        acks = {
            service: httpx.post(
                f"http://{proc.host}/", json=push_envelope(PUSHES[service]), timeout=60
            ).status_code
            for service, proc in started.items()
            if service != "api"
        }
    finally:
        for proc in started.values():
            proc.stop()

    assert set(started) == {"api", *PUSHES}
    assert all(200 <= code < 300 for code in acks.values()), acks
