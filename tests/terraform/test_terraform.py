"""terraform/ agrees with the app: variables, references, env, push endpoints, names, indexes.

`terraform init` cannot reach the provider registry here, so these static checks stand in for
`terraform validate` (notes/gcp-emulators.md §6).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.rest.variant_serving import ASSIGNMENT_COOKIE
from domain.indexes import FIRESTORE_INDEXES, FIRESTORE_TTL_POLICIES
from frontdoor.settings import Settings
from renderers.terraform_indexes import render_firestore_terraform
from services.delivery_policy import RETRY_DELAYS
from tests.terraform.config import (
    TERRAFORM,
    blocks,
    container,
    load_config,
    locals_,
    one,
    push_service,
    run_services,
)

FUNCTIONS = Path(__file__).resolve().parents[2] / "frontdoor" / "functions.py"
REFERENCE = re.compile(
    r"\b(var|local|data|google_[a-z0-9_]+|random_[a-z_]+)\.([a-z0-9_]+)(?:\.([a-z0-9_]+))?"
)
# Settings that have no business on Cloud Run, each with its reason.
NOT_IN_THE_CLOUD = {
    "port": "Cloud Run sets PORT itself (a reserved variable)",
    "workers": "one granian worker per instance; Cloud Run scales instances",
    "data_dir": "embedded mode only (SQLite, outbox, local blobs)",
    "content_dir": "content/ ships in the image",
    "allowed_hosts": "the public base URL's host is allowed; no extra hosts",
    "mcp_allowed_origins": "/mcp accepts browsers from its own origin only by default",
    "collect_allowed_origins": "/collect accepts its own origin only by default",
    "forwarded_for_hops": "the default (2) is the load balancer of storage.tf",
    "preview_secret": "set, as a secret",
    "oauth_jwks_url": "discovered from OAUTH_ISSUER",
    "oauth_audience": "defaults to the /mcp URL",
    "oauth_access_token_ttl": "the default (1 h) is the policy",
    "oauth_allow_http_cimd": "embedded and tests only; refused in gcp mode",
    "oauth_refresh_retry_seconds": "the default (10 s) is the policy",
    "oauth_signin_codes_per_email_and_address": "the defaults are the policy (mcp.md)",
    "oauth_signin_codes_per_email": "the defaults are the policy (mcp.md)",
    "oauth_signin_codes_per_address": "the defaults are the policy (mcp.md)",
    "oauth_signin_codes_per_signin": "the defaults are the policy (mcp.md)",
    "rate_limit_signin": "the defaults are the policy; Cloud Armor limits per IP in front",
    "signal_fresh_hours": "the default (24 h) is the policy",
    "suppression_key": "derived from INTERNAL_TOKEN (a Secret Manager secret) when unset",
    "cloud_tasks_emulator_host": "emulated mode only",
    "webhook_allow_loopback": "embedded and tests only; refused in gcp mode",
    "webhook_retry_delays": "DESIGN's schedule is the default",
    "author_timeout_seconds": "the default fits Cloud Run's request timeout",
    "google_cloud_deadline": "the default (10 s) is the policy, inside every ack deadline",
    "image_model_name": "the adapter's default model",
    "image_base_url": "tests only (wire servers)",
    "image_api_key": "Imagen on Vertex AI runs as the generation service account (aiplatform.user)",
    "generate_wait_seconds": "the default (25 s) is DESIGN's",
    "job_lease_seconds": "the default (30 s, renewed while the worker runs) is the policy",
    "generation_threads": "embedded mode only",
    "queue_lease_seconds": "embedded mode only (a push holds its message for its request)",
    "job_recovery_seconds": "the default (a pass a minute) is the policy",
    "job_max_requeues": "the default (3) is the policy",
    "pubsub_emulator_host": "emulated mode only",
    "firestore_emulator_host": "emulated mode only",
    "storage_emulator_host": "emulated mode only",
    "push_oidc_jwks_url": "Google's JWKS is the default",
    "rate_limit_window_seconds": "the defaults are the policy; Cloud Armor limits per IP in front",
    "rate_limit_content": "the defaults are the policy; Cloud Armor limits per IP in front",
    "rate_limit_content_admin": "the defaults are the policy; Cloud Armor limits per IP in front",
    "rate_limit_signals": "the defaults are the policy; Cloud Armor limits per IP in front",
    "rate_limit_ingest": "the defaults are the policy; Cloud Armor limits per IP in front",
    "rate_limit_public": "the defaults are the policy; Cloud Armor limits per IP in front",
    "collect_limit_visitor": "the default (60 page views a minute) is the policy",
    "collect_limit_address": "the default (1,200 page views a minute) is the policy",
    "page_history_limit": "the default (the newest 20 versions of a page) is the policy",
    "page_storage_quota_mib": "the default (256 MiB per partner) is the policy",
    "body_read_timeout": "the default (10 s) is the documented limit (content-api.md)",
    "existing_pages_owner": "documented default (`bootstrap`); set once to adopt old pages",
}


CONFIG = load_config()


def _resources() -> dict[str, dict[str, Any]]:
    return {f"{t}.{n}": body for t, n, body in blocks("resource")}


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def _variables() -> dict[str, dict[str, Any]]:
    return {name: body for group in CONFIG.get("variable", []) for name, body in group.items()}


def test_every_variable_used_is_declared_with_a_description() -> None:
    """STYLE terraform/: variables with descriptions; every var.X declared."""
    declared = _variables()
    used = {
        m.group(2) for s in _strings(CONFIG) for m in REFERENCE.finditer(s) if m.group(1) == "var"
    }

    assert used <= set(declared), used - set(declared)
    assert all(body.get("description") for body in declared.values())


def test_every_resource_local_and_data_reference_resolves() -> None:
    resources = _resources()
    data = {f"{t}.{n}" for t, n, _ in blocks("data")}
    local_names = set(locals_())
    missing = set()
    for text in _strings({k: v for k, v in CONFIG.items() if k != "variable"}):
        for kind, name, _attr in REFERENCE.findall(text):
            if kind == "local":
                ok = name in local_names
            elif kind == "data":
                ok = any(d.split(".")[1] == _attr or d == f"{name}.{_attr}" for d in data)
            elif kind == "var":
                continue
            else:
                ok = f"{kind}.{name}" in resources
            if not ok:
                missing.add(f"{kind}.{name}")

    assert not missing, missing


def _env_names(service: dict[str, Any]) -> set[str]:
    values = locals_()
    names: set[str] = set()
    for block in container(service)["dynamic"]:
        spec = block["env"]
        source = spec["for_each"]
        if "common_env" in source:
            names |= set(values["common_env"])
            names |= (
                set(re.findall(r"(\w+)\s*=", source.split("{", 1)[1])) if "{" in source else set()
            )
        else:
            key = re.search(r"local\.(\w+)", source)
            assert key is not None
            names |= set(values[key.group(1)])
    return names


@pytest.mark.parametrize("service", sorted(run_services()))
def test_every_setting_the_app_reads_is_set_on_each_cloud_run_service(service: str) -> None:
    """Every environment variable the app reads is set on its Cloud Run service."""
    names = _env_names(run_services()[service])
    wanted = {field.upper() for field in Settings.model_fields if field not in NOT_IN_THE_CLOUD}
    if service != "api":
        # Workers never accept partner keys.
        wanted -= {"CONTENT_API_KEY", "SIGNALS_API_KEY", "INGEST_API_KEY"}
    if service == "ingest":
        wanted -= {"AUTHOR_API_KEY"}

    assert wanted - names == set()


def test_no_cloud_run_service_sets_a_variable_the_app_does_not_read() -> None:
    known = {field.upper() for field in Settings.model_fields}

    for name, service in run_services().items():
        assert _env_names(service) - known == set(), name


def _function_targets() -> set[str]:
    tree = ast.parse(FUNCTIONS.read_text())
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("functions_framework" in ast.unparse(d) for d in node.decorator_list)
    }


def test_every_push_endpoint_is_a_worker_service_running_a_real_target() -> None:
    """Every push endpoint equals a worker route (a functions-framework target)."""
    services = run_services()
    targets = _function_targets()
    pushes = [
        b
        for t, _, b in blocks("resource")
        if t == "google_pubsub_subscription" and "push_config" in b
    ]

    assert pushes
    for sub in pushes:
        push = one(sub["push_config"])
        service = push_service(push["push_endpoint"])
        assert service, push["push_endpoint"]
        args = container(services[service])["args"]
        target = next(a.split("=", 1)[1] for a in args if a.startswith("--target="))
        assert target in targets
        assert one(push["oidc_token"])["audience"] == "${local.push_audience}"
        assert "${local.push_audience}" in services[service]["custom_audiences"]
        assert "PUSH_OIDC_AUDIENCE" in _env_names(services[service])


def test_push_subscriptions_of_work_topics_have_retry_and_dead_letter_policies() -> None:
    subs = {n: b for t, n, b in blocks("resource") if t == "google_pubsub_subscription"}

    for name in ("generation_jobs", "signal_events"):
        assert subs[name]["retry_policy"]
        assert subs[name]["dead_letter_policy"]


def test_the_deliveries_queue_retries_a_failing_attempt_route_as_long_as_embedded() -> None:
    """An API down for hours loses no webhook delivery: Cloud Tasks keeps no dead letters, so
    a task it stops retrying is gone (its delivery stays `pending`); the embedded task queue
    retries the attempt route over the whole delivery schedule before it dead-letters it."""
    retry = one(_resources()["google_cloud_tasks_queue.deliveries"]["retry_config"])
    schedule = sum(delay.total_seconds() for delay in RETRY_DELAYS)

    assert retry["max_attempts"] == -1  # unlimited: the duration alone ends the retries
    assert int(retry["max_retry_duration"].removesuffix("s")) >= schedule


def test_topic_and_queue_names_equal_the_apps() -> None:
    resources = _resources()
    defaults = Settings()

    assert resources["google_pubsub_topic.signal_events"]["name"] == defaults.signals_topic
    assert resources["google_pubsub_topic.generation_jobs"]["name"] == defaults.generation_topic
    assert resources["google_pubsub_topic.mail"]["name"] == defaults.mail_topic
    assert resources["google_cloud_tasks_queue.deliveries"]["name"] == defaults.cloud_tasks_queue


def test_the_landing_pages_cdn_keys_its_cache_on_the_experiment_assignment_cookie() -> None:
    """Variants: Cloud CDN never hands one visitor's arm to another (content-api.md Caching)."""
    pages = _resources()["google_compute_backend_service.pages"]

    (policy,) = pages["cdn_policy"]
    (key_policy,) = policy["cache_key_policy"]
    assert policy["cache_mode"] == "USE_ORIGIN_HEADERS"  # `private` is kept by no CDN
    assert key_policy["include_named_cookies"] == [ASSIGNMENT_COOKIE]


def test_the_committed_firestore_indexes_equal_the_adapters_declared_list() -> None:
    """Every query of the Firestore adapters has its index (domain/indexes.py)."""
    committed = (TERRAFORM / "firestore_indexes.tf.json").read_text()

    assert committed == render_firestore_terraform(FIRESTORE_INDEXES, FIRESTORE_TTL_POLICIES), (
        "run `frontdoor terraform-indexes`"
    )


@pytest.mark.skipif(
    shutil.which("terraform") is None, reason="terraform ships with the machine image"
)
def test_terraform_fmt_is_clean(tmp_path: Path) -> None:
    cli_config = tmp_path / "terraformrc"
    cli_config.write_text("")

    result = subprocess.run(  # noqa: S603  # fixed command
        ["terraform", "fmt", "-check", "-recursive", "-diff", str(TERRAFORM)],  # noqa: S607
        capture_output=True,
        text=True,
        env={"TF_CLI_CONFIG_FILE": str(cli_config), "PATH": "/usr/local/bin:/usr/bin:/bin"},
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


CHECKOV = Path(__file__).resolve().parents[2] / ".venv-checkov" / "bin" / "checkov"


@pytest.mark.skipif(not CHECKOV.exists(), reason="`make setup` installs checkov in .venv-checkov")
def test_checkov_finds_no_failed_check_without_a_written_reason() -> None:
    """Every skipped check carries a `#checkov:skip=ID:reason` next to its resource."""
    result = subprocess.run(  # noqa: S603  # fixed command
        [
            str(CHECKOV),
            "-d",
            str(TERRAFORM),
            "--framework",
            "terraform",
            "--skip-download",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    report = json.loads(result.stdout)
    summary = report["summary"]
    skipped = report["results"].get("skipped_checks", [])

    assert summary["failed"] == 0, [c["check_id"] for c in report["results"]["failed_checks"]]
    assert all(check["check_result"].get("suppress_comment") for check in skipped)
