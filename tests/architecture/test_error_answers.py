"""STYLE "One room per decision": an error answer is built in one module, api/errors.py (its
status, code, title and shape), and the use cases in services/ know nothing of HTTP: they raise
domain errors that api/errors.py maps to answers."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.architecture.source import LAYERED_FILES, REPO, imports_of, parse

ERRORS = REPO / "api" / "errors.py"
WEB_FRAMEWORKS = ("flask", "werkzeug", "starlette", "granian")


def answers_built(path: Path) -> list[str]:
    """Each place `path` constructs an ApiError (an error answer), by line."""
    return [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for node in ast.walk(parse(path))
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "ApiError")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "ApiError")
        )
    ]


def test_no_module_but_api_errors_builds_an_error_answer() -> None:
    built = [place for path in LAYERED_FILES if path != ERRORS for place in answers_built(path)]

    assert built == []


def test_api_errors_builds_them() -> None:
    """The check above reads calls the way api/errors.py makes them: it finds its own."""
    assert answers_built(ERRORS) != []


def test_no_use_case_imports_a_web_framework() -> None:
    services = [p for p in LAYERED_FILES if p.relative_to(REPO).parts[0] == "services"]
    found = {
        str(path.relative_to(REPO)): sorted(
            name for name in imports_of(path) if name.split(".")[0] in WEB_FRAMEWORKS
        )
        for path in services
    }

    assert {path: names for path, names in found.items() if names} == {}
