"""Cold start: process start to the first 200, and resident memory after start.

On Cloud Run both are paid on every scale-out and by every instance. Each run starts a process
in a fresh DATA_DIR and polls GET /healthz every 5 ms until it answers 200; the time from
`Popen` to that answer is the start time, and the resident memory of the whole process group
(granian's parent and its worker) is read from /proc right then. The baseline is a bare Flask
app served by granian the same way (bench/bare_flask.py), started in the same run,
interleaved with ours. Goals: the median start time at most 2x the baseline's, and the median
resident memory at most 150 MB. For information, the CPU time the group had used by then (user
and system, from /proc): on a busy machine it moves far less than the wall clock does.

Our packages are compiled to bytecode before the runs, as the image's `pip install .` compiles
them (Dockerfile): a checkout under PYTHONDONTWRITEBYTECODE (this machine's environment, and the
image's) would otherwise compile every module of ours from source at each start, which no
deployed instance does, while the baseline's Flask reads its bytecode from site-packages.

What a start does and what it leaves for first use is in the README ("What a start does, and
what waits for first use"); tests/test_cold_start.py pins it.
"""

from __future__ import annotations

import compileall
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bench.bench_public_read import BOOTSTRAP_KEYS, REPO, free_port

RUNS = 7
START_RATIO_GOAL = 2.0
RSS_GOAL_MB = 150.0
POLL = 0.005
COMMANDS = {
    "served": ["-m", "frontdoor.serve"],
    "bare_flask": ["-m", "granian", "--interface", "wsgi", "--workers", "1", "--no-ws"],
}


def main() -> dict[str, Any]:
    """RUNS interleaved starts of each; print and return the medians, the ratio and the goals."""
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in COMMANDS}
    compile_bytecode()
    for _run in range(RUNS):
        for name in COMMANDS:
            samples[name].append(start_once(name))
    result = report(samples)
    for name, figures in result["medians"].items():
        print(
            f"  {name:<12} start {figures['start_seconds']:>6.3f} s"
            f"  rss {figures['rss_mb']:>6.1f} MB  cpu {figures['cpu_seconds']:>6.3f} s"
        )
    for name, met in result["goals_met"].items():
        print(f"  {name:<22} {'ok' if met else 'BELOW GOAL'}")
    return result


def report(samples: dict[str, list[tuple[float, float, float]]]) -> dict[str, Any]:
    """Medians of (seconds to the first 200, resident MB, CPU seconds) per process, the ratios
    and the goals."""
    medians = {
        name: {
            "start_seconds": round(statistics.median(s for s, _, _ in runs), 3),
            "rss_mb": round(statistics.median(r for _, r, _ in runs), 1),
            "cpu_seconds": round(statistics.median(c for _, _, c in runs), 3),
        }
        for name, runs in samples.items()
    }
    ratio = medians["served"]["start_seconds"] / medians["bare_flask"]["start_seconds"]
    cpu_ratio = medians["served"]["cpu_seconds"] / medians["bare_flask"]["cpu_seconds"]
    return {
        "medians": medians,
        "runs": {
            name: [
                {"start_seconds": round(s, 3), "rss_mb": round(r, 1), "cpu_seconds": round(c, 3)}
                for s, r, c in runs
            ]
            for name, runs in samples.items()
        },
        "ratios": {"start_vs_bare_flask": round(ratio, 3)},
        "information": {"cpu_vs_bare_flask": round(cpu_ratio, 3)},
        "goals": {"start_vs_bare_flask": START_RATIO_GOAL, "served_rss_mb": RSS_GOAL_MB},
        "goals_met": {
            "start_vs_bare_flask": ratio <= START_RATIO_GOAL,
            "served_rss_mb": medians["served"]["rss_mb"] <= RSS_GOAL_MB,
        },
        "method": (
            f"{len(next(iter(samples.values())))} interleaved starts each, fresh DATA_DIR, "
            f"GET /healthz polled every {POLL * 1000:.0f} ms; RSS summed over the process group; "
            "our packages byte-compiled first, as the image's pip install does"
        ),
    }


def compile_bytecode() -> None:
    """The bytecode of what `pip install .` puts in the image (pyproject's packages) and of
    bench/ (the baseline's app), each in its __pycache__ (ignored by git)."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in [*(pattern.rstrip("*") for pattern in shipped), "bench"]:
        if not compileall.compile_dir(REPO / package, quiet=1):
            raise RuntimeError(f"{package} does not compile")


def start_once(name: str) -> tuple[float, float, float]:
    """Start one process, time it to its first 200, read its memory and CPU time, stop it."""
    port = free_port()
    args = [*COMMANDS[name]]
    if name == "bare_flask":
        args += ["--host", "127.0.0.1", "--port", str(port), "bench.bare_flask:app"]
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as data_dir:
        env = {
            **os.environ,
            **BOOTSTRAP_KEYS,
            "DATA_DIR": data_dir,
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "WORKERS": "1",
            "LOG_LEVEL": "WARNING",
        }
        began = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, *args],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            seconds = _first_200(f"http://127.0.0.1:{port}/healthz", proc) - began
            rss_mb, cpu_seconds = group_usage(proc.pid)
            return seconds, rss_mb, cpu_seconds
        finally:
            _stop(proc)


def _first_200(url: str, proc: subprocess.Popen[bytes]) -> float:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310  # loopback
                if resp.status == 200:
                    return time.perf_counter()
        except (OSError, urllib.error.HTTPError):
            pass
        time.sleep(POLL)
    raise RuntimeError(f"{proc.args!r} gave no 200 within 60 s")


def group_usage(pgid: int) -> tuple[float, float]:
    """Resident memory (VmRSS, MB) and CPU time used (user + system, seconds) of every process
    in the group."""
    total_kb, ticks = 0, 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            status = (entry / "status").read_text()
            stat = (entry / "stat").read_text()
        except (OSError, ProcessLookupError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
        fields = stat.rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total_kb / 1024, ticks / os.sysconf("SC_CLK_TCK")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    # The whole group: granian's parent does not always stop its worker (notes/serving.md).
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


if __name__ == "__main__":
    main()
