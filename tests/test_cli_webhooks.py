"""`frontdoor webhooks seal-secrets` (README "Data at rest"): on Firestore, an operator seals the
webhook signing secrets an earlier version stored in clear, once after upgrading."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends.ports.webhooks import WebhookEndpoint, WebhookSecret
from backends.secret_box import SecretBox, is_sealed
from frontdoor.cli import cli
from tests.emulators import ManagedProcess

KEY = "a-webhook-secrets-key-for-this-test"
NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.mark.emulator
def test_seal_secrets_seals_the_clear_ones_once_and_signing_keeps_its_value(
    firestore_emulator: ManagedProcess,
    pubsub_emulator: ManagedProcess,
    storage_emulator: ManagedProcess,
    tasks_emulator: ManagedProcess,
    tmp_path: Path,
) -> None:
    from backends.gcp.firestore import firestore_client
    from backends.gcp.webhooks import FirestoreWebhookStore

    project = f"demo-seal-{uuid.uuid4().hex[:8]}"  # a database of its own in the emulator
    client = firestore_client(project=project)
    store = FirestoreWebhookStore(client, box=SecretBox(KEY))
    for endpoint_id in ("wh_old", "wh_new"):
        store.add_endpoint(
            WebhookEndpoint(
                endpoint_id=endpoint_id,
                partner="acme",
                url="https://hooks.example.com/in",
                types=("book_call",),
                description="CRM",
                secrets=(WebhookSecret(value=f"whsec_{endpoint_id}", created_at=NOW),),
                created_at=NOW,
            )
        )
    # As an earlier version stored it: the value itself.
    old = client.collection("webhook_endpoints").document("wh_old")
    old.update({"secrets": [{"value": "whsec_wh_old", "created_at": NOW, "expires_at": None}]})
    env = {
        "BACKEND": "gcp",
        "DATA_DIR": str(tmp_path),
        "GOOGLE_CLOUD_PROJECT": project,
        "FIRESTORE_EMULATOR_HOST": firestore_emulator.host,
        "PUBSUB_EMULATOR_HOST": pubsub_emulator.host,
        "STORAGE_EMULATOR_HOST": f"http://{storage_emulator.host}",
        "CLOUD_TASKS_EMULATOR_HOST": tasks_emulator.host,
        "NO_GCE_CHECK": "true",
        "WEBHOOK_SECRETS_KEY": KEY,
        "INTERNAL_TOKEN": "an-internal-token-0123456789",
    }

    first = CliRunner().invoke(cli, ["webhooks", "seal-secrets"], obj={}, env=env)
    again = CliRunner().invoke(cli, ["webhooks", "seal-secrets"], obj={}, env=env)

    assert first.exit_code == 0, first.output
    assert first.output.splitlines()[-1] == "sealed the clear secrets of 1 endpoint"
    assert again.output.splitlines()[-1] == "sealed the clear secrets of 0 endpoints"
    (stored,) = (old.get().to_dict() or {})["secrets"]
    assert is_sealed(stored["value"])
    endpoint = store.get_endpoint("wh_old")
    assert endpoint is not None
    assert endpoint.secrets[0].value == "whsec_wh_old"
