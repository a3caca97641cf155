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
import importlib
import inspect
import sys
import textwrap
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
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
    """Imports that once broke the layers (and the domain reaching up) are each caught again."""
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
    tools = ("devtools", "bench")
    below_top = [name for name in LAYERS if name not in ("frontdoor", *tools)]

    assert set(rows) == set(LAYERS)
    for package in below_top:
        drawn = [] if rows[package] == "nothing of ours" else rows[package].split(", ")
        assert [name.strip("`") for name in drawn] == list(LAYERS[package]), package
    assert set(LAYERS["frontdoor"]) == set(below_top) - {"frontdoor"}
    for tool in tools:
        assert set(LAYERS[tool]) == set(LAYERS) - set(tools), tool


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
    """Only the SDK's public API; a private helper can change in any release."""
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
    production; bench/, devtools/ and tests/ stay out of both and are still type-checked."""
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    included = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    unshipped = ("bench", "devtools")

    for package in FIRST_PARTY:
        shipped = package not in unshipped
        assert (f"COPY {package}/ {package}/" in dockerfile) is shipped, package
        assert (f"{package}*" in included) is shipped, package
        assert package in pyproject["tool"]["mypy"]["packages"], package


WEB_FRAMEWORKS = ("flask", "werkzeug", "starlette", "functions_framework")


@pytest.mark.parametrize("path", python_files("services"), ids=lambda p: str(p.relative_to(REPO)))
def test_services_never_import_a_web_framework_even_through_our_own_modules(path: Path) -> None:
    """A use case is decided in services/ for every caller (views, workers, the CLI), so it
    never reaches for a request, a response or an HTTP error of Flask's or Starlette's."""
    offenders = {
        f"{name} imports {imported}"
        for name, module in reachable(path).items()
        for imported in imports_of(module)
        if imported.split(".")[0] in WEB_FRAMEWORKS
    }

    assert sorted(offenders) == []


def is_dependency(module: str) -> bool:
    """A third-party module: neither ours (tests included) nor the standard library."""
    top = module.split(".")[0]
    return top not in (*FIRST_PARTY, "tests") and top not in sys.stdlib_module_names


# Dependencies whose classes are looked into (imported, their members and `self._x` read):
# the ones we subclass or hold objects of in the request path. The rest are checked from the
# source alone (private imports, `_x` on a module), which needs no import of a large SDK.
INTROSPECTED = (
    "werkzeug",
    "flask",
    "starlette",
    "mcp",
    "a2wsgi",
    "cachetools",
    "functions_framework",
    "click",
    "jinja2",
    "pydantic",
    "pydantic_settings",
    "httpx",
)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@functools.cache
def dependency_private_names(klass: type) -> frozenset[str]:
    """The private names a dependency's class and its third-party bases define: class members
    (slots included) and the `self._x` attributes their methods use."""
    found: set[str] = set()
    for base in klass.__mro__[1:]:
        found |= dependency_private_names(base)
    if not is_dependency(klass.__module__):
        return frozenset(found)
    found.update(name for name in vars(klass) if _is_private(name))
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):  # compiled (granian, pydantic_core): its members only
        return frozenset(found)
    found.update(
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and _is_private(node.attr)
    )
    return frozenset(found)


def _dependency_bindings(nodes: list[ast.AST]) -> tuple[dict[str, object], set[str]]:
    """Local names bound at run time to an object imported from an introspected dependency
    (`from werkzeug.datastructures import Headers`), and names bound to any dependency's
    module by `import` (`import werkzeug`)."""
    bound: dict[str, object] = {}
    modules: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_dependency(alias.name):
                    modules.add(alias.asname or alias.name.split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in INTROSPECTED
        ):
            module = importlib.import_module(node.module)
            for alias in node.names:
                if alias.name != "*" and hasattr(module, alias.name):
                    bound[alias.asname or alias.name] = getattr(module, alias.name)
    return bound, modules


def _resolve(node: ast.expr, bound: Mapping[str, object]) -> object | None:
    """The dependency object a name or dotted name stands for, else None."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value, bound)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


def _on_a_module(node: ast.expr, modules: set[str]) -> bool:
    """Whether a dotted name starts at a dependency's module (`werkzeug.serving`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in modules


def dependency_private_uses(tree: ast.Module, ours: set[str]) -> list[str]:
    """Where a file reaches into a dependency: a private module or name imported from one,
    an `_x` attribute of a dependency's module, `self._x` in a subclass of a dependency's class
    when that class defines `_x`, and `._x` on anything when a dependency's class or object this
    file imports defines `_x` and none of our own code does."""
    uses: list[str] = []
    nodes = list(_runtime_nodes(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            uses += [
                a.name
                for a in node.names
                if is_dependency(a.name) and any(_is_private(p) for p in a.name.split("."))
            ]
        elif isinstance(node, ast.ImportFrom) and node.module and is_dependency(node.module):
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            uses += [n for n in names if any(_is_private(p) for p in n.split("."))]
    bound, modules = _dependency_bindings(nodes)
    classes = [obj if isinstance(obj, type) else type(obj) for obj in bound.values()]
    imported_private = set().union(*(dependency_private_names(c) for c in classes))
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            bases = [base for b in node.bases if isinstance(base := _resolve(b, bound), type)]
            inherited = set().union(*(dependency_private_names(b) for b in bases))
            uses += (
                [
                    f"self.{a.attr} (line {a.lineno}, inherited from a dependency's class)"
                    for a in ast.walk(node)
                    if isinstance(a, ast.Attribute)
                    and isinstance(a.value, ast.Name)
                    and a.value.id == "self"
                    and a.attr in inherited
                ]
                if inherited
                else []
            )
        elif (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and (
                _on_a_module(node.value, modules)
                or (node.attr in imported_private and node.attr not in ours)
            )
        ):
            uses.append(f".{node.attr} (line {node.lineno})")
    return sorted(set(uses))


def test_no_private_name_of_a_dependency_is_used_anywhere() -> None:
    """Only the public API of what we install (werkzeug's, Flask's, Starlette's, the MCP SDK's,
    every one): a private name can change or vanish in any release without a word."""
    ours = _private_names(OUR_FILES)
    synthetic = ast.parse(
        "from werkzeug.datastructures import Headers\n"
        "from werkzeug._internal import _log\n"
        "import werkzeug\n"
        "class Checked(Headers):\n"
        "    def __init__(self) -> None:\n"
        "        self._list = []\n"
        "        self._own = 1\n"
        "werkzeug._internal\n"
        "Headers()._list\n"
    )

    assert {
        str(path.relative_to(REPO)): uses
        for path in OUR_FILES
        if (uses := dependency_private_uses(parse(path), ours))
    } == {}
    assert dependency_private_uses(synthetic, ours - {"_list"}) == [
        "._internal (line 8)",
        "._list (line 6)",
        "._list (line 9)",
        "self._list (line 6, inherited from a dependency's class)",
        "werkzeug._internal",
        "werkzeug._internal._log",
    ]


def context_variables(tree: ast.Module) -> list[str]:
    """Each use of `contextvars` in a module, as `name (line n)`."""
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "contextvars":
            uses += [f"{alias.name} (line {node.lineno})" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if alias.name == "contextvars"]
            uses += [f"{name} (line {node.lineno})" for name in names]
    return uses


def test_no_module_of_the_authorization_server_passes_values_through_a_context_variable() -> None:
    """The OAuth endpoints hand the provider what it needs as arguments: a value a wrapper
    sets in a ContextVar and the provider reads is a call between layers no signature shows."""
    synthetic = ast.parse(
        "from contextvars import ContextVar\nimport contextvars\n"
        "resource: ContextVar[str] = ContextVar('resource')\n"
    )

    assert {
        str(path.relative_to(REPO)): uses
        for path in python_files("api/oauth")
        if (uses := context_variables(parse(path)))
    } == {}
    assert context_variables(synthetic) == ["ContextVar (line 1)", "contextvars (line 2)"]
