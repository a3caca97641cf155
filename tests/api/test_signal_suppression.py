"""signals-api.md "Erasure that sticks": an erased address's later events are refused (named
`suppressed`) on both backends, the site's forms for it store nothing, and only the operator's
`frontdoor signals unsuppress` lets them in again (logged without the address)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from frontdoor.cli import cli
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.signals.events import normalize_event
from services.signals import queue_events
from services.suppressions import lift_suppression
from tests.api.signal_trust_lanes import drain, signal_backends
from tests.conftest import INGEST_KEY, SIGNALS_KEY

__all__ = ["signal_backends"]  # the fixture, used below

BASE = "/api/public/v1/signals"
INGEST = {"x-api-key": INGEST_KEY}
READ = {"x-api-key": SIGNALS_KEY}
SITE = {"Origin": "http://testserver"}


def _event(email: str, row_id: str) -> dict[str, Any]:
    return {
        "source": "crm",
        "row_id": row_id,
        "type": "book_call",
        "occurred_at": "2026-11-20T10:00:00Z",
        "person": {"email": email},
    }


def _send(client: FlaskClient, *events: dict[str, Any]) -> Any:
    return client.post(f"{BASE}/events", json={"events": list(events)}, headers=INGEST)


@pytest.mark.spec("signals.people")
def test_an_erased_address_re_ingested_is_refused_until_the_operator_lifts_it(
    settings: Settings, signal_backends: Backends
) -> None:
    client = create_app(app_config(settings), signal_backends).test_client()
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    email, other = f"ada@{domain}", f"bo@{domain}"
    _send(client, _event(email, "1"))
    drain(signal_backends)

    erased = client.delete(f"{BASE}/people/{email}", headers=INGEST)
    again = _send(client, _event(email, "2"), _event(other, "3"))
    alone = _send(client, _event(email.upper(), "4"))
    form = {"email": email, "page": "growth-audit", "type": "lead_form"}
    posted = client.post("/api/public/v1/collect", data=form, headers=SITE)
    drain(signal_backends)
    while_held = client.get(f"{BASE}/people/{email}", headers=READ).get_json()

    lift_suppression(suppressions=signal_backends.suppressions, email=email, digest="test")
    after = _send(client, _event(email, "5"))
    drain(signal_backends)

    assert erased.get_json()["events_removed"] == 1
    assert again.status_code == 202
    assert again.get_json()["accepted"] == ["crm:3"]
    assert [
        (r["index"], r["id"], [(i["field"], i["code"]) for i in r["issues"]])
        for r in again.get_json()["refused"]
    ] == [(0, "crm:2", [("person.email", "suppressed")])]
    assert (alone.status_code, alone.get_json()["issues"][0]["code"]) == (422, "suppressed")
    assert alone.get_json()["issues"][0]["field"] == "events.0.person.email"
    assert posted.status_code == 303  # the visitor is told nothing about an erasure
    assert while_held["seen"] is False
    assert after.get_json()["accepted"] == ["crm:5"]
    person = client.get(f"{BASE}/people/{email}", headers=READ).get_json()
    assert [e["id"] for e in person["timeline"]] == ["crm:5"]


@pytest.mark.spec("signals.people")
def test_an_event_queued_before_the_erasure_is_dropped_by_the_worker(
    settings: Settings, signal_backends: Backends
) -> None:
    """Held first, erased after: what was in the ingest queue never brings the person back."""
    client = create_app(app_config(settings), signal_backends).test_client()
    email = f"cy@n{uuid.uuid4().hex[:8]}.example"
    signal_backends.suppressions.suppress(email, now=signal_backends.clock())

    queued = normalize_event(_event(email, "q1"), now=signal_backends.clock())
    assert not isinstance(queued, list)
    queue_events(signal_queue=signal_backends.signal_queue, events=[queued])
    drain(signal_backends)

    assert signal_backends.signals.get_person(email) is None
    assert client.get(f"{BASE}/people/{email}", headers=READ).get_json()["seen"] is False


def test_the_operator_lifts_a_suppression_with_the_cli_and_the_log_has_no_address(
    tmp_path: Path,
) -> None:
    """The log line (JSON on stdout, as every entry point writes) names the keyed hash."""
    settings = Settings(data_dir=tmp_path / "data")
    backends = build_backends(settings, start_workers=False)
    backends.suppressions.suppress("ada@acme.com", now=backends.clock())
    backends.close()
    env = {"DATA_DIR": str(settings.data_dir)}

    lifted = CliRunner().invoke(cli, ["signals", "unsuppress", "Ada@Acme.com"], env=env)
    again = CliRunner().invoke(cli, ["signals", "unsuppress", "ada@acme.com"], env=env)

    assert (lifted.exit_code, again.exit_code) == (0, 1)
    (log,) = [json.loads(line) for line in lifted.output.splitlines() if line.startswith("{")]
    assert (log["severity"], log["lifted"]) == ("WARNING", True)
    assert "ada@acme.com" not in json.dumps(log)
    assert log["person_digest"] in log["message"]
    reopened = build_backends(settings, start_workers=False)
    assert reopened.suppressions.suppressed(["ada@acme.com"]) == set()
    reopened.close()
