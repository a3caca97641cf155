"""DESIGN Operator CLI: `frontdoor keys issue|revoke|list` on the same backends as the service."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from api.app import create_app
from frontdoor.cli import cli
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from services.keys import parse_key_id

PAGES = "/api/public/content/pages"


def frontdoor(data_dir: Path, *args: str) -> Result:
    """Run `frontdoor ARGS` against this DATA_DIR with no bootstrap keys in the environment."""
    env = {"DATA_DIR": str(data_dir), "CONTENT_API_KEY": "", "SIGNALS_API_KEY": ""}
    return CliRunner().invoke(cli, list(args), env={**env, "INGEST_API_KEY": ""}, obj={})


def issue(data_dir: Path, scope: str = "content") -> tuple[str, str]:
    """Issue a key; its id and the raw key as the CLI printed them."""
    result = frontdoor(data_dir, "keys", "issue", "--partner", "acme", "--scope", scope)
    assert result.exit_code == 0, result.output
    header, raw = result.stdout.strip().splitlines()
    return header.split()[2], raw


def secret_of(raw: str) -> str:
    """The secret part of an issued `fdk_<scope>_<key_id>_<secret>` key (the secret itself
    may hold `_`, so not what follows the last one)."""
    parsed = parse_key_id(raw)
    assert parsed is not None, raw
    scope, key_id = parsed
    return raw.removeprefix(f"fdk_{scope}_{key_id}_")


def test_issue_prints_the_key_once_with_its_id_and_a_warning_to_store_it(data_dir: Path) -> None:
    """DESIGN Configuration: keys are issued per partner with the CLI and shown once."""
    result = frontdoor(data_dir, "keys", "issue", "--partner", "acme", "--scope", "signals")

    header, raw = result.stdout.strip().splitlines()
    assert result.exit_code == 0
    assert raw.startswith("fdk_signals_")
    assert result.stdout.count(raw) == 1
    assert "not shown again" in header
    assert "acme" in header


def test_issue_quiet_prints_only_the_key_for_shell_scripts(data_dir: Path) -> None:
    """README: `export KEY=$(frontdoor keys issue --partner me --scope content --quiet)`."""
    result = frontdoor(
        data_dir, "keys", "issue", "--partner", "me", "--scope", "content", "--quiet"
    )

    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert result.stdout.startswith("fdk_content_")


def test_issue_refuses_an_unknown_scope(data_dir: Path) -> None:
    """DESIGN Configuration: the scopes are content, signals and ingest."""
    result = frontdoor(data_dir, "keys", "issue", "--partner", "acme", "--scope", "admin")

    assert result.exit_code == 2
    assert "admin" in result.stderr


@pytest.mark.parametrize("partner", ["", " ", "a b", "ops/x", "x" * 65])
def test_issue_refuses_a_partner_name_that_is_empty_or_not_a_plain_name(
    data_dir: Path, partner: str
) -> None:
    """Pages belong to a partner by name: `--partner "$UNSET"` must not make one partner of
    every key issued that way. Nothing is issued."""
    result = frontdoor(data_dir, "keys", "issue", "--partner", partner, "--scope", "content")
    listed = frontdoor(data_dir, "keys", "list")

    assert result.exit_code == 2
    assert "--partner" in result.stderr
    assert "content" not in listed.stdout


def test_issue_refuses_a_partner_name_that_differs_from_a_known_one_only_in_case(
    data_dir: Path,
) -> None:
    """Pages belong to a partner by its exact name, so a key issued for `ACME` when
    keys for `acme` exist would be a stranger to acme's pages (404 on each, 409 `slug_taken`
    on its own slugs). Nothing is issued; the message names the known spelling."""
    issue(data_dir)

    result = frontdoor(data_dir, "keys", "issue", "--partner", "ACME", "--scope", "signals")
    listed = frontdoor(data_dir, "keys", "list")

    assert result.exit_code == 2
    assert "--partner" in result.stderr
    assert "'acme'" in result.stderr
    assert "signals" not in listed.stdout
    assert "ACME" not in listed.stdout


def test_list_shows_every_key_by_id_partner_and_scope_but_never_a_secret(data_dir: Path) -> None:
    """Keys are stored hashed: the list shows ids, partners and scopes only."""
    content_id, content_raw = issue(data_dir, "content")
    signals_id, signals_raw = issue(data_dir, "signals")

    result = frontdoor(data_dir, "keys", "list")

    assert result.exit_code == 0
    assert content_id in result.stdout
    assert signals_id in result.stdout
    for raw in (content_raw, signals_raw):
        assert raw not in result.stdout
        assert secret_of(raw) not in result.stdout


def test_revoke_marks_the_key_revoked_in_the_list(data_dir: Path) -> None:
    """DESIGN Configuration: keys are revoked per partner with the CLI."""
    key_id, _raw = issue(data_dir)

    revoked = frontdoor(data_dir, "keys", "revoke", key_id)
    listed = frontdoor(data_dir, "keys", "list")

    assert revoked.exit_code == 0
    assert f"revoked {key_id}" in revoked.stdout
    row = next(line for line in listed.stdout.splitlines() if key_id in line)
    assert len(re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", row)) == 2


def test_revoking_a_key_already_revoked_says_so_with_when_and_exits_0(data_dir: Path) -> None:
    """Writes are idempotent: a second revoke changes nothing, says the key was already revoked
    (with the time of the first), and exits 0 so a script may run it again."""
    key_id, _raw = issue(data_dir)
    first = frontdoor(data_dir, "keys", "revoke", key_id)
    listed = frontdoor(data_dir, "keys", "list")
    row = next(line for line in listed.stdout.splitlines() if key_id in line)
    revoked_at = re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", row)[1]

    again = frontdoor(data_dir, "keys", "revoke", key_id)

    assert first.exit_code == 0
    assert again.exit_code == 0, again.output
    assert again.stdout.startswith(f"{key_id} was already revoked at {revoked_at}")
    assert frontdoor(data_dir, "keys", "list").stdout == listed.stdout


def test_revoke_help_says_revoking_again_is_harmless(data_dir: Path) -> None:
    """`frontdoor keys revoke --help` tells an operator a second revoke changes nothing."""
    result = frontdoor(data_dir, "keys", "revoke", "--help")

    assert result.exit_code == 0
    assert "already revoked" in result.stdout


def test_revoking_an_unknown_key_id_exits_1_with_a_message(data_dir: Path) -> None:
    """An unknown key id is an operator error: exit code 1 and a message on stderr."""
    result = frontdoor(data_dir, "keys", "revoke", "no-such-key")

    assert result.exit_code == 1
    assert "no key with id no-such-key" in result.stderr


def test_revoke_takes_the_key_itself_and_never_prints_its_secret(data_dir: Path) -> None:
    """An operator often holds the key, not its id: revoking by the key revokes that key, and
    the secret is not echoed to the terminal (nor to its scrollback or a CI log)."""
    key_id, raw = issue(data_dir)

    revoked = frontdoor(data_dir, "keys", "revoke", raw)

    assert revoked.exit_code == 0, revoked.output
    assert f"revoked {key_id}" in revoked.stdout
    assert secret_of(raw) not in revoked.output
    listed = frontdoor(data_dir, "keys", "list")
    row = next(line for line in listed.stdout.splitlines() if key_id in line)
    assert len(re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", row)) == 2


def test_revoking_an_unknown_key_by_the_key_itself_never_prints_its_secret(data_dir: Path) -> None:
    secret = "S3cretPartOfTheKey0123456789abcdefghijklmno"

    result = frontdoor(data_dir, "keys", "revoke", f"fdk_content_0123456789ab_{secret}")

    assert result.exit_code == 1
    assert "no key with id 0123456789ab" in result.stderr
    assert secret not in result.output


@pytest.mark.parametrize("argument", ["../x", "a/b", "", "fdk_content_x_"])
def test_revoke_refuses_what_no_key_id_could_be_without_asking_the_store(
    data_dir: Path, argument: str
) -> None:
    """Firestore refuses `..` or `a/b` as a document id with an error that is no "not found"."""
    result = frontdoor(data_dir, "keys", "revoke", argument)

    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert "no key with id" in result.stderr


def test_a_cli_issued_key_opens_the_content_api_until_it_is_revoked(data_dir: Path) -> None:
    """SPEC Authentication: a missing or wrong key gives 401 `unauthorized`; revoked is wrong."""
    key_id, raw = issue(data_dir, "content")
    settings = Settings(data_dir=data_dir, public_base_url="http://testserver")
    backends = build_backends(settings)
    client = create_app(app_config(settings), backends).test_client()

    before = client.get(PAGES, headers={"x-api-key": raw})
    frontdoor(data_dir, "keys", "revoke", key_id)
    after = client.get(PAGES, headers={"x-api-key": raw})
    backends.close()

    assert before.status_code == 200
    assert after.status_code == 401
    assert after.get_json()["error"] == "unauthorized"


def test_a_key_of_one_scope_is_refused_on_another_surface(data_dir: Path) -> None:
    """DESIGN Configuration: a key of one scope is refused (401) on another surface."""
    _key_id, raw = issue(data_dir, "signals")
    settings = Settings(data_dir=data_dir, public_base_url="http://testserver")
    backends = build_backends(settings)
    client = create_app(app_config(settings), backends).test_client()

    response = client.get(PAGES, headers={"x-api-key": raw})
    backends.close()

    assert response.status_code == 401
