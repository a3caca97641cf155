"""DESIGN Operator CLI: a command given a bad setting, a folder it cannot use or an option it
cannot serve says what is wrong and exits non-zero, never with a traceback."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from frontdoor.cli import cli

NO_KEYS = {"CONTENT_API_KEY": "", "SIGNALS_API_KEY": "", "INGEST_API_KEY": ""}
COMMANDS = [
    ["keys", "list"],
    ["pages", "list"],
    ["signals", "tail", "--no-follow"],
    ["queues", "status"],
    ["openapi"],
    ["seed-demo", "--events", "1"],
]


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    """The CLI configures logging; pytest's handlers come back after each test."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def frontdoor(*args: str, **env: str | None) -> Result:
    return CliRunner().invoke(cli, list(args), env={**NO_KEYS, **env}, obj={})


def assert_refused(result: Result, exit_code: int, *words: str) -> None:
    assert result.exit_code == exit_code, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_bad_setting_is_named_by_its_variable_and_exits_2(
    tmp_path: Path, command: list[str]
) -> None:
    result = frontdoor(*command, DATA_DIR=str(tmp_path), BACKEND="nope")

    assert_refused(result, 2, "configuration", "BACKEND", "'embedded' or 'gcp'")


def test_a_bad_setting_never_shows_the_value_of_a_secret(tmp_path: Path) -> None:
    result = frontdoor("keys", "list", DATA_DIR=str(tmp_path), PORT="s3cr3t-looking-value")

    assert_refused(result, 2, "PORT")
    assert "s3cr3t-looking-value" not in result.output


def test_a_gcp_backend_without_a_project_says_which_variable_it_needs(tmp_path: Path) -> None:
    result = frontdoor(
        "keys", "list", DATA_DIR=str(tmp_path), BACKEND="gcp", GOOGLE_CLOUD_PROJECT=None
    )

    assert_refused(result, 2, "GOOGLE_CLOUD_PROJECT")


def test_a_data_dir_that_cannot_be_made_is_named_and_exits_1(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")

    result = frontdoor("keys", "list", DATA_DIR=str(blocker / "data"))

    assert_refused(result, 1, str(blocker))


def test_terraform_indexes_into_a_folder_that_does_not_exist_says_so_and_exits_1(
    tmp_path: Path,
) -> None:
    target = tmp_path / "no-such-folder" / "indexes.tf.json"

    result = frontdoor("terraform-indexes", "--output", str(target))

    assert_refused(result, 1, str(target))
    assert not target.exists()


@pytest.mark.parametrize("base_url", ["not a url", "ftp://api.example", "api.example"])
def test_openapi_refuses_a_base_url_that_is_not_an_http_url(base_url: str) -> None:
    result = frontdoor("openapi", "--base-url", base_url)

    assert_refused(result, 2, "--base-url")


@pytest.mark.parametrize("partner", ["", " ", "a b", "../x"])
def test_pages_generate_refuses_a_partner_name_no_key_could_carry(
    tmp_path: Path, partner: str
) -> None:
    """A page belongs to a partner by name, and a key's partner is 1 to 64 letters, digits,
    `.`, `_` or `-` (keys issue): a page written for any other name (an unset shell variable)
    could never be read or changed by a partner."""
    brief = tmp_path / "brief.json"
    brief.write_text('{"slug": "cli-audit", "topic": "A funnel audit", "icp": "RevOps leads"}')

    result = frontdoor(
        "pages", "generate", str(brief), "--partner", partner, DATA_DIR=str(tmp_path / "d")
    )

    assert_refused(result, 2, "--partner")
    assert "job" not in result.output


def test_pages_list_refuses_a_partner_name_no_key_could_carry(tmp_path: Path) -> None:
    result = frontdoor("pages", "list", "--partner", "", DATA_DIR=str(tmp_path))

    assert_refused(result, 2, "--partner")


@pytest.mark.parametrize("command", [["pages", "generate", "BRIEF"], ["pages", "job", "JOB"]])
def test_a_negative_timeout_is_refused(tmp_path: Path, command: list[str]) -> None:
    brief = tmp_path / "brief.json"
    brief.write_text("{}")
    args = [str(brief) if arg == "BRIEF" else arg for arg in command]

    result = frontdoor(*args, "--timeout", "-5", DATA_DIR=str(tmp_path / "d"))

    assert_refused(result, 2, "--timeout")


def test_a_gcp_backend_without_credentials_says_so_and_exits_1(tmp_path: Path) -> None:
    """An operator's laptop without Application Default Credentials: Google's own message,
    which says how to set them up, not a traceback."""
    result = frontdoor(
        "keys",
        "list",
        DATA_DIR=str(tmp_path),
        BACKEND="gcp",
        GOOGLE_CLOUD_PROJECT="demo-project",
        PUSH_OIDC_AUDIENCE="frontdoor-push",
        INTERNAL_TOKEN="an-internal-token-0123456789",
        GOOGLE_APPLICATION_CREDENTIALS=str(tmp_path / "no-such-credentials.json"),
        FIRESTORE_EMULATOR_HOST=None,
        PUBSUB_EMULATOR_HOST=None,
        STORAGE_EMULATOR_HOST=None,
    )

    assert_refused(result, 1, "Google Cloud refused", "credentials")
