"""What `python -m frontdoor.serve` (`make run`) does before it serves: its arguments, and the
Google Cloud credentials a gcp start needs. Each test runs the real process with a clean
environment, as a person at a terminal would.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run_serve(
    *args: str, env: dict[str, str], cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """`python -m frontdoor.serve ARGS` expected to stop before serving."""
    return subprocess.run(  # noqa: S603  # our own module; the arguments are the tests' own
        [sys.executable, "-m", "frontdoor.serve", *args],
        env={"PATH": "/usr/bin:/bin", **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_a_short_usage_and_exits_0_without_starting_or_touching_keys(
    tmp_path: Path, flag: str
) -> None:
    """`--help` says what the module does, that settings come from the environment and where
    to read more; it starts no server and issues or revokes no bootstrap key."""
    result = run_serve(flag, env={"DATA_DIR": str(tmp_path)})

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: python -m frontdoor.serve")
    for words in ("environment", "frontdoor --help", "README"):
        assert words in result.stdout
    assert "frontdoor serving on" not in result.stderr
    assert "_API_KEY=" not in result.stdout + result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--port", "9000"], ["serve"]])
def test_an_unknown_argument_exits_2_with_a_message_without_starting_or_touching_keys(
    tmp_path: Path, args: list[str]
) -> None:
    """Settings come from the environment only: any argument is refused with exit code 2 and
    a message pointing to `--help`, before a key or a file is made."""
    result = run_serve(*args, env={"DATA_DIR": str(tmp_path)})

    assert result.returncode == 2
    assert "--help" in result.stderr
    assert "Traceback" not in result.stderr
    assert "frontdoor serving on" not in result.stderr
    assert "_API_KEY=" not in result.stdout + result.stderr
    assert list(tmp_path.iterdir()) == []


# A gcp start as an operator's shell gives it: project and push audience set, no credentials
# anywhere (HOME has no gcloud configuration; NO_GCE_CHECK: not on a Google Cloud machine,
# even when the tests run on one).
GCP_WITHOUT_CREDENTIALS = {
    "BACKEND": "gcp",
    "GOOGLE_CLOUD_PROJECT": "demo-frontdoor",
    "PUSH_OIDC_AUDIENCE": "frontdoor-push",
    "NO_GCE_CHECK": "true",
}
EMULATOR_HOSTS = {
    "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8681",
    "PUBSUB_EMULATOR_HOST": "127.0.0.1:8682",
    "STORAGE_EMULATOR_HOST": "http://127.0.0.1:8683",
    "CLOUD_TASKS_EMULATOR_HOST": "127.0.0.1:8684",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_gcp_start_without_credentials_exits_2_naming_what_to_set_before_serving(
    tmp_path: Path,
) -> None:
    """A gcp start with no Application Default Credentials stops in granian's parent with one
    line naming GOOGLE_APPLICATION_CREDENTIALS and `gcloud auth application-default login`,
    instead of a worker dying with a traceback and the server exiting 1."""
    env = {
        **GCP_WITHOUT_CREDENTIALS,
        "HOME": str(tmp_path),
        "DATA_DIR": str(tmp_path / "data"),
        "PORT": str(free_port()),
    }

    result = run_serve(env=env)

    assert result.returncode == 2
    first = result.stderr.strip().splitlines()[0]
    assert first.startswith("BACKEND=gcp found no Google Cloud credentials")
    assert "GOOGLE_APPLICATION_CREDENTIALS" in first
    assert "gcloud auth application-default login" in first
    assert "Traceback" not in result.stderr
    assert "frontdoor serving on" not in result.stderr


def test_a_gcp_start_on_some_emulators_without_credentials_names_the_emulators_left(
    tmp_path: Path,
) -> None:
    """With only Firestore emulated, Pub/Sub, storage and Cloud Tasks would still ask Google
    for credentials: the line says so."""
    env = {
        **GCP_WITHOUT_CREDENTIALS,
        "FIRESTORE_EMULATOR_HOST": EMULATOR_HOSTS["FIRESTORE_EMULATOR_HOST"],
        "HOME": str(tmp_path),
        "DATA_DIR": str(tmp_path / "data"),
        "PORT": str(free_port()),
    }

    result = run_serve(env=env)

    assert result.returncode == 2
    first = result.stderr.strip().splitlines()[0]
    assert first.endswith(
        "(or, on the emulators, also set PUBSUB_EMULATOR_HOST, STORAGE_EMULATOR_HOST,"
        " CLOUD_TASKS_EMULATOR_HOST)"
    )


EMULATED_PARENT_PROBE = """
import json
from frontdoor import serve

settings = serve.check_start()
print(json.dumps({"backend": settings.backend, "checked": serve.CHECKED_SETTINGS == [settings]}))
"""


def test_a_gcp_start_on_the_emulators_needs_no_credentials(tmp_path: Path) -> None:
    """`make run-emulated` (devtools/emulated.py) points every client at an emulator, which
    needs no credentials: granian's parent passes its checks without any, as before."""
    env = {
        **GCP_WITHOUT_CREDENTIALS,
        **EMULATOR_HOSTS,
        "HOME": str(tmp_path),
        "DATA_DIR": str(tmp_path / "data"),
        "PORT": str(free_port()),
    }

    result = subprocess.run(  # noqa: S603  # our own interpreter on a fixed script
        [sys.executable, "-c", EMULATED_PARENT_PROBE],
        env={"PATH": "/usr/bin:/bin", **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "backend": "gcp",
        "checked": True,
    }
