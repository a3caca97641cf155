"""`make run-emulated` itself: `python -m devtools.emulated` comes up, says where everything is,
and Ctrl-C (SIGINT) stops every process it started."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from devtools.emulated import EmulatedStack, show_mail
from devtools.processes import free_port, http_ok, spawn_process, tcp_open, wait_ready
from tests.emulators import LOG_DIR, REPO
from tests.polling import wait_for

pytestmark = pytest.mark.emulator

READY_LINE = "Ctrl-C stops everything."


def test_the_command_serves_every_process_it_prints_and_sigint_stops_them_all(
    tmp_path: Path,
) -> None:
    """One command brings the service up on the emulators; Ctrl-C stops all of it."""
    port = free_port()
    command = [sys.executable, "-m", "devtools.emulated", "--port", str(port)]
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


def test_mail_sent_to_the_mail_topic_is_shown_on_the_terminal(
    emulated_stack: EmulatedStack, capsys: pytest.CaptureFixture[str]
) -> None:
    """The mail port publishes to `mail`; run-emulated shows it (the /mcp sign-in codes)."""
    mail = {"to": "ada@acme.example", "subject": "Your sign-in code", "text": "123456"}
    data = base64.b64encode(json.dumps(mail).encode()).decode()
    topic = f"projects/{emulated_stack.config.project}/topics/mail"
    published = httpx.post(
        f"http://{emulated_stack.hosts.pubsub}/v1/{topic}:publish",
        json={"messages": [{"data": data, "attributes": {"kind": "mail"}}]},
        timeout=10,
    )
    shown: list[str] = []

    def echoed() -> bool:
        show_mail(emulated_stack)
        shown.append(capsys.readouterr().out)
        return "mail to ada@acme.example: Your sign-in code\n123456" in "".join(shown)

    assert published.status_code == 200
    wait_for(echoed, timeout=10, what="the mail on the terminal")
