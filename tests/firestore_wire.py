"""Firestore while it is down: a gRPC server on a local port that answers every Firestore call
with one status code. The real google client and the real adapters talk to it as they talk to
the emulator (no fake of either); only the answers are an outage's. A flaky Firestore passes
each call on to the emulator unless an `Outage` refuses its method at the time: Firestore down in
part (its writes only), or down and back up within one test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
from google.cloud import firestore

from backends.gcp.firestore import firestore_client
from tests.black_hole import BlackHole

_HOST = "FIRESTORE_EMULATOR_HOST"
# Firestore's server-streaming calls (a document read, a query); every other one the adapters
# make (commit, begin and roll back a transaction) answers once.
_STREAMING = frozenset({"BatchGetDocuments", "RunQuery", "RunAggregationQuery"})


class _Refusing:
    """A gRPC generic handler (duck-typed, as grpc.server takes one) refusing every method."""

    def __init__(self, code: grpc.StatusCode) -> None:
        self.code = code

    def service(self, handler_call_details: Any) -> Any:
        method = str(handler_call_details.method).rsplit("/", 1)[-1]

        def refuse_stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
            context.abort(self.code, "firestore is down")
            yield b""  # never reached: abort raises

        def refuse_once(request: bytes, context: grpc.ServicerContext) -> None:
            context.abort(self.code, "firestore is down")

        if method in _STREAMING:
            return grpc.unary_stream_rpc_method_handler(refuse_stream)
        return grpc.unary_unary_rpc_method_handler(refuse_once)


@contextmanager
def refusing_server(code: grpc.StatusCode) -> Iterator[int]:
    """A gRPC server on a local port (yielded) that answers every call of any service with
    `code`: a Google Cloud service that is down, for any client pointed at it."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=[_Refusing(code)])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(grace=None)


@contextmanager
def client_of_down_firestore(code: grpc.StatusCode) -> Iterator[firestore.Client]:
    """A real Firestore client whose Firestore answers every call with `code`."""
    with refusing_server(code) as port, _client_of(port) as client:
        yield client


class Outage:
    """Which Firestore methods (gRPC names: "Commit", "BatchGetDocuments", ...; "*" is every
    one) answer `code` for now; set `methods` to take Firestore down, in part, and back up."""

    def __init__(self, code: grpc.StatusCode) -> None:
        self.code = code
        self.methods: frozenset[str] = frozenset()

    def refuses(self, method: str) -> bool:
        return method in self.methods or "*" in self.methods


class _Forwarding:
    """A gRPC generic handler passing each call's bytes on to the emulator unless `outage`
    refuses its method."""

    def __init__(self, outage: Outage, channel: grpc.Channel) -> None:
        self.outage = outage
        self.channel = channel

    def service(self, handler_call_details: Any) -> Any:
        path = str(handler_call_details.method)
        method = path.rsplit("/", 1)[-1]
        outage = self.outage

        def metadata(context: grpc.ServicerContext) -> list[tuple[str, str]]:
            return [
                (k, v)
                for k, v in context.invocation_metadata()
                if not k.startswith((":", "grpc-")) and k != "user-agent"
            ]

        def forward_stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
            if outage.refuses(method):
                context.abort(outage.code, "firestore is down")
            try:
                yield from self.channel.unary_stream(path)(request, metadata=metadata(context))
            except grpc.RpcError as err:
                context.abort(err.code(), err.details())

        def forward_once(request: bytes, context: grpc.ServicerContext) -> bytes:
            if outage.refuses(method):
                context.abort(outage.code, "firestore is down")
            try:
                answer: bytes = self.channel.unary_unary(path)(request, metadata=metadata(context))
            except grpc.RpcError as err:
                context.abort(err.code(), err.details())
            return answer

        if method in _STREAMING:
            return grpc.unary_stream_rpc_method_handler(forward_stream)
        return grpc.unary_unary_rpc_method_handler(forward_once)


@contextmanager
def client_of_flaky_firestore(emulator_host: str, outage: Outage) -> Iterator[firestore.Client]:
    """A real Firestore client whose calls reach the emulator at `emulator_host`, except the
    methods `outage` refuses at the time, which answer its code."""
    channel = grpc.insecure_channel(emulator_host)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4), handlers=[_Forwarding(outage, channel)]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with _client_of(port) as client:
            yield client
    finally:
        server.stop(grace=None)
        channel.close()


@contextmanager
def _client_of(port: int) -> Iterator[firestore.Client]:
    """A real Firestore client of the local server on `port`, closed on the way out."""
    before = os.environ.get(_HOST)
    os.environ[_HOST] = f"127.0.0.1:{port}"  # the client reads it once, when it is made
    try:
        client = firestore_client(project="demo-frontdoor")
    finally:
        if before is None:
            os.environ.pop(_HOST, None)
        else:
            os.environ[_HOST] = before
    try:
        yield client
    finally:
        client.close()  # type: ignore[no-untyped-call]  # untyped in google-cloud-firestore


@contextmanager
def client_of_black_hole(hole: BlackHole) -> Iterator[firestore.Client]:
    """A real Firestore client whose Firestore is the emulator behind `hole`, which answers
    nothing while it is silent (tests/black_hole.py)."""
    with _client_of(int(hole.address.rpartition(":")[2])) as client:
        yield client
