"""The app served in a thread on a loopback port, so the task queue can call its internal
attempt route, with a fixed hosts table for the SSRF guard's lookups at delivery time."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask.testing import FlaskClient
from werkzeug.serving import make_server

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from services.deliveries import WebhookDeliveries

FAST = (0.2, 0.2)  # retry delays in seconds: three attempts in all


@dataclass
class Served:
    """The app on a loopback port, its backends and a test client on the same app."""

    backends: Backends
    api: FlaskClient
    hosts: dict[str, list[str]]


@contextmanager
def served(
    settings: Settings,
    *,
    queue: Callable[[Backends], Any] | None = None,
    retry_delays: Sequence[float] = FAST,
    adapt: Callable[[Backends], Backends] | None = None,
) -> Iterator[Served]:
    """Serve the app on 127.0.0.1; `hosts` answers the delivery-time lookups (edit it freely);
    `adapt` swaps ports before the app is made."""
    holder: dict[str, Any] = {}
    server = make_server(
        "127.0.0.1", 0, lambda env, start: holder["app"](env, start), threaded=True
    )
    base = f"http://127.0.0.1:{server.server_port}"
    tuned = settings.model_copy(
        update={
            "public_base_url": base,
            "webhook_retry_delays": list(retry_delays),
            "webhook_allow_loopback": True,
        }
    )
    built = build_backends(tuned)
    hosts: dict[str, list[str]] = {"localhost": ["127.0.0.1"]}
    options = dataclasses.replace(built.delivery_options, resolver=lambda host, _port: hosts[host])
    backends = dataclasses.replace(built, delivery_options=options)
    if queue is not None:
        tasks = queue(backends)
        deliveries = WebhookDeliveries(
            webhooks=backends.webhooks, tasks=tasks, options=options, clock=backends.clock
        )
        backends = dataclasses.replace(backends, tasks=tasks, deliveries=deliveries)
    if adapt is not None:  # other signal ports (a test's Firestore store), same deliveries
        backends = adapt(backends)
    app = create_app(app_config(tuned), backends)
    holder["app"] = app.wsgi_app
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(backends=backends, api=app.test_client(), hosts=hosts)
    finally:
        server.shutdown()
        thread.join(timeout=5)
        built.close()
