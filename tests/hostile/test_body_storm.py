"""A hostile-input storm against the served process (`python -m frontdoor.serve`, granian): a
few thousand requests over every endpoint that reads a body, while hundreds of clients hold
stalled bodies open. No 5xx; a body that trickles in is cut off with 408 at the read timeout;
the service answers normally afterwards; RSS grows < 100 MiB.
"""

from __future__ import annotations

import http.client
import itertools
import json
import resource
import socket
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest

from frontdoor.rsgi_front import APP_THREADS, BODY_READ_TIMEOUT
from tests.conftest import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY
from tests.hostile.served_clients import MIB, PAGES, SIGNALS, STALLED, VALID, Storm, send
from tests.mcp_tools.conftest import (
    start_served,
)
from tests.polling import wait_for

ENDPOINTS: list[tuple[str, str, dict[str, str]]] = [
    ("POST", PAGES, {"x-api-key": CONTENT_KEY}),
    ("PATCH", f"{PAGES}/storm-page", {"x-api-key": CONTENT_KEY}),
    ("POST", f"{PAGES}/generate", {"x-api-key": CONTENT_KEY, "Prefer": "respond-async"}),
    ("POST", f"{SIGNALS}/events", {"x-api-key": INGEST_KEY}),
    ("POST", f"{SIGNALS}/webhooks", {"x-api-key": SIGNALS_KEY}),
    ("POST", "/api/public/v1/collect", {}),  # no key; Origin added per request
    ("POST", "/register", {}),
    ("POST", "/token", {"Content-Type": "application/x-www-form-urlencoded"}),
    ("POST", "/mcp", {"Accept": "application/json, text/event-stream"}),
]
CONTENT_TYPES = [
    "application/json",
    "application/merge-patch+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "",
]
ODD: list[object] = [
    {},
    [],
    None,
    True,
    -1,
    1e308,
    "\u202e",
    "\x00",
    "\ud83d\ude00" * 50,
    "x" * 100_000,
    [[[]]],
    {"a": {}},
]


def hostile_bodies() -> Iterator[bytes]:
    """Deep nesting, wrong types, huge numbers, odd unicode, truncated and broken JSON."""
    for levels in (33, 1_000, 10_000, 100_000):
        yield b"[" * levels + b"]" * levels
        yield b'{"a":' * levels + b"1" + b"}" * levels
    for raw in (b"1e400", b"-1e400", b"1" * 5_000, b"1" * 4_000, b"NaN", b"Infinity"):
        yield b'{"events": [' + raw + b'], "slug": ' + raw + b', "type": ' + raw + b"}"
    for raw in (b'"\\ud800"', b'"\\udfff\\ud800"', b'"\xc0\xaf"', b'"\xff\xfe"', b'"\\u0000"'):
        yield b'{"slug": ' + raw + b', "title": ' + raw + b', "type": ' + raw + b"}"
    yield b""
    yield b"\x00" * 64
    for valid in VALID.values():
        text = json.dumps(valid).encode()
        for cut in range(1, len(text), max(1, len(text) // 12)):
            yield text[:cut]
        if isinstance(valid, dict):
            for name, odd in itertools.product(list(valid), ODD):
                yield json.dumps({**valid, name: odd}).encode()


def stalled_client(port: int, stack: ExitStack) -> socket.socket:
    """Headers and half of the announced body, then nothing more (held until the test ends)."""
    sock = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
    sock.sendall(
        f"POST {SIGNALS}/events HTTP/1.1\r\nHost: x\r\nx-api-key: {INGEST_KEY}\r\n"
        "Content-Type: application/json\r\nContent-Length: 2000\r\n\r\n".encode()
        + b'{"events": ['
    )
    return sock


def trickling_status(port: int) -> tuple[int, bytes]:
    """A body of 64 KiB sent 2 KiB a second: the status and the start of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=BODY_READ_TIMEOUT + 20) as sock:
        sock.sendall(
            f"POST {PAGES} HTTP/1.1\r\nHost: x\r\nx-api-key: {CONTENT_KEY}\r\n"
            "Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n".encode()
        )
        sock.settimeout(0.5)
        answer = b""
        for _ in range(64):
            try:
                sock.sendall(b" " * 1024)
                answer = sock.recv(4096)
                break
            except TimeoutError:
                continue
            except OSError:  # closed after the answer
                break
        if not answer:
            sock.settimeout(BODY_READ_TIMEOUT + 20)
            answer = sock.recv(4096)
    return int(answer.split(b" ", 2)[1]), answer


def rss_bytes(pid: int) -> int:
    """Resident memory of a process and its children (granian's workers)."""
    total = 0
    pids = [pid]
    while pids:
        current = pids.pop()
        status = Path(f"/proc/{current}/status").read_text()
        total += next(
            int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")
        )
        for task in Path(f"/proc/{current}/task").iterdir():
            pids += [int(c) for c in (task / "children").read_text().split()]
    return total


def warm_every_endpoint(port: int, origin: dict[str, str], bearer: dict[str, str]) -> None:
    """One valid request to each endpoint, and a generation run to its end, before measuring.

    Each endpoint builds what it needs on its first use (the MCP session manager, the writer's
    search index and numpy, the gate's rules): tens of MiB once per process. The storm's bound
    is on what hostile input adds, so the first use is paid before `before` is read.
    """
    json_type = {"Content-Type": "application/json"}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(
            "POST",
            f"{PAGES}/generate",
            json.dumps({**VALID["brief"], "slug": "storm-warm"}),
            {"x-api-key": CONTENT_KEY, "Prefer": "respond-async", **json_type},
        )
        answer = conn.getresponse()
        answer.read()
        job = answer.getheader("Location")
    finally:
        conn.close()
    assert job, answer.status

    def job_ended() -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", str(job), headers={"x-api-key": CONTENT_KEY})
            status = json.loads(conn.getresponse().read())["job"]["status"]
        finally:
            conn.close()
        return status in {"succeeded", "failed"}

    wait_for(job_ended, timeout=120, what="the warm-up generation job")
    for (method, path, headers), body in zip(
        ENDPOINTS,
        [
            VALID["page"],
            {"title": "Warm"},
            None,
            VALID["events"],
            VALID["webhook"],
            VALID["beacon"],
            VALID["register"],
            None,
            VALID["rpc"],
        ],
        strict=True,
    ):
        if body is not None:
            kind = "application/merge-patch+json" if method == "PATCH" else "application/json"
            headers = {**headers, **origin, **bearer, "Content-Type": kind}
            send(port, method, path, headers, json.dumps(body).encode())


def test_a_hostile_storm_gets_no_5xx_stalled_bodies_are_cut_and_the_service_stays_well(
    storm: Storm,
) -> None:
    """content-api.md, signals-api.md Limits: hostile input is a 4xx; bodies time out."""
    port = storm.port
    origin = {"Origin": f"http://127.0.0.1:{port}"}
    bearer = {"Authorization": f"Bearer {storm.token}"}
    assert (
        send(
            port,
            "POST",
            PAGES,
            {"x-api-key": CONTENT_KEY, "Content-Type": "application/json"},
            json.dumps(VALID["page"]).encode(),
        )
        == 201
    )
    warm_every_endpoint(port, origin, bearer)
    before = rss_bytes(storm.served.proc.proc.pid)
    requests = [
        (
            method,
            path,
            {
                **headers,
                **origin,
                **(bearer if path == "/mcp" else {}),
                "Content-Type": content_type,
            },
            body,
        )
        for index, body in enumerate(hostile_bodies())
        for (method, path, headers), content_type in [
            *(
                (endpoint, endpoint[2].get("Content-Type", "application/json"))
                for endpoint in ENDPOINTS
            ),
            (ENDPOINTS[index % len(ENDPOINTS)], CONTENT_TYPES[index % len(CONTENT_TYPES)]),
        ]
    ]

    with ExitStack() as stack:
        for _ in range(STALLED):
            stalled_client(port, stack)
        with ThreadPoolExecutor(max_workers=16) as pool:
            trickles = [pool.submit(trickling_status, port) for _ in range(4)]
            statuses = Counter(pool.map(lambda r: send(port, *r), requests))
            cut = [t.result() for t in trickles]
        after_storm = send(
            port,
            "POST",
            f"{SIGNALS}/events",
            {"x-api-key": INGEST_KEY, "Content-Type": "application/json"},
            json.dumps(VALID["events"]).encode(),
        )
    grown = rss_bytes(storm.served.proc.proc.pid) - before

    assert sum(statuses.values()) >= 2_000
    assert {s for s in statuses if s >= 500} == set(), statuses
    assert [status for status, _ in cut] == [408] * 4
    assert all(b'"error": "request_timeout"' in answer for _, answer in cut)
    assert after_storm == 202
    assert send(port, "GET", "/healthz", {}, b"") == 200
    assert grown < 100 * MIB


STALLED_PAST_THREADS = APP_THREADS + 100  # more stalled bodies than threads to run the app
READ_TIMEOUT = 2.0  # seconds: the service's BODY_READ_TIMEOUT for this test
CUT_MARGIN = 15.0  # seconds past the read timeout a stalled client may wait for its answer


def cut_off(sock: socket.socket) -> bytes:
    """What a stalled client receives before the connection closes ("" when closed at once).

    The socket's timeout bounds the wait: a client never cut off raises TimeoutError."""
    received = b""
    while piece := sock.recv(4096):
        received += piece
    return received


@pytest.fixture
def quick_timeout(tmp_path: Path) -> Iterator[int]:
    """The served process with a short body read timeout; its port."""
    served = start_served(tmp_path / "data", body_read_timeout=str(READ_TIMEOUT))
    try:
        yield int(served.proc.host.rsplit(":", 1)[1])
    finally:
        served.proc.stop()


def test_more_stalled_bodies_than_threads_starve_no_one_and_each_is_cut_at_the_timeout(
    quick_timeout: int,
) -> None:
    """content-api.md, signals-api.md Limits: a body that stops arriving holds no thread; it is
    answered 408 (or closed) at the read timeout, while other requests are answered."""
    port = quick_timeout
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    events = json.dumps(VALID["events"]).encode()
    with ExitStack() as stack:
        stalled = [stalled_client(port, stack) for _ in range(STALLED_PAST_THREADS)]
        health = send(port, "GET", "/healthz", {}, b"")
        ingest = send(
            port,
            "POST",
            f"{SIGNALS}/events",
            {"x-api-key": INGEST_KEY, "Content-Type": "application/json"},
            events,
        )
        answers: Counter[bytes] = Counter()
        for sock in stalled:
            sock.settimeout(READ_TIMEOUT + CUT_MARGIN)
            answers[cut_off(sock)[:12]] += 1

    assert (health, ingest) == (200, 202)
    assert set(answers) <= {b"HTTP/1.1 408", b""}, answers
    assert sum(answers.values()) == STALLED_PAST_THREADS
