"""FirestorePageStore: landing pages as documents `{prefix}pages/{slug}`, and each saved
version as `{prefix}pages/{slug}/versions/{version:010d}`, written in the same transaction.

The stored input is kept as JSON text: Firestore maps do not keep key order and refuse some
shapes JSON allows, and the page is only ever read whole.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    read_at_version,
    run_transaction,
    unavailable_when_transient,
)
from backends.page_cursor import decode_cursor, decode_version_cursor, encode_cursor
from backends.ports import (
    PageList,
    PageStatus,
    QuotaExceededError,
    StoredPage,
    VersionList,
)

# `{prefix}data_upgrades/{name}` exists once an upgrade of the stored data has finished.
_OWNERS_UPGRADE = "page-owners"


class FirestorePageStore:
    """PageStore on Firestore; the version check and the write share one transaction."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        keep_versions: int = 0,
        quota_bytes: int = 0,
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._pages = client.collection(f"{prefix}pages")
        self._upgrades = client.collection(f"{prefix}data_upgrades")
        # `{prefix}page_usage/{sha256(owner)}`: `bytes`, what the owner's kept versions count
        # against its storage quota, changed in the transaction of every save.
        self._usage = client.collection(f"{prefix}page_usage")
        self._keep = keep_versions
        self._quota = quota_bytes

    def _usage_ref(self, owner: str) -> Any:
        # Hashed: a partner name may be `.` or `..`, which Firestore refuses as an id.
        return self._usage.document(hashlib.sha256(owner.encode()).hexdigest()[:40])

    def stored_bytes(self, owner: str) -> int:
        with unavailable_when_transient():
            snap = self._usage_ref(owner).get(**self._deadline.read)
        return int(snap.get("bytes")) if snap.exists else 0

    def _version_ref(self, slug: str, version: int) -> Any:
        return self._pages.document(slug).collection("versions").document(f"{version:010d}")

    def get_page(self, slug: str) -> StoredPage | None:
        with unavailable_when_transient():
            snap = self._pages.document(slug).get(**self._deadline.read)
        return _from_doc(snap.to_dict()) if snap.exists else None

    def list_pages(
        self,
        *,
        status: PageStatus | None = None,
        cursor: str | None = None,
        limit: int = 50,
        owner: str | None = None,
    ) -> PageList:
        query: Any = self._pages
        if owner is not None:
            query = query.where(filter=FieldFilter("owner", "==", owner))
        if status is not None:
            query = query.where(filter=FieldFilter("status", "==", status))
        query = query.order_by("updated_at", direction=firestore.Query.DESCENDING)
        query = query.order_by("slug", direction=firestore.Query.DESCENDING)
        if cursor is not None:
            after, slug = decode_cursor(cursor)
            query = query.start_after({"updated_at": after, "slug": slug})
        with unavailable_when_transient():
            found = query.limit(limit + 1).stream(**self._deadline.read)
            docs = [_from_doc(snap.to_dict()) for snap in found]
        pages = tuple(docs[:limit])
        more = len(docs) > limit
        last = pages[-1] if pages else None
        next_cursor = encode_cursor(last.updated_at, last.slug) if more and last else None
        return PageList(pages=pages, next_cursor=next_cursor)

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        ref = self._pages.document(page.slug)

        def write(transaction: firestore.Transaction) -> None:
            read = {"transaction": transaction, **self._deadline.read}
            read_at_version(
                transaction,
                ref,
                expected=expected_version,
                label=page.slug,
                deadline=self._deadline,
            )
            doc = _to_doc(page)
            pruned = page.version - self._keep if self._keep else 0
            # Reads before writes (a transaction's rule): what this write replaces or deletes.
            freed = [
                self._version_ref(page.slug, n).get(**read) for n in {page.version, pruned} if n > 0
            ]
            usage_ref = self._usage_ref(page.owner)
            usage = usage_ref.get(**read)
            used = int(usage.get("bytes")) if usage.exists else 0
            delta = _input_bytes(doc) - sum(_input_bytes(f.to_dict()) for f in freed if f.exists)
            if self._quota and delta > 0 and used + delta > self._quota:
                raise QuotaExceededError(page.owner, used=used, quota=self._quota)
            transaction.set(ref, doc)
            transaction.set(self._version_ref(page.slug, page.version), doc)
            if pruned > 0:
                transaction.delete(self._version_ref(page.slug, pruned))
            transaction.set(usage_ref, {"owner": page.owner, "bytes": used + delta})

        run_transaction(self._client, write, deadline=self._deadline)
        return page

    def list_versions(
        self, slug: str, *, cursor: str | None = None, limit: int = 50
    ) -> VersionList:
        below = decode_version_cursor(cursor) if cursor is not None else None
        query: Any = self._pages.document(slug).collection("versions")
        if below is not None:
            query = query.where(filter=FieldFilter("version", "<", below))
        query = query.order_by("version", direction=firestore.Query.DESCENDING)
        with unavailable_when_transient():
            found = query.limit(limit + 1).stream(**self._deadline.read)
            docs = [_from_doc(snap.to_dict()) for snap in found]
        versions = tuple(docs[:limit])
        more = len(docs) > limit
        return VersionList(
            versions=versions, next_cursor=str(versions[-1].version) if more else None
        )

    def get_version(self, slug: str, version: int) -> StoredPage | None:
        with unavailable_when_transient():
            snap = self._version_ref(slug, version).get(**self._deadline.read)
        return _from_doc(snap.to_dict()) if snap.exists else None

    def adopt_unowned_pages(self, owner: str) -> int:
        """Give pages stored before pages had owners an owner, and start their history
        at the current version; how many were adopted. Idempotent.

        Once per database: the first start that finishes it writes the marker document
        `data_upgrades/page-owners`, and later starts read that one document instead of every
        page (this version writes no page without an owner). A start stopped half-way leaves
        no marker, so the next one adopts what is left.
        """
        marker = self._upgrades.document(_OWNERS_UPGRADE)
        with unavailable_when_transient():
            if marker.get(**self._deadline.read).exists:
                return 0
            adopted = self._adopt_each_unowned_page(owner)
            marker.set(
                {"finished_at": firestore.SERVER_TIMESTAMP, "adopted": adopted},
                **self._deadline.write,
            )
        return adopted

    def _adopt_each_unowned_page(self, owner: str) -> int:
        adopted = 0
        for snap in self._pages.stream(**self._deadline.read):
            data = snap.to_dict() or {}
            if data.get("owner"):
                continue
            doc = {**data, "owner": owner, "editor": data.get("editor") or owner}
            batch = self._client.batch()
            batch.set(snap.reference, doc)
            batch.set(self._version_ref(doc["slug"], int(doc["version"])), doc)
            batch.commit(**self._deadline.write)
            adopted += 1
        return adopted


def _input_bytes(doc: dict[str, Any] | None) -> int:
    """The bytes a stored version counts against its owner's quota: its input as JSON."""
    return len(str((doc or {}).get("page_input", "")).encode())


def _to_doc(page: StoredPage) -> dict[str, Any]:
    return {
        "slug": page.slug,
        "version": page.version,
        "status": page.status,
        "source": page.source,
        "page_input": json.dumps(page.page_input, ensure_ascii=False),
        "created_at": page.created_at,
        "updated_at": page.updated_at,
        "published_at": page.published_at,
        "hero_image_url": page.hero_image_url,
        "gate_passed": page.gate_passed,
        "gate_ruleset": page.gate_ruleset,
        "owner": page.owner,
        "editor": page.editor,
        "editor_key_id": page.editor_key_id,
        "edit_source": page.edit_source,
    }


def _from_doc(doc: dict[str, Any] | None) -> StoredPage:
    data = doc or {}
    return StoredPage(
        slug=data["slug"],
        version=int(data["version"]),
        status=data["status"],
        source=data["source"],
        page_input=json.loads(data["page_input"]),
        created_at=data["created_at"],
        updated_at=data["updated_at"],
        published_at=data.get("published_at"),
        hero_image_url=data.get("hero_image_url"),
        gate_passed=bool(data.get("gate_passed", True)),
        gate_ruleset=data.get("gate_ruleset", ""),
        owner=data.get("owner", ""),
        editor=data.get("editor", ""),
        editor_key_id=data.get("editor_key_id", ""),
        edit_source=data.get("edit_source", "api"),
    )
