"""`make bench`: run every bench/bench_*.py module's main() and write bench/results/<name>.json."""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def run(names: list[str]) -> int:
    """Run the named benchmarks (all when none is named); 1 if any failed."""
    modules = sorted(
        info.name
        for info in pkgutil.iter_modules([str(RESULTS.parent)])
        if info.name.startswith("bench_") and (not names or info.name in names)
    )
    RESULTS.mkdir(exist_ok=True)
    failed = 0
    for name in modules:
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"bench.{name}")
        try:
            result = module.main()
        except Exception as err:  # noqa: BLE001  # top-level runner: report, go on with the next
            print(f"{name} failed: {err!r}", file=sys.stderr)
            failed += 1
            continue
        path = RESULTS / f"{name.removeprefix('bench_')}.json"
        path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(RESULTS.parent.parent)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
