"""Our source read with ast: its files, their imports (at run time, not under TYPE_CHECKING),
what each reaches through our own modules, and the layer table of architecture.toml."""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIRST_PARTY = (
    "api",
    "backends",
    "bench",
    "devtools",
    "domain",
    "frontdoor",
    "gate",
    "renderers",
    "schemas",
    "services",
    "workers",
)
PURE = (
    "domain",
    "schemas",
    "gate",
    "renderers",
    "workers/pipeline.py",
    "workers/steps.py",
    "workers/generation_handler.py",
    "services/job_callbacks.py",
    "workers/authoring/base.py",
    "workers/authoring/prompt.py",
    "workers/authoring/template.py",
    "workers/authoring/composer.py",
    "workers/authoring/plan.py",
    "workers/authoring/blocks.py",
    "workers/authoring/desk.py",
    "workers/authoring/head.py",
    "workers/authoring/cards.py",
    "workers/authoring/prose.py",
    "workers/authoring/steps.py",
    "workers/authoring/results.py",
    "workers/authoring/closing.py",
    "workers/authoring/library.py",
    "workers/authoring/promises.py",
    "workers/authoring/material.py",
    "workers/authoring/notes.py",
    "workers/authoring/phrasing.py",
    "workers/authoring/proof.py",
    "workers/authoring/sections.py",
    "workers/authoring/voices.py",
    "workers/imaging/compositions.py",
    "workers/imaging/base.py",
    "workers/imaging/procedural.py",
    "services/delivery_policy.py",
    "services/signing.py",
    "services/jobs.py",
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


def runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
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
    return imports_in(parse(path))


def imports_in(tree: ast.Module) -> set[str]:
    """The modules a parsed file imports at run time."""
    found: set[str] = set()
    for node in runtime_nodes(tree):
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
    for node in runtime_nodes(parse(path)):
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


LAYERS: Mapping[str, tuple[str, ...]] = {
    package: tuple(allowed)
    for package, allowed in tomllib.loads((REPO / "architecture.toml").read_text(encoding="utf-8"))[
        "may_import"
    ].items()
}


def layer_of(module: str) -> str | None:
    """The longest package of the table that holds `module` (None: a module the table omits)."""
    parts = module.split(".")
    for size in range(len(parts), 0, -1):
        name = ".".join(parts[:size])
        if name in LAYERS:
            return name
    return None


def layer_breaks(module: str, tree: ast.Module) -> list[str]:
    """Each import of ours in `module` that architecture.toml does not allow, as `a -> b`."""
    home = layer_of(module)
    if home is None:
        return [f"{module} belongs to no package of architecture.toml"]
    breaks = []
    for imported in sorted(imports_in(tree)):
        if not is_first_party(imported):
            continue
        target = layer_of(imported)
        if target != home and target not in LAYERS[home]:
            breaks.append(f"{module} -> {imported} ({home} may import: {list(LAYERS[home])})")
    return breaks


LAYERED_FILES = [path for package in FIRST_PARTY for path in python_files(package)]
