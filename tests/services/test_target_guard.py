"""The SSRF guard on webhook targets, with a fixed hosts table instead of DNS."""

from __future__ import annotations

import pytest

from services.target_guard import UnsafeTargetError, check_target, system_resolver

pytestmark = pytest.mark.spec("signals.webhooks")

HOSTS = {
    "hooks.partner.test": ["93.184.215.14"],
    "rebound.partner.test": ["10.0.0.7"],
    "mixed.partner.test": ["93.184.215.14", "127.0.0.1"],
    "localhost": ["127.0.0.1"],
}


def _resolve(host: str, port: int) -> list[str]:
    if host not in HOSTS:
        raise OSError("unknown host")
    return HOSTS[host]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://172.16.0.1/hook",
        "https://192.168.1.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[fe80::1]/hook",
        "https://[fd00::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://localhost/hook",
        "https://app.localhost/hook",
        "https://2130706433/hook",
        "https://0x7f000001/hook",
        "https://0177.0.0.1/hook",
        "https://127.1/hook",
        "https://0.0.0.0/hook",
        "https://224.0.0.1/hook",
        "https://240.0.0.1/hook",
        "https://100.64.0.1/hook",
        "https://rebound.partner.test/hook",
        "https://mixed.partner.test/hook",
        "http://hooks.partner.test/hook",
        "ftp://hooks.partner.test/hook",
        "https://user:pass@hooks.partner.test/hook",
        "hooks.partner.test/hook",
    ],
)
def test_unsafe_targets_are_refused(url: str) -> None:
    """DESIGN Deliveries: https only, never private, loopback, link-local, multicast or reserved."""
    with pytest.raises(UnsafeTargetError):
        check_target(url, allow_loopback=False, resolve=_resolve)


def test_a_public_https_target_is_allowed_and_pinned_to_its_checked_address() -> None:
    """DESIGN Deliveries: the checked addresses are the ones connected to (DNS rebinding)."""
    target = check_target(
        "https://hooks.partner.test:8443/in?x=1", allow_loopback=False, resolve=_resolve
    )

    assert (target.host, target.port, target.addresses) == (
        "hooks.partner.test",
        8443,
        ("93.184.215.14",),
    )


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9000/hook", "http://localhost:9000/hook", "https://[::1]/hook"]
)
def test_loopback_receivers_are_allowed_when_embedded_mode_allows_them(url: str) -> None:
    """DESIGN Deliveries: loopback allowed only in embedded mode."""
    assert check_target(url, allow_loopback=True, resolve=_resolve).addresses


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1/hook", "https://192.168.0.1/hook", "http://hooks.partner.test/hook"]
)
def test_allowing_loopback_still_refuses_private_addresses_and_plain_http_elsewhere(
    url: str,
) -> None:
    """DESIGN Deliveries: the embedded exception covers loopback only."""
    with pytest.raises(UnsafeTargetError):
        check_target(url, allow_loopback=True, resolve=_resolve)


def test_a_name_that_does_not_resolve_is_refused_at_delivery_but_accepted_on_registration() -> None:
    """DESIGN Deliveries: checked again at delivery time, where it must resolve safely."""
    with pytest.raises(UnsafeTargetError):
        check_target("https://nowhere.partner.test/hook", allow_loopback=False, resolve=_resolve)

    url = "https://nowhere.partner.test/hook"
    assert check_target(url, allow_loopback=False, resolve=_resolve, unresolved_ok=True)


@pytest.mark.parametrize(
    "url", ["https://example.com/hooks", "https://hooks.example.com/in", "https://x.invalid/"]
)
def test_documentation_names_register_without_a_lookup_and_are_never_contacted(url: str) -> None:
    """DESIGN Contract decisions: docs' examples run, so an example endpoint must never receive."""

    def no_dns(host: str, port: int) -> list[str]:
        raise AssertionError("documentation names are not looked up")

    registered = check_target(url, allow_loopback=False, resolve=no_dns, unresolved_ok=True)

    assert registered.addresses == ()
    with pytest.raises(UnsafeTargetError):
        check_target(url, allow_loopback=False, resolve=no_dns)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8123/internal/deliveries/x/attempt",
        "http://127.1:8123/",
        "http://0x7f.1:8123/",
        "http://2130706433:8123/",
        "http://[::ffff:127.0.0.1]:8123/",
        "http://[::1]:8123/",
        "http://localhost:8123/",
        "https://www.acme.test/collect",
        "https://WWW.ACME.TEST.:443/collect",
    ],
)
def test_the_service_itself_is_refused_in_any_spelling(url: str) -> None:
    """signals-api.md Allowed targets: the service's own origins are never a target."""
    own = (("127.0.0.1", 8123), ("www.acme.test", 443))

    with pytest.raises(UnsafeTargetError, match="this service itself"):
        check_target(url, allow_loopback=True, resolve=_resolve, own_origins=own)


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7F000001", "127.0.0.1"),
        ("0177.1", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("[::ffff:7f00:1]", "::ffff:7f00:1"),
    ],
)
def test_every_spelling_of_an_address_is_read_as_that_address_without_a_lookup(
    host: str, address: str
) -> None:
    """signals-api.md Allowed targets: IP literals in any spelling are checked as addresses."""

    def no_dns(name: str, port: int) -> list[str]:
        raise AssertionError(f"{name} is an address, not a name")

    target = check_target(f"http://{host}:9000/in", allow_loopback=True, resolve=no_dns)

    assert target.addresses == (address,)


@pytest.mark.parametrize("host", ["a..b", "a" * 70 + ".com", "\u00ad"])
def test_a_host_name_the_resolver_cannot_encode_is_refused_as_malformed(host: str) -> None:
    """signals-api.md Allowed targets: a name no resolver takes is a 422, never a 500."""
    with pytest.raises(UnsafeTargetError, match="malformed"):
        check_target(
            f"https://{host}/in", allow_loopback=False, resolve=system_resolver, unresolved_ok=True
        )
