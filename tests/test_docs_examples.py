"""DESIGN "Docs' examples are tested by running them": every curl example in the served docs
runs against the real served process and gets a non-5xx answer."""

from __future__ import annotations

import re
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.emulators import REPO
from tests.served import shell_commands, shell_env, statuses, with_status

DOCS = (
    "/content-api.md",
    "/signals-api.md",
    "/signals-agent.md",
    "/mcp.md",
    "/AGENTS.md",
    "/llms-full.txt",
    "/developers.md",
)

# mcp.md walks an OAuth sign-in in a browser; its examples are optional.
MUST_HAVE_EXAMPLES = frozenset(DOCS) - {"/mcp.md"}


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310  # loopback only
        text: str = response.read().decode()
        return text


def run_curl(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603  # the docs' own commands against our loopback server
        ["bash", "-c", with_status(command)],  # noqa: S607  # bash from PATH, as a reader's shell
        env=shell_env(env),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.spec("files.docs-examples")
@pytest.mark.parametrize("doc", DOCS)
def test_every_curl_example_in_the_doc_runs_against_the_served_app(
    served_process: dict[str, str], doc: str
) -> None:
    """DESIGN Contract decisions: docs' examples run; each curl exits 0 with a non-5xx status."""
    base = served_process["PUBLIC_BASE_URL"]
    examples = [c for c in shell_commands(fetch(base + doc)) if c.startswith("curl ")]

    results = {command: run_curl(command, served_process) for command in examples}

    assert examples or doc not in MUST_HAVE_EXAMPLES, f"{doc} has no curl example"
    for command, result in results.items():
        assert base in command, f"{doc}: example does not target the base URL: {command}"
        assert "|" not in command.replace("'|'", ""), f"{doc}: examples are single commands"
        assert result.returncode == 0, f"{doc}: {command}\n{result.stdout}\n{result.stderr}"
        assert statuses(result.stdout)[-1] < 500, f"{doc}: {command}\n{result.stdout}"


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310  # loopback only
            return int(response.status)
    except urllib.error.HTTPError as err:
        return err.code


@pytest.mark.spec("files.llms")
def test_every_llms_txt_link_answers_on_the_served_process(served_process: dict[str, str]) -> None:
    """SPEC files /llms.txt: every link works, /mcp and OAuth discovery included (401 at /mcp)."""
    base = served_process["PUBLIC_BASE_URL"]
    links = [
        u for u in re.findall(r"\]\((\S+?)\)", fetch(base + "/llms.txt")) if u.startswith(base)
    ]

    answers = {url.removeprefix(base): status_of(url) for url in links}

    assert answers.pop("/mcp") == 401
    assert "/.well-known/oauth-protected-resource" in answers
    assert set(answers.values()) == {200}, answers


def test_shell_commands_join_continuations_and_skip_comments(tmp_path: Path) -> None:
    """DESIGN Contract decisions: the extractor sees what a reader would paste."""
    markdown = "```sh\n# a comment\ncurl -s \\\n  http://x/a\n```\n```json\n{}\n```\n"

    assert shell_commands(markdown) == ["curl -s    http://x/a"]
