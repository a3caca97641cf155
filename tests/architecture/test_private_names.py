"""STYLE "Use libraries through their public API": no private name of the MCP SDK or of
another dependency is used by our code or our tests, and the authorization server passes no
value through a context variable (each endpoint takes what it needs as arguments)."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.architecture.source import (
    FIRST_PARTY,
    LAYERED_FILES,
    REPO,
    parse,
    python_files,
    runtime_nodes,
)


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
    nodes = list(runtime_nodes(tree))
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
