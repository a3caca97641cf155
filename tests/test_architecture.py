"""STYLE "Pure logic and I/O" and "Wire once": dependency rules read from the source with ast.

Pure logic (schemas/, gate/, renderers/, workers/pipeline.py and workers/steps.py) never
imports a cloud client, a web framework or an HTTP client, not even through one of our own
modules, and never reads the environment or the clock. api/ and workers/ never import
frontdoor/, the composition root, and workers/ never imports api/.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIRST_PARTY = (
    "api",
    "backends",
    "bench",
    "frontdoor",
    "gate",
    "renderers",
    "schemas",
    "services",
    "workers",
)
PURE = (
    "schemas",
    "gate",
    "renderers",
    "workers/pipeline.py",
    "workers/steps.py",
    "workers/generation.py",
    "workers/job_callbacks.py",
    "workers/authoring/base.py",
    "workers/authoring/claims.py",
    "workers/authoring/prompt.py",
    "workers/authoring/template.py",
    "workers/imaging/base.py",
    "workers/imaging/procedural.py",
    "workers/delivery_policy.py",
    "workers/signing.py",
)
IO_LIBRARIES = (
    "google.cloud",
    "google.genai",
    "flask",
    "werkzeug",
    "functions_framework",
    "httpx",
    "httpx2",
    "requests",
    "urllib.request",
    "http.client",
    "anthropic",
    "openai",
    "sqlite3",
)
# Calls that read the process environment or the clock; `now` is passed in instead.
IMPURE_CALLS = frozenset(
    {
        ("os", "environ"),
        ("os", "getenv"),
        ("datetime", "now"),
        ("datetime", "utcnow"),
        ("datetime", "today"),
        ("date", "today"),
        ("time", "time"),
    }
)


def python_files(target: str) -> list[Path]:
    path = REPO / target
    if path.suffix == ".py":
        return [path] if path.exists() else []
    return sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_path(name: str) -> Path | None:
    base = REPO.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


@functools.cache
def parse(path: Path) -> ast.Module:
    """The file's syntax tree, parsed once per session."""
    source = path.read_text(encoding="utf-8")
    try:
        return ast.parse(source, filename=str(path))
    except SystemError:
        # CPython 3.11's AST builder can raise a spurious recursion-depth SystemError while
        # other threads run (python/cpython#106905, pytest-dev/pytest#10763); parse again.
        return ast.parse(source, filename=str(path))


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except those under `if TYPE_CHECKING:`, which never run."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def imports_of(path: Path) -> set[str]:
    """The modules a file imports at run time (`from a import b` gives a and, if a module, a.b)."""
    found: set[str] = set()
    for node in _runtime_nodes(parse(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(
                f"{node.module}.{alias.name}"
                for alias in node.names
                if module_path(f"{node.module}.{alias.name}") is not None
            )
    return found


def is_first_party(name: str) -> bool:
    return name.split(".")[0] in FIRST_PARTY


def reachable(start: Path) -> dict[str, Path]:
    """Our own modules that `start` imports, directly or through each other (itself included)."""
    seen = {module_name(start): start}
    queue = [start]
    while queue:
        for name in imports_of(queue.pop()):
            path = module_path(name) if is_first_party(name) else None
            if path is not None and name not in seen:
                seen[name] = path
                queue.append(path)
    return seen


def impure_calls(path: Path) -> list[str]:
    """`os.environ`, `datetime.now()` and the like, as `owner.attr` with the line."""
    found = []
    for node in _runtime_nodes(parse(path)):
        if isinstance(node, ast.Attribute):
            owner = node.value
            owner_name = (
                owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            )
            if (owner_name, node.attr) in IMPURE_CALLS:
                found.append(f"{owner_name}.{node.attr} (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found.extend(
                f"from os import {a.name}" for a in node.names if a.name in ("environ", "getenv")
            )
    return found


PURE_FILES = [path for target in PURE for path in python_files(target)]


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_pure_modules_never_import_io_libraries_even_through_our_own_modules(path: Path) -> None:
    """STYLE: schemas, gate, renderers and the pipeline never import cloud or HTTP clients."""
    offenders = {
        f"{name} imports {imported}"
        for name, module in reachable(path).items()
        for imported in imports_of(module)
        if any(imported == lib or imported.startswith(f"{lib}.") for lib in IO_LIBRARIES)
    }

    assert sorted(offenders) == []


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_pure_modules_never_read_the_environment_or_the_clock(path: Path) -> None:
    """STYLE: pure logic never reads os.environ or the clock; `now` is passed in."""
    assert impure_calls(path) == []


@pytest.mark.parametrize(
    "path",
    [path for target in ("api", "workers") for path in python_files(target)],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_api_and_workers_never_import_the_composition_root(path: Path) -> None:
    """STYLE Wire once: dependencies point one way, into frontdoor/ and never out of it."""
    assert sorted(name for name in imports_of(path) if name.split(".")[0] == "frontdoor") == []


@pytest.mark.parametrize("path", python_files("workers"), ids=lambda p: str(p.relative_to(REPO)))
def test_workers_never_import_the_api_even_through_our_own_modules(path: Path) -> None:
    """STYLE Layout: the HTTP surface depends on workers, never the reverse."""
    assert sorted(name for name in reachable(path) if name.split(".")[0] == "api") == []


def test_the_rules_see_the_packages_they_guard() -> None:
    """Guards the walk itself: a moved package must not make these tests pass vacuously."""
    names = {module_name(path) for path in PURE_FILES}

    assert {"schemas.public", "schemas.content"} <= names
    assert "flask" in imports_of(REPO / "api" / "app.py")
    assert "backends.ports" in reachable(REPO / "api" / "keys.py")
