"""Two `make run` starts on one DATA_DIR: only the second start's printed keys work.

Each start runs the real served process (`python -m frontdoor.serve`, as `make run` does) with
no keys in the environment, so it prints new ones; a key issued with the CLI is untouched.
"""

from __future__ import annotations

import re
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from api.app import create_app
from backends.bundle import Backends
from frontdoor.cli import cli
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import replace_bootstrap_keys
from tests.api.content_client import PAGES, page_body
from tests.emulators import REPO, free_port, http_ok, start_process

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
PRINTED = re.compile(r"^\s+(CONTENT|SIGNALS|INGEST)_API_KEY=(\S+)$", re.MULTILINE)
ROUTES = {
    "CONTENT": "/api/public/content/pages",
    "SIGNALS": "/api/public/v1/signals",
    "INGEST": "/api/public/v1/signals/people/nobody@example.com",
}


def start_and_stop(data_dir: Path) -> dict[str, str]:
    """One `make run` start: the keys it printed; the process is stopped again."""
    port = free_port()
    env = {
        "BACKEND": "embedded",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DATA_DIR": str(data_dir),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "CONTENT_API_KEY": "",
        "SIGNALS_API_KEY": "",
        "INGEST_API_KEY": "",
        "LOG_LEVEL": "WARNING",
        "WORKERS": "1",
    }
    proc = start_process(
        "bootstrap-keys",
        [sys.executable, "-m", "frontdoor.serve"],
        port=port,
        ready=http_ok("/healthz"),
        env=env,
        cwd=REPO,
    )
    proc.stop()
    return dict(PRINTED.findall(proc.log_path.read_text(errors="replace")))


def answers(base_url: str, scope: str, key: str) -> int:
    method = "DELETE" if scope == "INGEST" else "GET"
    request = urllib.request.Request(  # noqa: S310  # loopback URL built above
        base_url + ROUTES[scope], headers={"x-api-key": key}, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310  # loopback
            return int(response.status)
    except urllib.error.HTTPError as err:
        return err.code


@pytest.mark.spec("keys.bootstrap")
def test_a_second_start_revokes_the_keys_the_first_start_printed(tmp_path: Path) -> None:
    """A start that prints new bootstrap keys revokes those of earlier starts; keys
    issued with the CLI stay valid."""
    data_dir = tmp_path / "data"
    first = start_and_stop(data_dir)
    issued = CliRunner().invoke(
        cli,
        ["keys", "issue", "--partner", "acme", "--scope", "content", "--quiet"],
        obj={},
        env={"DATA_DIR": str(data_dir)},
    )
    second = start_and_stop(data_dir)
    port = free_port()
    env = {
        "DATA_DIR": str(data_dir),
        "PORT": str(port),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "SIGNALS_API_KEY": "fixed-signals-key-0123456789",
        "CONTENT_API_KEY": "fixed-content-key-0123456789",
        "INGEST_API_KEY": "fixed-ingest-key-012345678901",
        "LOG_LEVEL": "WARNING",
    }
    served = start_process(
        "bootstrap-keys-check",
        [sys.executable, "-m", "frontdoor.serve"],
        port=port,
        ready=http_ok("/healthz"),
        env=env,
        cwd=REPO,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        old = {scope: answers(base, scope, key) for scope, key in first.items()}
        new = {scope: answers(base, scope, key) for scope, key in second.items()}
        cli_key = answers(base, "CONTENT", issued.output.strip())
    finally:
        served.stop()

    assert sorted(first) == sorted(second) == ["CONTENT", "INGEST", "SIGNALS"]
    assert set(first.values()).isdisjoint(second.values())
    assert old == {"CONTENT": 401, "SIGNALS": 401, "INGEST": 401}
    assert new == {"CONTENT": 200, "SIGNALS": 200, "INGEST": 200}
    assert cli_key == 200


@pytest.mark.spec("keys.bootstrap")
def test_a_printed_key_set_in_the_environment_keeps_its_partner_and_pages(
    settings: Settings, backends: Backends
) -> None:
    """README: "Set those variables yourself to use fixed keys". A start's printed content key,
    exported as CONTENT_API_KEY for the next start, is the same key: it keeps seeing the pages
    it made and its Idempotency-Keys, rather than becoming partner `bootstrap`, a stranger to
    them (404 on each page, 409 `slug_taken` on its own slugs)."""
    printed, _ = replace_bootstrap_keys(keys=backends.keys, scopes=["content"], now=NOW)
    key = {"x-api-key": printed["content"]}
    first = create_app(app_config(settings), backends).test_client()
    made = first.post(PAGES, json=page_body("mine"), headers={**key, "Idempotency-Key": "k1"})
    fixed = settings.model_copy(update={"content_api_key": SecretStr(printed["content"])})

    again = create_app(app_config(fixed), backends).test_client()
    read = again.get(f"{PAGES}/mine", headers=key)
    replaced = again.post(PAGES, json=page_body("mine", title="Mine again"), headers=key)
    replayed = again.post(PAGES, json=page_body("mine"), headers={**key, "Idempotency-Key": "k1"})

    assert made.status_code == 201
    assert read.status_code == 200
    assert replaced.status_code == 201
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert [p["slug"] for p in again.get(PAGES, headers=key).get_json()["pages"]] == ["mine"]
