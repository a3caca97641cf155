"""Rate limits: per key on the Content and Signal APIs, per client address on public
reads; 429 `rate_limited` with Retry-After and the IETF RateLimit header fields."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from services.keys import issue_key
from tests.conftest import CONTENT_KEY, SIGNALS_KEY

pytestmark = pytest.mark.spec("ratelimits")

PAGES = "/api/public/content/pages"
RATELIMIT = re.compile(r'^"(?P<policy>[a-z_]+)";r=(?P<r>\d+);t=(?P<t>\d+)$')


def tight_settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        public_base_url="http://testserver",
        content_api_key=CONTENT_KEY,
        signals_api_key=SIGNALS_KEY,
        rate_limit_content=3,
        rate_limit_signals=2,
        rate_limit_public=2,
    )


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[tuple[FlaskClient, Backends]]:
    settings = tight_settings(tmp_path)
    backends = build_backends(settings)
    yield create_app(app_config(settings), backends).test_client(), backends
    backends.close()


def test_a_key_past_its_limit_gets_429_while_another_key_goes_on(
    tight: tuple[FlaskClient, Backends],
) -> None:
    """One key driven past its limit sees 429 with Retry-After and the RateLimit
    fields; another partner's key is not throttled."""
    client, backends = tight
    other, _ = issue_key(keys=backends.keys, partner="bravo", scope="content", now=backends.clock())
    busy = {"x-api-key": CONTENT_KEY}

    allowed = [client.get(PAGES, headers=busy) for _ in range(3)]
    refused = client.get(PAGES, headers=busy)
    elsewhere = [client.get(PAGES, headers={"x-api-key": other}) for _ in range(3)]

    assert [r.status_code for r in allowed] == [200, 200, 200]
    assert [r.headers["RateLimit"].split(";")[1] for r in allowed] == ["r=2", "r=1", "r=0"]
    assert allowed[0].headers["RateLimit-Policy"] == '"content";q=3;w=60'
    assert refused.status_code == 429
    assert refused.get_json()["error"] == "rate_limited"
    assert refused.headers["Content-Type"] == "application/problem+json"
    fields = RATELIMIT.match(refused.headers["RateLimit"])
    assert fields is not None
    assert (fields["policy"], fields["r"]) == ("content", "0")
    assert refused.headers["Retry-After"] == fields["t"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["RateLimit-Policy"] == '"content";q=3;w=60'
    assert [r.status_code for r in elsewhere] == [200, 200, 200]


def test_signal_keys_count_on_their_own_policy(tight: tuple[FlaskClient, Backends]) -> None:
    """The Signal API counts per key under the `signals` policy."""
    client, _ = tight
    key = {"x-api-key": SIGNALS_KEY}

    answers = [client.get("/api/public/v1/signals", headers=key) for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[0].headers["RateLimit-Policy"] == '"signals";q=2;w=60'
    assert "Retry-After" in answers[2].headers


def test_public_reads_count_per_client_address(tight: tuple[FlaskClient, Backends]) -> None:
    """Public reads are limited per client address, not per key."""
    client, _ = tight

    first = [
        client.get("/api/public/v1/company", environ_base={"REMOTE_ADDR": "198.51.100.7"})
        for _ in range(3)
    ]
    other = client.get("/api/public/v1/company", environ_base={"REMOTE_ADDR": "198.51.100.8"})

    assert [a.status_code for a in first] == [200, 200, 429]
    assert first[2].headers["RateLimit-Policy"] == '"public";q=2;w=60'
    assert "Retry-After" in first[2].headers
    # Cacheable answers carry no count: a shared cache would hand it to the next client.
    assert "RateLimit" not in first[0].headers
    assert other.status_code == 200


def test_in_gcp_mode_public_reads_count_per_address_the_load_balancer_saw(
    tmp_path: Path, tight: tuple[FlaskClient, Backends]
) -> None:
    """FORWARDED_FOR_HOPS: behind our proxies, a forged X-Forwarded-For prefix opens no fresh
    allowance, and another client behind the same balancer (one peer address) has its own."""
    _, backends = tight
    config = dataclasses.replace(app_config(tight_settings(tmp_path)), mode="gcp")
    client = create_app(config, backends).test_client()

    def read(forwarded: str) -> int:
        headers = {"X-Forwarded-For": forwarded}
        peer = {"REMOTE_ADDR": "10.0.0.9"}
        return client.get("/api/public/v1/company", headers=headers, environ_base=peer).status_code

    first = [read(f"6.6.6.{i}, 203.0.113.7, 34.120.1.1") for i in range(3)]
    other = read("203.0.113.8, 34.120.1.1")

    assert first == [200, 200, 429]
    assert other == 200


def test_a_browser_page_past_the_public_limit_can_read_how_long_to_wait(
    tight: tuple[FlaskClient, Backends],
) -> None:
    """Public reads are open to every origin (SPEC): a page calling them from another origin
    sees only the response headers CORS exposes, so the 429's Retry-After and RateLimit
    fields (agents.md Rate limits: "on 429 wait Retry-After seconds") are exposed."""
    client, _ = tight
    browser = {"Origin": "https://app.example"}

    answers = [client.get("/api/public/v1/company", headers=browser) for _ in range(3)]

    refused = answers[2]
    assert refused.status_code == 429
    assert refused.headers["Access-Control-Allow-Origin"] == "*"
    exposed = refused.headers["Access-Control-Expose-Headers"].lower().replace(" ", "")
    assert {"retry-after", "ratelimit", "ratelimit-policy", "x-request-id"} <= set(
        exposed.split(",")
    )
    assert "etag" in answers[0].headers["Access-Control-Expose-Headers"].lower()


def test_the_openapi_lists_the_429_of_every_public_read(client: FlaskClient) -> None:
    """The document promises the 429 a public read answers past its per-address quota."""
    paths = client.get("/openapi.json").get_json()["paths"]
    reads = [
        ops.get("get", {}) for path, ops in paths.items() if path.startswith("/api/public/v1/")
    ]
    public = [op for op in reads if op.get("tags") == ["Public"]]

    assert len(public) == 6
    assert all("Retry-After" in op["responses"]["429"]["headers"] for op in public)


def test_unkeyed_and_refused_requests_count_nothing(tight: tuple[FlaskClient, Backends]) -> None:
    """A request with no valid key answers 401 and uses up no one's quota."""
    client, _ = tight

    wrong = [client.get(PAGES, headers={"x-api-key": "not-a-key-at-all"}) for _ in range(5)]
    right = client.get(PAGES, headers={"x-api-key": CONTENT_KEY})

    assert {r.status_code for r in wrong} == {401}
    assert "RateLimit" not in wrong[0].headers
    assert right.headers["RateLimit"] == '"content";r=2;t=60'
