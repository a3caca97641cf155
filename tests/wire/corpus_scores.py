"""The gate's precision and recall on a folder of recorded answers, on the first writer call.

A planted fault is a `[field, code, severity]` a case lists; the gate finds it when a finding on
the first answer has that field and code (and severity). Precision counts blocking findings:
every error on a clean answer, and every error on a faulty answer that is not planted, is a
false positive. Warnings on clean answers are allowed and only counted. Run it:

    .venv/bin/python -m tests.wire.corpus_scores tests/wire/recorded tests/wire/held_out
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate.check import check_page
from tests.workers.generation_ports import CATALOG


@dataclass
class Scores:
    """Counts over one folder's cases."""

    cases: int = 0
    planted: int = 0
    found: int = 0
    false_errors: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    warnings_on_clean: list[str] = field(default_factory=list)
    unfixed: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.planted if self.planted else 1.0

    @property
    def precision(self) -> float:
        flagged = self.found + len(self.false_errors)
        return self.found / flagged if flagged else 1.0


def findings(case: dict[str, Any], answer: int) -> list[tuple[str, str, str]]:
    """(field, code, severity) of every gate finding on one answer of a case."""
    issues = check_page(case["answers"][answer], brand=CATALOG.brand, brief=case["brief"])
    return [(i.field, i.code, getattr(i, "severity", "error")) for i in issues]


def score(folder: Path) -> Scores:
    """The gate's scores on every case of `folder`."""
    scores = Scores()
    for path in sorted(folder.glob("*.json")):
        case = json.loads(path.read_text())
        scores.cases += 1
        planted = {tuple(f) for f in case["faults"]}
        first = findings(case, 0)
        scores.planted += len(planted)
        named = {(f, c) for f, c, _s in first}
        for fault in planted:
            if fault in set(first) or (len(fault) == 2 and fault[:2] in named):
                scores.found += 1
            else:
                scores.missed.append(f"{path.stem}: {fault}")
        for finding in first:
            if finding in planted:
                continue
            where = f"{path.stem}: {finding}"
            if finding[2] == "error":
                scores.false_errors.append(where)
            elif not planted:
                scores.warnings_on_clean.append(where)
        last = [f for f in findings(case, -1) if f[2] == "error"]
        if last:
            scores.unfixed.append(f"{path.stem}: {last}")
    return scores


def report(folder: Path) -> str:
    """One folder's scores as lines of text."""
    s = score(folder)
    lines = [
        f"{folder}: {s.cases} cases, {s.planted} planted faults, "
        f"recall {s.found}/{s.planted} = {s.recall:.2f}, "
        f"precision {s.found}/{s.found + len(s.false_errors)} = {s.precision:.2f}, "
        f"{len(s.warnings_on_clean)} warnings on clean answers"
    ]
    lines += [f"  missed {m}" for m in s.missed]
    lines += [f"  false error {m}" for m in s.false_errors]
    lines += [f"  warning {m}" for m in s.warnings_on_clean]
    lines += [f"  last answer still refused {m}" for m in s.unfixed]
    return "\n".join(lines)


def main(folders: list[str]) -> None:
    """Print the scores of each folder."""
    for folder in folders:
        sys.stdout.write(report(Path(folder)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:] or ["tests/wire/recorded"])
