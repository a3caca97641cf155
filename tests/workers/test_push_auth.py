"""The workers verify Pub/Sub push OIDC tokens; checked with locally signed tokens."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import functions_framework
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from werkzeug.exceptions import Forbidden, Unauthorized

from frontdoor.push_auth import PushVerifier

AUDIENCE = "frontdoor-push"
ACCOUNT = "frontdoor-invoker@demo-frontdoor.iam.gserviceaccount.com"
FUNCTIONS = str(Path(__file__).resolve().parents[2] / "frontdoor" / "functions.py")


class Issuer:
    """A local stand-in for Google's token signer: an RSA key and its JWKS on loopback."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update({"kid": "k1", "use": "sig", "alg": "RS256"})
        body = json.dumps({"keys": [jwk]}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # http.server's naming
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.jwks_url = f"http://127.0.0.1:{self.server.server_port}/certs"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def token(self, **overrides: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": "https://accounts.google.com",
            "aud": AUDIENCE,
            "email": ACCOUNT,
            "email_verified": True,
            "iat": now,
            "exp": now + 600,
            "sub": "1234",
        }
        claims.update(overrides)
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "k1"})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    made = Issuer()
    yield made
    made.close()


@pytest.fixture
def verifier(issuer: Issuer) -> PushVerifier:
    return PushVerifier(audience=AUDIENCE, service_account=ACCOUNT, jwks_url=issuer.jwks_url)


def test_a_token_signed_for_our_audience_by_the_push_account_is_accepted(
    issuer: Issuer, verifier: PushVerifier
) -> None:
    claims = verifier.verify(f"Bearer {issuer.token()}")

    assert claims["email"] == ACCOUNT


@pytest.mark.parametrize(
    "overrides",
    [
        {"aud": "https://elsewhere.example"},
        {"iss": "https://evil.example"},
        {"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200},
    ],
    ids=["other-audience", "other-issuer", "expired"],
)
def test_a_token_for_another_audience_issuer_or_time_is_refused(
    issuer: Issuer, verifier: PushVerifier, overrides: dict[str, Any]
) -> None:
    with pytest.raises(Unauthorized):
        verifier.verify(f"Bearer {issuer.token(**overrides)}")


def test_no_token_or_a_tampered_one_is_refused(issuer: Issuer, verifier: PushVerifier) -> None:
    token = issuer.token()
    head, payload, signature = token.split(".")
    forged = json.loads(base64.urlsafe_b64decode(payload + "=="))
    forged["email"] = "attacker@example.com"
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()

    with pytest.raises(Unauthorized):
        verifier.verify(None)
    with pytest.raises(Unauthorized):
        verifier.verify(f"Bearer {head}.{forged_payload}.{signature}")


def test_a_token_of_another_service_account_is_forbidden(
    issuer: Issuer, verifier: PushVerifier
) -> None:
    with pytest.raises(Forbidden):
        verifier.verify(f"Bearer {issuer.token(email='someone@demo.iam.gserviceaccount.com')}")


def _push_envelope() -> dict[str, Any]:
    data = base64.b64encode(b'{"events": []}').decode()
    return {
        "subscription": "projects/demo-frontdoor/subscriptions/signal-events-push",
        "message": {"data": data, "messageId": "1", "publishTime": "2026-11-22T09:00:00Z"},
    }


def test_the_ingest_target_answers_401_to_a_push_without_a_token_and_acks_a_signed_one(
    issuer: Issuer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker target itself refuses unsigned pushes with a 4xx, never a retried 500."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PUSH_OIDC_AUDIENCE", AUDIENCE)
    monkeypatch.setenv("PUSH_SERVICE_ACCOUNT", ACCOUNT)
    monkeypatch.setenv("PUSH_OIDC_JWKS_URL", issuer.jwks_url)
    app = functions_framework.create_app(  # type: ignore[no-untyped-call]  # untyped package
        target="ingest_signals", source=FUNCTIONS, signature_type="cloudevent"
    )
    client = app.test_client()

    unsigned = client.post("/", json=_push_envelope())
    signed = client.post(
        "/", json=_push_envelope(), headers={"Authorization": f"Bearer {issuer.token()}"}
    )

    assert unsigned.status_code == 401
    assert signed.status_code == 200
