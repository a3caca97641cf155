"""A landing page's head: document title, JSON-LD and the Content-Security-Policy that fits it.

Pure: no Flask, no I/O, no clock.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from schemas.content.pages import SitePageInput
from schemas.public import Company

__all__ = ["content_security_policy", "document_title", "page_json_ld"]


def content_security_policy(json_ld: str | None, *, own_scripts: bool = False) -> str:
    """A strict policy: no inline script may run; the JSON-LD data block is allowed by its
    hash, and with `own_scripts` the service's own script files ('self': the beacon)."""
    sources = ["'self'"] if own_scripts else []
    if json_ld is not None:
        digest = base64.b64encode(hashlib.sha256(json_ld.encode()).digest()).decode()
        sources.append(f"'sha256-{digest}'")
    script = " ".join(sources) or "'none'"
    return (
        "default-src 'none'; "
        f"script-src {script}; "
        "style-src 'self'; "
        "img-src 'self' https: data:; "
        # Same-origin fetches only (crawlers' tools read /robots.txt from the page's context).
        "connect-src 'self'; "
        "form-action 'self'; "
        "base-uri 'none'; "
        "frame-ancestors 'none'"
    )


def page_json_ld(
    page: SitePageInput, *, company: Company, canonical: str, image: str | None, logo: str
) -> str:
    """WebPage + Organization as JSON-LD, escaped so no text can close the <script> element."""
    website = str(company.urls.website).rstrip("/")
    organization: dict[str, Any] = {
        "@type": "Organization",
        "@id": f"{website}/#organization",
        "name": company.name,
        "legalName": company.legal_name,
        "url": website,
        "description": company.tagline,
        "foundingDate": str(company.founded),
        "email": company.urls.contact,
        "logo": logo,
    }
    webpage: dict[str, Any] = {
        "@type": "WebPage",
        "@id": canonical,
        "url": canonical,
        "name": page.title,
        "inLanguage": "en",
        "publisher": {"@id": organization["@id"]},
    }
    if page.description:
        webpage["description"] = page.description
    if image:
        webpage["primaryImageOfPage"] = {"@type": "ImageObject", "url": image}
    text = json.dumps(
        {"@context": "https://schema.org", "@graph": [webpage, organization]}, ensure_ascii=False
    )
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def document_title(title: str, company_name: str) -> str:
    """The <title>: the page title, then the company name unless the title holds it."""
    return title if company_name.lower() in title.lower() else f"{title} | {company_name}"
