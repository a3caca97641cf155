"""STYLE "Pure logic and I/O" and "Wire once": dependency rules read from the source with ast.

The layers: architecture.toml says which of our packages each package may import; every import
of ours that it does not allow fails here (the domain below schemas and the ports, no adapter
importing another, the terraform renderer never reaching into an adapter). Pure logic (domain/,
schemas/, gate/, renderers/, workers/pipeline.py and workers/steps.py) never imports a cloud
client, a web framework or an HTTP client, not even through one of our own modules, and never
reads the environment or the clock.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIRST_PARTY = (
    "api",
    "backends",
    "bench",
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
    return imports_in(parse(path))


def imports_in(tree: ast.Module) -> set[str]:
    """The modules a parsed file imports at run time."""
    found: set[str] = set()
    for node in _runtime_nodes(tree):
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


@pytest.mark.parametrize("path", LAYERED_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_import_of_ours_is_one_architecture_toml_allows(path: Path) -> None:
    """A package imports only the packages below it: the domain imports none of ours."""
    assert layer_breaks(module_name(path), parse(path)) == []


@pytest.mark.parametrize(
    ("path", "old_import"),
    [
        ("schemas/content/changes.py", "from backends.ports import PageStatus, StoredPage"),
        ("renderers/terraform_indexes.py", "from backends.gcp.indexes import CompositeIndex"),
        ("backends/gcp/idempotency.py", "from backends.embedded.idempotency import entry_id"),
        ("domain/pages.py", "from schemas.content.pages import SitePageInput"),
    ],
)
def test_putting_back_an_import_that_broke_the_layers_fails_the_check(
    path: str, old_import: str
) -> None:
    """The three imports issue 17 found (and the domain reaching up) are each caught again."""
    source = (REPO / path).read_text(encoding="utf-8")
    module = module_name(REPO / path)

    assert layer_breaks(module, ast.parse(source)) == []
    assert len(layer_breaks(module, ast.parse(f"{old_import}\n{source}"))) == 1


def test_the_layer_table_names_only_packages_that_exist() -> None:
    """A package renamed or removed must not leave a rule that guards nothing."""
    for package, allowed in LAYERS.items():
        for name in (package, *allowed):
            assert module_path(name) is not None, name


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


@pytest.mark.parametrize("path", python_files("workers"), ids=lambda p: str(p.relative_to(REPO)))
def test_workers_never_import_the_api_even_through_our_own_modules(path: Path) -> None:
    """STYLE Layout: the HTTP surface and the workers meet in services, never in each other."""
    assert sorted(name for name in reachable(path) if name.split(".")[0] == "api") == []


def test_the_rules_see_the_packages_they_guard() -> None:
    """Guards the walk itself: a moved package must not make these tests pass vacuously."""
    names = {module_name(path) for path in PURE_FILES}

    assert {"schemas.public", "schemas.content.pages"} <= names
    assert "flask" in imports_of(REPO / "api" / "app.py")
    assert "backends.ports" in reachable(REPO / "api" / "auth.py")


def test_the_readme_draws_the_same_layer_table_as_architecture_toml() -> None:
    """README "Layers": one row per package, naming what it may import, as the rule says."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Layers", 1)[1].split("\n#", 1)[0]
    rows = {
        cells[0].split()[0].strip("`"): cells[1]
        for line in section.splitlines()
        if line.startswith("| `")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    below_top = [name for name in LAYERS if name not in ("frontdoor", "bench")]

    assert set(rows) == set(LAYERS)
    for package in below_top:
        drawn = [] if rows[package] == "nothing of ours" else rows[package].split(", ")
        assert [name.strip("`") for name in drawn] == list(LAYERS[package]), package
    assert set(LAYERS["frontdoor"]) == set(below_top) - {"frontdoor"}
    assert set(LAYERS["bench"]) == set(LAYERS) - {"bench"}


def _private_names(paths: Iterator[Path] | list[Path]) -> set[str]:
    """Names starting with one underscore that these files define (functions, classes,
    attributes assigned through `self.`, module-level names)."""
    found: set[str] = set()
    for path in paths:
        for node in ast.walk(parse(path)):
            name = None
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = node.name
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                name = node.attr
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                name = node.id
            if name and name.startswith("_") and not name.startswith("__"):
                found.add(name)
    return found


def mcp_private_uses(tree: ast.Module, sdk_private: set[str], ours: set[str]) -> list[str]:
    """Imports of a private module or name of the `mcp` package, and `._name` attribute reads
    of a private name the SDK defines and we do not."""
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "mcp":
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            uses += [n for n in names if any(p.startswith("_") for p in n.split("."))]
        elif isinstance(node, ast.Import):
            uses += [
                a.name
                for a in node.names
                if a.name.split(".")[0] == "mcp"
                and any(p.startswith("_") for p in a.name.split("."))
            ]
        elif isinstance(node, ast.Attribute) and node.attr in sdk_private and node.attr not in ours:
            uses.append(f".{node.attr} (line {node.lineno})")
    return uses


OUR_FILES = LAYERED_FILES + python_files("tests")


def test_no_private_name_of_the_mcp_sdk_is_used_anywhere() -> None:
    """Issue 17: only the SDK's public API; a private helper can change in any release."""
    import mcp

    sdk_files = sorted(Path(mcp.__file__).parent.rglob("*.py"))
    sdk_private = _private_names(sdk_files)
    ours = _private_names(OUR_FILES)
    synthetic = ast.parse(
        "from mcp.server.transport_security import TransportSecurityMiddleware\n"
        "TransportSecurityMiddleware(None)._validate_host('x')\n"
        "from mcp.server.streamable_http import _private\n"
    )

    assert "_validate_host" in sdk_private
    assert {
        str(path.relative_to(REPO)): uses
        for path in OUR_FILES
        if (uses := mcp_private_uses(parse(path), sdk_private, ours))
    } == {}
    assert mcp_private_uses(synthetic, sdk_private, ours) == [
        "mcp.server.streamable_http._private",
        "._validate_host (line 2)",
    ]


def test_every_package_of_ours_ships_in_the_image_and_the_wheel() -> None:
    """A package the Dockerfile does not copy, or pyproject does not list, fails only in
    production; bench/ and tests/ stay out of both."""
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = [package for package in FIRST_PARTY if package != "bench"]

    for package in shipped:
        assert f"COPY {package}/ {package}/" in dockerfile, package
        assert f"{package}*" in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
        assert package in pyproject["tool"]["mypy"]["packages"], package
