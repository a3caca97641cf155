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
import tomllib
from pathlib import Path

import pytest

from tests.architecture.source import (
    FIRST_PARTY,
    IO_LIBRARIES,
    LAYERED_FILES,
    LAYERS,
    PURE,
    REPO,
    imports_of,
    impure_calls,
    layer_breaks,
    module_name,
    module_path,
    parse,
    python_files,
    reachable,
)


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
        ("api/rest/content.py", "from backends.bundle import Backends"),
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


VIEW_FILES = [
    path for package in ("api/rest", "api/tools", "api/oauth") for path in python_files(package)
]


@pytest.mark.parametrize("path", VIEW_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_views_import_no_backend_adapter_or_the_bundle_only_the_ports(path: Path) -> None:
    """The app factory hands each surface the ports or the use-case unit it needs: a view (REST,
    MCP tool, OAuth route) speaks to the ports' types and errors alone, even through our own
    modules, and never reaches an adapter, a backend helper or the whole Backends."""
    reached = {
        f"{name} imports {imported}"
        for name, module in reachable(path).items()
        for imported in imports_of(module)
        if imported.split(".")[0] == "backends"
        and not (imported == "backends.ports" or imported.startswith("backends.ports."))
    }

    assert sorted(reached) == []


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
