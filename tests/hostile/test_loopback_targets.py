"""Loopback delivery targets on a public bind: refused in every spelling, never probed."""

from __future__ import annotations

import json
import socket
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import INGEST_KEY, SIGNALS_KEY
from tests.hostile.served_clients import SIGNALS, VALID, Storm, send
from tests.mcp_tools.conftest import (
    start_served,
)


def loopback_spellings(port: int, own_port: int) -> list[str]:
    """Every way we know to write an address on this host, each aimed at a local listener,
    the service's own internal route among them; names the resolver cannot encode too."""
    hosts = [
        "127.0.0.1",
        "127.1",
        "127.0.1",
        "0x7f000001",
        "0x7f.1",
        "0177.0.0.1",
        "017700000001",
        "2130706433",
        "127.000.000.001",
        "0",
        "0.0.0.0",  # noqa: S104  # reaches this host's services on Linux
        "localhost",
        "LOCALHOST.",
        "app.localhost",
        "\uff11\uff12\uff17.0.0.1",  # fullwidth digits, read as 127.0.0.1 by IDNA
        "\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3",  # circled letters: localhost
        "[::1]",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:7f00:1]",
        "[::127.0.0.1]",
        "[2002:7f00:1::]",
        "[64:ff9b::7f00:1]",
        "[::ffff:127.0.0.1%25lo]",
        "a..b",
        "\u00ad",
    ]
    urls = [f"{scheme}://{host}:{port}/in" for host in hosts for scheme in ("http", "https")]
    urls += [f"http://{host}:{own_port}/internal/deliveries/x/attempt" for host in hosts[:3]]
    return urls


@pytest.fixture
def public_bind(tmp_path: Path) -> Iterator[Storm]:
    """The served process on every interface, as the Docker image runs it (HOST=0.0.0.0)."""
    served = start_served(tmp_path / "data", host="0.0.0.0")  # noqa: S104
    port = int(served.proc.host.rsplit(":", 1)[1])
    try:
        yield Storm(served, port, token="")
    finally:
        served.proc.stop()


def test_loopback_targets_on_a_public_bind_are_refused_in_every_spelling_and_never_probed(
    public_bind: Storm,
) -> None:
    """signals-api.md Allowed targets: on a public bind no spelling of a loopback address (nor
    the service itself) registers as a webhook, standard or Slack; no 5xx; nothing connects."""
    port = public_bind.port
    key = {"x-api-key": SIGNALS_KEY, "Content-Type": "application/json"}
    with socket.create_server(("127.0.0.1", 0)) as listening:
        listening.setblocking(False)
        urls = loopback_spellings(listening.getsockname()[1], port)
        bodies = [{"url": url, **kind} for url in urls for kind in ({}, {"kind": "slack"})]
        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = Counter(
                pool.map(
                    lambda body: send(
                        port, "POST", f"{SIGNALS}/webhooks", key, json.dumps(body).encode()
                    ),
                    bodies,
                )
            )
        ingested = send(
            port,
            "POST",
            f"{SIGNALS}/events",
            {"x-api-key": INGEST_KEY, "Content-Type": "application/json"},
            json.dumps(VALID["events"]).encode(),
        )
        with pytest.raises(BlockingIOError):  # no connection is waiting to be accepted
            listening.accept()

    assert statuses == Counter({422: len(bodies)})
    assert ingested == 202
