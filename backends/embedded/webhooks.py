"""SqliteWebhookStore: webhook endpoints and deliveries in the embedded database.

Signing secrets are stored sealed (backends/secret_box.py: signing needs them, so they are
encrypted, not hashed); rows an earlier version stored in clear are sealed when the store opens.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    ConflictError,
    Delivery,
    DeliveryStatus,
    NotFoundError,
    WebhookEndpoint,
    WebhookSecret,
)
from backends.secret_box import SecretBox, is_sealed

_DDL = """
CREATE TABLE IF NOT EXISTS webhook_endpoints (
    endpoint_id TEXT PRIMARY KEY,
    partner TEXT NOT NULL,
    url TEXT NOT NULL,
    types TEXT NOT NULL,
    description TEXT NOT NULL,
    secrets TEXT NOT NULL,
    created_at TEXT NOT NULL,
    disabled_at TEXT,
    disabled_reason TEXT,
    options TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    delivery_id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    replays INTEGER NOT NULL,
    last_status_code INTEGER,
    last_error TEXT,
    last_attempt_at TEXT,
    next_attempt_at TEXT
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_endpoint
    ON webhook_deliveries (endpoint_id, status, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_event ON webhook_deliveries (event_id);
"""
_CHUNK = 500  # bound on `?` parameters per IN (...)

_DELIVERY_COLUMNS = (
    "delivery_id, endpoint_id, event_id, event_type, payload, status, created_at, attempts,"
    " replays, last_status_code, last_error, last_attempt_at, next_attempt_at"
)


class SqliteWebhookStore:
    """WebhookStore on SQLite."""

    def __init__(self, db: SqliteDatabase, *, box: SecretBox) -> None:
        self._db = db
        self._box = box
        db.ensure_schema("webhooks", _DDL)
        conn = db.connection()
        columns = {r[1] for r in conn.execute("PRAGMA table_info(webhook_endpoints)")}
        if "options" not in columns:  # files from before endpoint kinds (Slack)
            with db.transaction() as tx:
                tx.execute(
                    "ALTER TABLE webhook_endpoints ADD COLUMN options TEXT NOT NULL DEFAULT '{}'"
                )
        self.seal_clear_secrets()

    def seal_clear_secrets(self) -> int:
        """Seal the secrets of rows stored in clear by an earlier version (at every open: a
        file is small, and after the first open there are none)."""
        sealed = 0
        with self._db.transaction() as tx:
            rows = tx.execute("SELECT endpoint_id, secrets FROM webhook_endpoints").fetchall()
            for row in rows:
                items = json.loads(row["secrets"])
                if all(is_sealed(item["value"]) for item in items):
                    continue
                endpoint_id = row["endpoint_id"]
                for item in items:
                    if not is_sealed(item["value"]):
                        item["value"] = self._box.seal(item["value"], endpoint_id=endpoint_id)
                tx.execute(
                    "UPDATE webhook_endpoints SET secrets = ? WHERE endpoint_id = ?",
                    (json.dumps(items), endpoint_id),
                )
                sealed += 1
        return sealed

    def add_endpoint(self, endpoint: WebhookEndpoint) -> None:
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO webhook_endpoints (endpoint_id, partner, url, types, description,"
                    " secrets, created_at, disabled_at, disabled_reason, options)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        endpoint.endpoint_id,
                        endpoint.partner,
                        endpoint.url,
                        json.dumps(list(endpoint.types)),
                        endpoint.description,
                        _secrets_json(endpoint.secrets, self._box, endpoint.endpoint_id),
                        endpoint.created_at.isoformat(),
                        _iso(endpoint.disabled_at),
                        endpoint.disabled_reason,
                        json.dumps({"kind": endpoint.kind, "stages": list(endpoint.stages)}),
                    ),
                )
        except sqlite3.IntegrityError as err:
            raise ConflictError(endpoint.endpoint_id) from err

    def get_endpoint(self, endpoint_id: str) -> WebhookEndpoint | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM webhook_endpoints WHERE endpoint_id = ?", (endpoint_id,))
            .fetchone()
        )
        return _endpoint(row, self._box) if row else None

    def list_endpoints(self, *, partner: str | None = None) -> list[WebhookEndpoint]:
        conn = self._db.connection()
        if partner is None:
            rows = conn.execute("SELECT * FROM webhook_endpoints ORDER BY created_at, endpoint_id")
        else:
            rows = conn.execute(
                "SELECT * FROM webhook_endpoints WHERE partner = ?"
                " ORDER BY created_at, endpoint_id",
                (partner,),
            )
        return [_endpoint(row, self._box) for row in rows.fetchall()]

    def delete_endpoint(self, endpoint_id: str) -> None:
        with self._db.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM webhook_endpoints WHERE endpoint_id = ?", (endpoint_id,)
            )
            if cur.rowcount == 0:
                raise NotFoundError(endpoint_id)

    def set_secrets(
        self, endpoint_id: str, secrets: tuple[WebhookSecret, ...], *, if_current: str | None = None
    ) -> WebhookEndpoint:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT secrets FROM webhook_endpoints WHERE endpoint_id = ?", (endpoint_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(endpoint_id)
            stored = [
                {**item, "value": self._box.open(item["value"], endpoint_id=endpoint_id)}
                for item in json.loads(row["secrets"])
            ]
            if if_current is not None and (not stored or stored[0]["value"] != if_current):
                raise ConflictError(f"{endpoint_id}: its secret changed meanwhile")
            conn.execute(
                "UPDATE webhook_endpoints SET secrets = ? WHERE endpoint_id = ?",
                (_secrets_json(secrets, self._box, endpoint_id), endpoint_id),
            )
        return self._must_get(endpoint_id)

    def disable_endpoint(self, endpoint_id: str, *, reason: str, now: datetime) -> WebhookEndpoint:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT disabled_at FROM webhook_endpoints WHERE endpoint_id = ?", (endpoint_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(endpoint_id)
            if row["disabled_at"] is None:
                conn.execute(
                    "UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ?"
                    " WHERE endpoint_id = ?",
                    (now.isoformat(), reason, endpoint_id),
                )
        return self._must_get(endpoint_id)

    def add_delivery(self, delivery: Delivery) -> bool:
        with self._db.transaction() as conn:
            cur = conn.execute(
                f"INSERT OR IGNORE INTO webhook_deliveries ({_DELIVERY_COLUMNS})"  # noqa: S608  # fixed column list
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _delivery_row(delivery),
            )
            return cur.rowcount == 1

    def get_delivery(self, delivery_id: str) -> Delivery | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM webhook_deliveries WHERE delivery_id = ?", (delivery_id,))
            .fetchone()
        )
        return _delivery(row) if row else None

    def update_delivery(self, delivery: Delivery, *, if_attempts: int, if_replays: int) -> None:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT attempts, replays FROM webhook_deliveries WHERE delivery_id = ?",
                (delivery.delivery_id,),
            ).fetchone()
            if row is None:
                raise NotFoundError(delivery.delivery_id)
            if (row["attempts"], row["replays"]) != (if_attempts, if_replays):
                raise ConflictError(delivery.delivery_id)
            conn.execute(
                f"REPLACE INTO webhook_deliveries ({_DELIVERY_COLUMNS})"  # noqa: S608  # fixed column list
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _delivery_row(delivery),
            )

    def list_deliveries(
        self, endpoint_id: str, *, status: DeliveryStatus | None = None, limit: int = 100
    ) -> list[Delivery]:
        sql = "SELECT * FROM webhook_deliveries WHERE endpoint_id = ?"
        args: list[object] = [endpoint_id]
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        sql += " ORDER BY created_at DESC, delivery_id DESC LIMIT ?"
        args.append(limit)
        return [_delivery(row) for row in self._db.connection().execute(sql, args).fetchall()]

    def erase_deliveries_for_events(self, event_ids: Sequence[str]) -> int:
        wanted = list(dict.fromkeys(event_ids))
        removed = 0
        with self._db.transaction() as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                cur = conn.execute(
                    f"DELETE FROM webhook_deliveries WHERE event_id IN ({marks})",  # noqa: S608  # placeholders only
                    chunk,
                )
                removed += cur.rowcount
        return removed

    def _must_get(self, endpoint_id: str) -> WebhookEndpoint:
        found = self.get_endpoint(endpoint_id)
        if found is None:
            raise NotFoundError(endpoint_id)
        return found


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _secrets_json(secrets: tuple[WebhookSecret, ...], box: SecretBox, endpoint_id: str) -> str:
    return json.dumps(
        [
            {
                "value": box.seal(s.value, endpoint_id=endpoint_id),
                "created_at": s.created_at.isoformat(),
                "expires_at": _iso(s.expires_at),
            }
            for s in secrets
        ]
    )


def _endpoint(row: sqlite3.Row, box: SecretBox) -> WebhookEndpoint:
    secrets = tuple(
        WebhookSecret(
            value=box.open(item["value"], endpoint_id=row["endpoint_id"]),
            created_at=datetime.fromisoformat(item["created_at"]),
            expires_at=_dt(item["expires_at"]),
        )
        for item in json.loads(row["secrets"])
    )
    return WebhookEndpoint(
        endpoint_id=row["endpoint_id"],
        partner=row["partner"],
        url=row["url"],
        types=tuple(json.loads(row["types"])),
        description=row["description"],
        secrets=secrets,
        created_at=datetime.fromisoformat(row["created_at"]),
        disabled_at=_dt(row["disabled_at"]),
        disabled_reason=row["disabled_reason"],
        kind=json.loads(row["options"]).get("kind", "standard"),
        stages=tuple(json.loads(row["options"]).get("stages", ())),
    )


def _delivery_row(d: Delivery) -> tuple[object, ...]:
    return (
        d.delivery_id,
        d.endpoint_id,
        d.event_id,
        d.event_type,
        d.payload,
        d.status,
        d.created_at.isoformat(),
        d.attempts,
        d.replays,
        d.last_status_code,
        d.last_error,
        _iso(d.last_attempt_at),
        _iso(d.next_attempt_at),
    )


def _delivery(row: sqlite3.Row) -> Delivery:
    status: DeliveryStatus = row["status"]
    return Delivery(
        delivery_id=row["delivery_id"],
        endpoint_id=row["endpoint_id"],
        event_id=row["event_id"],
        event_type=row["event_type"],
        payload=row["payload"],
        status=status,
        created_at=datetime.fromisoformat(row["created_at"]),
        attempts=row["attempts"],
        replays=row["replays"],
        last_status_code=row["last_status_code"],
        last_error=row["last_error"],
        last_attempt_at=_dt(row["last_attempt_at"]),
        next_attempt_at=_dt(row["next_attempt_at"]),
    )
