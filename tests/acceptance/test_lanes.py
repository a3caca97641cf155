"""Partners in their own lanes over real HTTP in both served modes (SQLite and the emulated
Google Cloud stack):
partner B neither reads, lists, changes, restores nor takes over partner A's page or job, and
content_admin reads and changes all. Keys are issued into each mode's own key store, as the
operator CLI does."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from backends.ports import KeyStore, Scope
from services.keys import issue_key
from tests.acceptance.conftest import Service
from tests.api.content_client import page_body

pytestmark = [pytest.mark.emulator, pytest.mark.spec("content.ownership")]

PAGES = "/api/public/content/pages"


def key_store(request: pytest.FixtureRequest, service: Service) -> KeyStore:
    """The key store the served process reads."""
    if service.mode == "embedded":
        from backends.embedded.keys import SqliteKeyStore
        from backends.embedded.sqlite import SqliteDatabase

        env: dict[str, str] = request.getfixturevalue("served_process")
        return SqliteKeyStore(SqliteDatabase(Path(env["DATA_DIR"]) / "frontdoor.sqlite3"))
    from backends.gcp.firestore import firestore_client
    from backends.gcp.keys import FirestoreKeyStore

    stack = request.getfixturevalue("emulated_stack")
    return FirestoreKeyStore(firestore_client(project=stack.config.project))


def partner_key(store: KeyStore, partner: str, scope: Scope = "content") -> dict[str, str]:
    raw, _record = issue_key(keys=store, partner=partner, scope=scope, now=datetime.now(UTC))
    return {"x-api-key": raw}


def test_partner_b_stays_out_of_partner_a_s_lane_and_content_admin_sees_all(
    request: pytest.FixtureRequest, http: httpx.Client, service: Service, slug: str
) -> None:
    """Over HTTP, in both modes: B stays out of A's pages and jobs; content_admin sees all."""
    store = key_store(request, service)
    suffix = uuid.uuid4().hex[:6]
    a = partner_key(store, f"acme-{suffix}")
    b = partner_key(store, f"bravo-{suffix}")
    admin = partner_key(store, f"ops-{suffix}", "content_admin")
    http.post(PAGES, json=page_body(slug, title="Acme's audit"), headers=a)
    job = http.post(
        f"{PAGES}/generate",
        json={"slug": f"{slug}-gen", "topic": "An audit", "icp": "heads of growth"},
        headers={**a, "Prefer": "respond-async"},
    ).json()["job"]
    before = http.get(f"{PAGES}/{slug}", headers=a).json()

    attempts = [
        http.get(f"{PAGES}/{slug}", headers=b),
        http.patch(f"{PAGES}/{slug}", json={"title": "Mine"}, headers=b),
        http.delete(f"{PAGES}/{slug}", headers=b),
        http.post(f"{PAGES}/{slug}/versions/1/restore", headers=b),
        http.get(f"/api/public/content/jobs/{job['id']}", headers=b),
    ]
    taken = http.post(PAGES, json=page_body(slug, title="Mine"), headers=b)
    listed = http.get(PAGES, headers=b).json()["pages"]
    admin_read = http.get(f"{PAGES}/{slug}", headers=admin)
    admin_job = http.get(f"/api/public/content/jobs/{job['id']}", headers=admin)

    assert [r.status_code for r in attempts] == [404] * 5
    assert (taken.status_code, taken.json()["error"]) == (409, "slug_taken")
    assert listed == []
    assert http.get(f"{PAGES}/{slug}", headers=a).json() == before
    assert admin_read.status_code == 200
    assert admin_job.status_code == 200
    patched = http.patch(f"{PAGES}/{slug}", json={"title": "Checked"}, headers=admin)
    assert patched.status_code == 200
    versions = http.get(f"{PAGES}/{slug}/versions", headers=a).json()["versions"]
    assert [(v["version"], v["partner"]) for v in versions] == [
        (2, f"ops-{suffix}"),
        (1, f"acme-{suffix}"),
    ]
    assert "Checked" in http.get(f"/p/{slug}").text
