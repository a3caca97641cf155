"""The production CDN purge (compute REST wire) and mail (Pub/Sub emulator) adapters."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import compute_v1, pubsub_v1  # type: ignore[attr-defined]  # re-exported without __all__

from backends.gcp.cdn import CloudCdn
from backends.gcp.mail import PubSubMailer
from backends.gcp.pubsub import PubSubPublisher
from backends.ports import UnavailableError
from tests.emulators import ManagedProcess

PROJECT = "demo-frontdoor"


class ComputeWire:
    """A loopback server answering urlMaps.invalidateCache as the Compute REST API documents it."""

    def __init__(self, *, status: int = 200) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        wire = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                wire.requests.append((self.path, json.loads(self.rfile.read(length) or b"{}")))
                body: dict[str, Any] = {
                    "kind": "compute#operation",
                    "name": "operation-1",
                    "operationType": "invalidateCache",
                    "status": "PENDING",
                }
                if status >= 400:
                    body = {"error": {"code": status, "message": "backend error", "errors": []}}
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(body).encode())

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def client(self) -> compute_v1.UrlMapsClient:
        return compute_v1.UrlMapsClient(
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]  # google-auth
            client_options=ClientOptions(api_endpoint=self.endpoint),
            transport="rest",
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def wire() -> Iterator[ComputeWire]:
    made = ComputeWire()
    yield made
    made.close()


def test_a_purge_invalidates_the_path_on_the_url_map(wire: ComputeWire) -> None:
    """DESIGN: a page change tells the CDN port to purge the page's path."""
    cdn = CloudCdn(
        project=PROJECT, url_map="frontdoor", host="www.kestrel.example", client=wire.client()
    )

    cdn.purge("/p/growth-audit")

    path, body = wire.requests[0]
    assert path == f"/compute/v1/projects/{PROJECT}/global/urlMaps/frontdoor/invalidateCache"
    assert body == {"path": "/p/growth-audit", "host": "www.kestrel.example"}


def test_a_purge_the_api_refuses_raises_unavailable() -> None:
    failing = ComputeWire(status=503)
    try:
        cdn = CloudCdn(project=PROJECT, url_map="frontdoor", client=failing.client())

        with pytest.raises(UnavailableError):
            cdn.purge("/p/growth-audit")
    finally:
        failing.close()


@pytest.mark.emulator
def test_mail_is_published_to_the_mailer_topic_as_json(pubsub_emulator: ManagedProcess) -> None:
    """The production mail port hands each message to the operators' mailer topic."""
    topic = f"mail-{uuid.uuid4().hex[:8]}"
    publisher = pubsub_v1.PublisherClient()
    subscriber = pubsub_v1.SubscriberClient()
    topic_path = publisher.topic_path(PROJECT, topic)
    sub_path = subscriber.subscription_path(PROJECT, f"{topic}-reader")
    publisher.create_topic(name=topic_path)
    subscriber.create_subscription(name=sub_path, topic=topic_path)
    mailer = PubSubMailer(PubSubPublisher(project=PROJECT, topic=topic, client=publisher))

    mailer.send(to="ana@acme.example", subject="Your sign-in code", text="123456")

    pulled = subscriber.pull(subscription=sub_path, max_messages=1, timeout=10)
    message = pulled.received_messages[0].message
    assert json.loads(message.data) == {
        "to": "ana@acme.example",
        "subject": "Your sign-in code",
        "text": "123456",
    }
    assert message.attributes["kind"] == "mail"
    subscriber.close()
