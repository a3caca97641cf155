"""Signed draft preview links (DESIGN Pages: a draft's `preview_url` expires in 7 days)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.previews import (
    PREVIEW_LIFETIME,
    make_preview_token,
    preview_expiry,
    verify_preview_token,
)

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
SECRET = b"preview-secret-0123456789abcdef"
EXPIRES = preview_expiry(NOW)


def test_a_token_opens_its_slug_and_version_until_it_expires() -> None:
    """DESIGN Pages: a signed link that expires (7 days)."""
    token = make_preview_token("launch", 3, EXPIRES, SECRET)

    assert EXPIRES - NOW == PREVIEW_LIFETIME == timedelta(days=7)
    assert verify_preview_token(token, slug="launch", version=3, now=NOW, secret=SECRET)
    assert verify_preview_token(
        token, slug="launch", version=3, now=EXPIRES - timedelta(seconds=1), secret=SECRET
    )
    assert not verify_preview_token(token, slug="launch", version=3, now=EXPIRES, secret=SECRET)


@pytest.mark.parametrize(
    ("slug", "version", "secret"),
    [("other", 3, SECRET), ("launch", 4, SECRET), ("launch", 3, b"another-secret-0123456789")],
)
def test_a_token_for_another_page_version_or_secret_is_refused(
    slug: str, version: int, secret: bytes
) -> None:
    """DESIGN Pages: the link previews one version of one draft."""
    token = make_preview_token("launch", 3, EXPIRES, SECRET)

    assert not verify_preview_token(token, slug=slug, version=version, now=NOW, secret=secret)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "abc",
        "123",
        "123.",
        ".sig",
        "-1.sig",
        "9" * 20 + ".sig",
        "\uff11\uff12\uff13.sig",
        "999999999999.sig",
    ],
)
def test_malformed_tokens_are_refused(token: str) -> None:
    """A tampered or truncated token never opens a draft."""
    assert not verify_preview_token(token, slug="launch", version=3, now=NOW, secret=SECRET)


@pytest.mark.parametrize("signature", ["\u00e9" * 43, "\u2603", "abc\u00ff"])
def test_a_token_whose_signature_is_not_ascii_is_refused(signature: str) -> None:
    """A link anyone may edit: a signature that is not ASCII is a wrong one, never an error."""
    stamp = make_preview_token("launch", 3, EXPIRES, SECRET).partition(".")[0]

    assert not verify_preview_token(
        f"{stamp}.{signature}", slug="launch", version=3, now=NOW, secret=SECRET
    )


def test_an_extended_expiry_breaks_the_signature() -> None:
    """The expiry is signed: moving it forward invalidates the token."""
    stamp, signature = make_preview_token("launch", 3, EXPIRES, SECRET).split(".")

    forged = f"{int(stamp) + 86400}.{signature}"

    assert not verify_preview_token(forged, slug="launch", version=3, now=NOW, secret=SECRET)


def test_no_secret_opens_nothing() -> None:
    """An unconfigured secret never verifies."""
    token = make_preview_token("launch", 3, EXPIRES, b"")

    assert not verify_preview_token(token, slug="launch", version=3, now=NOW, secret=b"")
