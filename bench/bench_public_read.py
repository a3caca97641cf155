"""Public read throughput: the company record and its 304, each against an empty route.

The served process (`python -m frontdoor.serve`, granian, 1 worker) answers wrk from a
second process. Figures are ratios to /healthz served by the same process in the same run:
company/empty (goal >= 0.8) and 304/empty (goal >= 0.9). In the same rounds, the same app
bare on granian's WSGI interface (no front: `create_served_app` as granian's WSGI target) answers
the company record too, and company/bare (goal >= 0.85) is what the front that reads bodies
under a deadline costs a read. Then the same Flask app under uvicorn through a2wsgi
(bench/asgi_flask.py), and granian's empty route against uvicorn's (goal >= 3).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
COMPANY = "/api/public/v1/company"
EMPTY = "/healthz"
# The machine has 2 cores: one for the server, one for wrk.
WRK_ARGS = ("-t1", "-c32")
RUN = "5s"
WARM_UP = "2s"
ROUNDS = 3
GOALS = {
    "company_vs_empty": 0.8,
    "not_modified_vs_empty": 0.9,
    "company_vs_bare_wsgi": 0.85,
    "granian_vs_uvicorn_empty": 3.0,
}
# The served WSGI app alone on granian's WSGI interface: what the front is measured against.
BARE_WSGI = ["-m", "granian", "--interface", "wsgi", "--factory", "--workers", "1"]
BARE_WSGI += ["--no-access-log", "frontdoor.serve:create_served_app"]
BOOTSTRAP_KEYS = {
    "CONTENT_API_KEY": "bench-content-key-0123456789",
    "SIGNALS_API_KEY": "bench-signals-key-0123456789",
    "INGEST_API_KEY": "bench-ingest-key-01234567890",
}


def report(figures: Mapping[str, float]) -> dict[str, Any]:
    """Ratios and goals from requests/s figures (pure: the tests feed it fake figures)."""
    empty = figures["granian_empty"]
    ratios = {
        "company_vs_empty": figures["granian_company"] / empty,
        "not_modified_vs_empty": figures["granian_company_304"] / empty,
        "company_vs_bare_wsgi": figures["granian_company"] / figures["bare_wsgi_company"],
        "granian_vs_uvicorn_empty": empty / figures["uvicorn_empty"],
    }
    return {
        "requests_per_second": {name: round(value, 1) for name, value in figures.items()},
        "ratios": {name: round(value, 3) for name, value in ratios.items()},
        "goals": GOALS,
        "goals_met": {name: ratios[name] >= goal for name, goal in GOALS.items()},
        "load": (
            f"wrk {' '.join(WRK_ARGS)} -d{RUN} per route after a {WARM_UP} warm-up;"
            f" best of {ROUNDS} interleaved rounds"
        ),
    }


def format_report(result: Mapping[str, Any]) -> str:
    """The figures and ratios as lines for the terminal."""
    lines = [
        f"  {name:<24} {rps:>10,.1f} req/s" for name, rps in result["requests_per_second"].items()
    ]
    for name, ratio in result["ratios"].items():
        verdict = "ok" if result["goals_met"][name] else "BELOW GOAL"
        lines.append(f"  {name:<24} {ratio:>10.2f}x  (goal >= {GOALS[name]}x: {verdict})")
    return "\n".join(lines)


def main() -> dict[str, Any]:
    """Measure both servers in one run and print the report."""
    with tempfile.TemporaryDirectory(prefix="bench-public-read-") as data_dir:
        figures: dict[str, float] = {}
        with (
            Served(["-m", "frontdoor.serve"], data_dir) as base,
            Served(BARE_WSGI, data_dir, port_flag=True) as bare,
        ):
            etag = _etag(base + COMPANY)
            routes = {
                "granian_empty": (base + EMPTY, ()),
                "granian_company": (base + COMPANY, ()),
                "granian_company_304": (base + COMPANY, (f"If-None-Match: {etag}",)),
                "bare_wsgi_company": (bare + COMPANY, ()),
            }
            for url, headers in routes.values():
                wrk(url, headers, duration=WARM_UP)
            # Interleaved rounds, best of each: a burst of load elsewhere on the machine
            # then lowers one run, not one route.
            for _round in range(ROUNDS):
                for name, (url, headers) in routes.items():
                    figures[name] = max(figures.get(name, 0.0), wrk(url, headers))
        uvicorn = ["-m", "uvicorn", "--factory", "bench.asgi_flask:create_asgi_app"]
        uvicorn += ["--workers", "1", "--log-level", "warning", "--no-access-log"]
        with Served(uvicorn, data_dir, port_flag=True) as base:
            wrk(base + EMPTY, (), duration=WARM_UP)
            for _round in range(ROUNDS):
                for name, path in (("uvicorn_empty", EMPTY), ("uvicorn_company", COMPANY)):
                    figures[name] = max(figures.get(name, 0.0), wrk(base + path, ()))
    result = report(figures)
    print(format_report(result))
    return result


def wrk(url: str, headers: Sequence[str], *, duration: str = RUN) -> float:
    """Requests/s of one wrk run; any socket error or unexpected status fails the bench."""
    cmd = ["wrk", *WRK_ARGS, f"-d{duration}"]
    for header in headers:
        cmd += ["-H", header]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    if "Non-2xx or 3xx responses" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw errors on {url}:\n{out}")
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if match is None:
        raise RuntimeError(f"no Requests/sec in wrk output:\n{out}")
    return float(match.group(1))


def _etag(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310  # loopback only
        etag: str = resp.headers["ETag"]
        return etag


class Served:
    """A server process in its own group on a free port, ready once /healthz answers."""

    def __init__(
        self,
        args: list[str],
        data_dir: str,
        *,
        port_flag: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._port = free_port()
        self._args = (
            [*args, "--host", "127.0.0.1", "--port", str(self._port)] if port_flag else args
        )
        self._env = {
            **os.environ,
            **BOOTSTRAP_KEYS,
            "DATA_DIR": data_dir,
            "PORT": str(self._port),
            "HOST": "127.0.0.1",
            "WORKERS": "1",
            # wrk sends far more than one address's limit: the limiter still counts every
            # request (its cost is in the figures), but at a limit the load never reaches.
            "RATE_LIMIT_PUBLIC": "1000000000",
            **(env or {}),
        }
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = Path(data_dir) / f"server-{self._port}.log"

    def __enter__(self) -> str:
        with self._log.open("wb") as log:  # the child keeps its own descriptor
            self._proc = subprocess.Popen(
                [sys.executable, *self._args],
                cwd=REPO,
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{self._port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = self._log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{self._args} exited with {self._proc.returncode}:\n{tail}")
            try:
                with urllib.request.urlopen(base + EMPTY, timeout=1):  # noqa: S310  # loopback
                    return base
            except OSError:
                time.sleep(0.1)
        self.__exit__()
        raise RuntimeError(f"{self._args} not ready after 30 s")

    def __exit__(self, *_exc: object) -> None:
        # Stop the whole group: granian's parent does not always stop its worker (notes/serving.md).
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGTERM)
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait(10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
