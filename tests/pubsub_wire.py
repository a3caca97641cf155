"""Pub/Sub while it is down: the real publisher client and adapter, pointed at a local gRPC
server that answers every call with one status code (tests/firestore_wire.py), as they are
pointed at the emulator (no fake of either); only the answers are an outage's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # re-exported without __all__

from backends.gcp.pubsub import PubSubPublisher
from tests.black_hole import TEST_DEADLINE
from tests.firestore_wire import refusing_server

_HOST = "PUBSUB_EMULATOR_HOST"


@contextmanager
def publisher_of_down_pubsub(code: grpc.StatusCode) -> Iterator[PubSubPublisher]:
    """The signal queue's real adapter on a Pub/Sub that answers every publish with `code`,
    giving up after TEST_DEADLINE (1 s) as it does after GOOGLE_CLOUD_DEADLINE."""
    with refusing_server(code) as port:
        before = os.environ.get(_HOST)
        os.environ[_HOST] = f"127.0.0.1:{port}"  # the client reads it once, when it is made
        try:
            client = pubsub_v1.PublisherClient()
        finally:
            if before is None:
                os.environ.pop(_HOST, None)
            else:
                os.environ[_HOST] = before
        try:
            yield PubSubPublisher(
                project="demo-frontdoor", topic="signals", client=client, deadline=TEST_DEADLINE
            )
        finally:
            client.stop()
