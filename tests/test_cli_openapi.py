"""DESIGN "Operator CLI": `frontdoor openapi` prints the document the service serves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends.content_files import load_catalog
from frontdoor.cli import cli
from frontdoor.settings import Settings
from schemas.openapi.document import build_openapi


@pytest.mark.spec("cli.openapi")
def test_cli_openapi_prints_the_served_document(tmp_path: Path) -> None:
    """DESIGN Operator CLI: `openapi` prints the OpenAPI 3.1 document."""
    result = CliRunner().invoke(
        cli, ["openapi", "--base-url", "https://api.example"], env={"DATA_DIR": str(tmp_path)}
    )

    expected = build_openapi(
        base_url="https://api.example", catalog=load_catalog(Settings().content_dir)
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == expected


@pytest.mark.spec("cli.openapi")
def test_cli_openapi_names_the_external_issuer_the_served_document_names(tmp_path: Path) -> None:
    """With OAUTH_ISSUER set, the served document's OAuth flow points at that issuer; the
    printed one is the same document."""
    issuer = "https://login.example.com"
    env = {"DATA_DIR": str(tmp_path), "OAUTH_ISSUER": issuer}

    result = CliRunner().invoke(cli, ["openapi", "--base-url", "https://api.example"], env=env)

    served = build_openapi(
        base_url="https://api.example",
        auth_url=issuer,
        catalog=load_catalog(Settings().content_dir),
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == served
    assert issuer in json.dumps(json.loads(result.output)["components"]["securitySchemes"])
