"""SPEC quality gate rule 4: links are a site path or an absolute https URL; images https only."""

from __future__ import annotations

import pytest

from gate.check import check_page
from schemas.catalog import Brand
from tests.gate.pages import ICP_SUB, codes, valid_page, with_value

UNSAFE_LINKS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "javascript :alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\x01javascript:alert(1)",
    "\u2028javascript:alert(1)",
    "\u200bjavascript:alert(1)",
    "&#106;avascript:alert(1)",
    "&#x6A;avascript:alert(1)",
    "javascript&colon;alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "VBScript:msgbox(1)",
    "file:///etc/passwd",
    "blob:https://example.com/1",
    "mailto:sales@example.com",
    "ftp://example.com/file",
    "http://example.com/pricing",
    "HTTP://example.com",
    "//evil.example.com/",
    "///evil.example.com",
    "/\\evil.example.com",
    "\\\\evil.example.com",
    "/%2F/evil.example.com",
    "/%5cevil.example.com",
    "&#x2F;&#x2F;evil.example.com",
    "https:evil.example.com",
    "https:/evil.example.com",
    "https:///evil.example.com",
    "https://user:pass@example.com/",
    "https://example.com@evil.example.com/",
    "https://exa mple.com/",
    "https://example.com/ path",
    "/pricing ",
    " /pricing",
    "https://ex\u0430mple.com/",
    "https://example.com\x00.evil.com/",
    "https://localhost/",
    "https://-evil.example.com/",
    "pricing",
    "#form",
    "",
]

SAFE_LINKS = [
    "/",
    "/pricing",
    "/p/growth-audit#form",
    "/book?source=landing&utm_campaign=q4",
    "https://example.com",
    "https://www.example.co.uk/a/b?c=d#e",
    "https://example.com:8443/x",
    "https://example.com/path%20with%20spaces",
]


@pytest.mark.spec("content.gate.urls")
@pytest.mark.parametrize(
    ("path", "url"),
    [
        ("cta_href", "https://example.com/" + "a" * 2048),
        ("blocks.0.ctaHref", "/" + "a" * 2048),
        ("og_image_url", "https://example.com/" + "a" * 2048 + ".png"),
    ],
)
def test_a_link_or_image_past_2048_characters_is_too_long(
    brand: Brand, path: str, url: str
) -> None:
    """content-api.md: a URL is at most 2048 characters; past that it is a length, like every
    other field's (`too_long`), not an unsafe URL."""
    page = with_value(valid_page(), path, url)

    assert codes(check_page(page, brand=brand)) == [(path, "too_long")]


@pytest.mark.spec("content.gate.urls")
@pytest.mark.parametrize("url", UNSAFE_LINKS, ids=repr)
@pytest.mark.parametrize("path", ["cta_href", "blocks.0.ctaHref", "blocks.1.ctaHref"])
def test_an_unsafe_link_is_refused_wherever_it_sits(brand: Brand, url: str, path: str) -> None:
    """SPEC gate 4: links use a site path or an absolute https URL."""
    page = with_value(valid_page(), path, url)

    assert codes(check_page(page, brand=brand)) == [(path, "unsafe_url")]


@pytest.mark.parametrize("url", SAFE_LINKS)
def test_a_site_path_or_https_link_passes(brand: Brand, url: str) -> None:
    """SPEC gate 4: site path or absolute https URL."""
    page = with_value(with_value(valid_page(), "cta_href", url), "blocks.1.ctaHref", url)

    assert check_page(page, brand=brand) == []


UNSAFE_IMAGES = [
    "/images/hero.png",
    "http://img.example.com/hero.png",
    "//img.example.com/hero.png",
    "data:image/png;base64,iVBORw0KGgo=",
    "data:image/svg+xml,<svg onload=alert(1)>",
    "javascript:alert(1)",
    "hero.png",
    " https://img.example.com/hero.png",
    "https://img.example.com/hero.png\n",
    "https://img.example.com\\hero.png",
]


@pytest.mark.parametrize("url", UNSAFE_IMAGES, ids=repr)
@pytest.mark.parametrize("path", ["og_image_url", "blocks.0.imageUrl"])
def test_an_image_must_be_an_absolute_https_url(brand: Brand, url: str, path: str) -> None:
    """SPEC gate 4: images absolute https only (a site path is a link, not an image)."""
    page = with_value(valid_page(), path, url)

    assert codes(check_page(page, brand=brand)) == [(path, "unsafe_url")]


def test_https_images_pass(brand: Brand) -> None:
    """SPEC gate 4: an absolute https image URL is fine."""
    hero = {
        "type": "hero",
        "title": "T",
        "sub": ICP_SUB,
        "imageUrl": "https://img.example.com/a.png",
    }
    page = valid_page(og_image_url="https://img.example.com/og.png", blocks=[hero])

    assert check_page(page, brand=brand) == []
