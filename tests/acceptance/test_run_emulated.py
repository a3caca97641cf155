"""`make run-emulated` itself: `python -m frontdoor.emulated` comes up, says where everything is,
and Ctrl-C (SIGINT) stops every process it started."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from frontdoor.processes import free_port, http_ok, spawn_process, tcp_open, wait_ready
from tests.acceptance.conftest import wait_for
from tests.emulators import LOG_DIR, REPO

pytestmark = pytest.mark.emulator

READY_LINE = "Ctrl-C stops everything."


def test_the_command_serves_every_process_it_prints_and_sigint_stops_them_all(
    tmp_path: Path,
) -> None:
    """Issue 8: one command brings the service up on the emulators; Ctrl-C stops all of it."""
    port = free_port()
    command = [sys.executable, "-m", "frontdoor.emulated", "--port", str(port)]
    command += ["--state-dir", str(tmp_path / "emulated")]
    run = spawn_process("run-emulated", command, port=port, log_dir=LOG_DIR, cwd=REPO)
    try:
        wait_ready(run, ready=http_ok("/healthz"), timeout=180)
        wait_for(lambda: READY_LINE in run.log_path.read_text(), timeout=180, what="the summary")
        summary = run.log_path.read_text()
        hosts = sorted(set(re.findall(r"127\.0\.0\.1:\d+", summary)))
        listening = {host: tcp_open(host) for host in hosts}

        os.kill(run.proc.pid, signal.SIGINT)
        code = run.proc.wait(timeout=90)
    finally:
        if run.proc.poll() is None:
            os.kill(run.proc.pid, signal.SIGTERM)
            try:
                run.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                run.kill()

    assert len(hosts) == 8  # the API, three workers and four emulators
    assert all(listening.values()), listening
    assert code == 0
    assert [host for host in hosts if tcp_open(host)] == []
