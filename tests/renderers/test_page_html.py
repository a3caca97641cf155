"""renderers.page_html: the design system's HTML, head metadata and CSP, read as parsed HTML."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from backends.content_files import load_catalog
from renderers.assets import brand_tokens
from renderers.page_html import FormState, Site, build_site, render_not_found, render_page
from renderers.safe_urls import safe_href
from schemas.content.pages import BLOCK_TYPES, SitePageInput
from tests.e2e.sample_page import all_blocks_page

CONTENT = Path(__file__).resolve().parents[2] / "content"
BASE = "https://pages.example"


class Tree(HTMLParser):
    """Start tags with their attributes, in document order, and the text inside <script>s."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())
        ]

    def meta(self, key: str) -> str | None:
        for attrs in self.all("meta"):
            if key in (attrs.get("name"), attrs.get("property")):
                return attrs.get("content")
        return None


@cache
def _site() -> Site:
    return build_site(load_catalog(CONTENT), base_url=BASE)


def _page(**changes: Any) -> SitePageInput:
    return SitePageInput.model_validate(all_blocks_page() | changes)


@pytest.mark.spec("pages.render")
def test_every_block_type_renders_its_section() -> None:
    """SPEC Content API: the ten block types all render on the design system."""
    tree = Tree(render_page(_page(), site=_site()).html)

    classes = {(a.get("class") or "").split()[1] for a in tree.all("section")}

    assert set(BLOCK_TYPES) <= classes


@pytest.mark.spec("pages.render")
def test_page_has_one_h1_and_heading_levels_never_skip() -> None:
    """DESIGN pages: semantic HTML with one h1 (the hero title) and headings in order."""
    blocks = [*all_blocks_page()["blocks"], {"type": "richtext", "markdown": "# Top\n\n#### Deep"}]

    html = render_page(_page(blocks=blocks), site=_site()).html
    levels = [
        int(t[1]) for t, _ in Tree(html).tags if len(t) == 2 and t[0] == "h" and t[1].isdigit()
    ]

    assert levels.count(1) == 1
    assert levels[0] == 1
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels))


@pytest.mark.spec("pages.render")
def test_head_carries_canonical_description_open_graph_and_twitter_tags() -> None:
    """SPEC Content API: meta description, canonical URL, Open Graph and Twitter tags."""
    page = _page(og_image_url="https://img.example/og.png")

    tree = Tree(render_page(page, site=_site()).html)

    assert tree.all("link", rel="canonical")[0]["href"] == f"{BASE}/p/pipeline-audit"
    assert tree.meta("description") == page.description
    assert tree.meta("og:url") == f"{BASE}/p/pipeline-audit"
    assert tree.meta("og:image") == "https://img.example/og.png"
    assert tree.meta("twitter:card") == "summary_large_image"
    assert tree.meta("robots") is None


@pytest.mark.spec("pages.render")
def test_generated_hero_image_is_the_share_image_when_no_og_image_is_given() -> None:
    """DESIGN pages: og:image falls back to the record's hero_image_url."""
    tree = Tree(render_page(_page(), site=_site(), hero_image_url="/assets/heroes/a.png").html)

    assert tree.meta("og:image") == f"{BASE}/assets/heroes/a.png"
    assert tree.all("img", src="/assets/heroes/a.png")[0]["alt"] == ""


@pytest.mark.spec("pages.render")
@pytest.mark.parametrize(("noindex", "preview"), [(True, False), (False, True)])
def test_noindex_pages_and_previews_tell_robots_not_to_index(noindex: bool, preview: bool) -> None:
    """SPEC SitePageInput.noindex and DESIGN draft previews: a robots noindex meta tag."""
    html = render_page(_page(noindex=noindex), site=_site(), preview=preview).html

    assert Tree(html).meta("robots") == "noindex, nofollow"
    assert ("Draft preview" in html) is preview


@pytest.mark.spec("pages.render")
def test_json_ld_cannot_close_its_script_element_and_its_hash_is_in_the_csp() -> None:
    """DESIGN pages: JSON-LD safely escaped; the CSP allows it by hash, and no inline script
    but our own script files ('self': the beacon)."""
    page = _page(title="</script><script>alert(1)</script>", description="a & b <!-- c")
    site = _site()

    rendered = render_page(page, site=site)
    tree = Tree(rendered.html)

    scripts = tree.all("script")
    assert scripts == [
        {"src": site.assets.beacon.href, "defer": None},
        {"type": "application/ld+json"},
    ]
    data = json.loads(tree.scripts[0])
    assert data["@graph"][0]["name"] == page.title
    assert data["@graph"][1]["@type"] == "Organization"
    digest = base64.b64encode(hashlib.sha256(tree.scripts[0].encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in rendered.content_security_policy
    assert "default-src 'none'" in rendered.content_security_policy


@pytest.mark.spec("pages.render")
def test_richtext_escapes_raw_html_and_drops_javascript_links() -> None:
    """DESIGN: markdown may not carry raw HTML or javascript: links."""
    markdown = (
        '<img src=x onerror=alert(1)> [a](javascript:alert(1)) <a href="javascript:x">b</a>'
        " [ok](/p/x)"
    )
    blocks = [all_blocks_page()["blocks"][0], {"type": "richtext", "markdown": markdown}]

    tree = Tree(render_page(_page(blocks=blocks), site=_site()).html)

    assert [a["href"] for a in tree.all("a") if a.get("href") == "/p/x"] == ["/p/x"]
    assert not [a for a in tree.all("a") if "javascript" in (a.get("href") or "").lower()]
    assert not [a for _, a in tree.tags if any(k.startswith("on") for k in a)]


@pytest.mark.spec("pages.render")
@pytest.mark.parametrize(
    ("href", "safe"),
    [
        ("/p/other", True),
        ("#lead", True),
        ("https://kestrel.example/book", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        (" https://x.example", False),
        ("//evil.example", False),
        ("http://kestrel.example", False),
        ("data:text/html,x", False),
        ("/\\evil.example", False),
    ],
)
def test_links_render_only_for_site_paths_anchors_and_https(href: str, safe: bool) -> None:
    """SPEC gate rule 4 held again at render time: unsafe link targets never reach the page."""
    assert (safe_href(href) == href) is safe


@pytest.mark.spec("pages.render")
def test_lead_form_posts_to_collect_without_javascript() -> None:
    """DESIGN ingest: the leadform posts to /api/public/v1/collect and works without JavaScript."""
    tree = Tree(render_page(_page(), site=_site()).html)

    form = tree.all("form")[0]
    inputs = {a["name"]: a for a in tree.all("input")}
    labels = {a["for"] for a in tree.all("label")}

    assert (form["method"], form["action"]) == ("post", "/api/public/v1/collect")
    assert inputs["email"]["type"] == "email"
    assert "required" in inputs["email"]
    assert inputs["email"]["autocomplete"] == "email"
    assert inputs["page"]["value"] == "pipeline-audit"
    assert inputs["type"]["value"] == "lead_form"
    assert {inputs[n]["id"] for n in ("email", "name", "company")} <= labels
    assert not tree.all("script", src="")


@pytest.mark.spec("pages.render")
def test_submitted_page_shows_the_thank_you_state_instead_of_the_form() -> None:
    """DESIGN ingest: the form's redirect lands on a visible thank-you state."""
    html = render_page(_page(), site=_site(), form_state="submitted").html

    assert not Tree(html).all("form")
    assert Tree(html).all("p", role="status")


@pytest.mark.spec("pages.render")
def test_logo_wall_inlines_every_customer_logo_with_unique_ids() -> None:
    """The customer logos come from content/ and show in the logos block."""
    blocks = [all_blocks_page()["blocks"][0], {"type": "logos"}, {"type": "logos"}]

    tree = Tree(render_page(_page(blocks=blocks), site=_site()).html)

    ids = [a["id"] for _, a in tree.tags if a.get("id")]
    assert len(tree.all("svg", role="img")) == 2 * len(_site().customers)
    assert len(ids) == len(set(ids))


@pytest.mark.spec("pages.render")
def test_stylesheet_tokens_come_from_the_brand_palette_and_type_scale() -> None:
    """One stylesheet built on the brand palette and type scale."""
    brand = load_catalog(CONTENT).brand

    tokens = brand_tokens(brand)

    assert f"--c-accent: {brand.palette['accent']};" in tokens
    assert f"--fs-h2: {brand.type_scale[2].size_rem:g}rem;" in tokens
    assert _site().assets.stylesheet.data.startswith(tokens.encode())
    assert _site().assets.stylesheet.href.startswith("/static/site.")


@pytest.mark.spec("pages.not_found")
def test_not_found_page_is_on_brand_and_noindexed() -> None:
    """DESIGN: unknown, draft and unpublished /p/ paths answer an on-brand HTML 404."""
    tree = Tree(render_not_found(site=_site()).html)

    assert tree.meta("robots") == "noindex, nofollow"
    assert len(tree.all("h1")) == 1
    assert tree.all("link", rel="stylesheet")


@pytest.mark.spec("pages.render")
def test_rejected_email_is_shown_next_to_its_field() -> None:
    """DESIGN ingest: collect's `?error=invalid_email` redirect shows the error on the field."""
    tree = Tree(render_page(_page(), site=_site(), form_state="invalid_email").html)

    email = next(a for a in tree.all("input") if a.get("name") == "email")

    assert email["aria-invalid"] == "true"
    assert tree.all("p", id=email["aria-describedby"] or "")


@pytest.mark.spec("pages.render")
@pytest.mark.parametrize(
    ("field", "state"), [("name", "invalid_name"), ("company", "invalid_company")]
)
def test_a_refused_name_or_company_is_shown_next_to_that_field_and_not_the_email(
    field: str, state: FormState
) -> None:
    """collect's `?error=invalid_<field>` marks that field, tied to its message; email is left."""
    tree = Tree(render_page(_page(), site=_site(), form_state=state).html)
    inputs = {a.get("name"): a for a in tree.all("input")}

    message = tree.all("p", id=inputs[field]["aria-describedby"] or "")
    assert inputs[field]["aria-invalid"] == "true"
    assert len(message) == 1
    assert "aria-invalid" not in inputs["email"]
    assert len(tree.all("p", **{"class": "field-error"})) == 1


@pytest.mark.spec("pages.render")
def test_a_generated_hero_offers_png_and_webp_at_600_and_1200_and_shares_the_png() -> None:
    """1200x630 attributes, srcset with the 600-wide file, PNG for link previews."""
    stored = f"{BASE}/assets/hero/audit/0123456789ab-1200x630.png"
    page = all_blocks_page()
    page["blocks"][0] = {**page["blocks"][0], "imageAlt": "Illustration: bars rising"}
    page["blocks"][0].pop("imageUrl", None)
    page.pop("og_image_url", None)

    tree = Tree(
        render_page(SitePageInput.model_validate(page), site=_site(), hero_image_url=stored).html
    )

    stem = f"{BASE}/assets/hero/audit/0123456789ab"
    img = tree.all("img", src=f"{stem}-1200x630.png")[0]
    assert (img["width"], img["height"]) == ("1200", "630")
    assert img["srcset"] == f"{stem}-600x315.png 600w, {stem}-1200x630.png 1200w"
    assert img["sizes"]
    assert img["alt"] == "Illustration: bars rising"
    webp = tree.all("source", type="image/webp")[0]
    assert webp["srcset"] == f"{stem}-600x315.webp 600w, {stem}-1200x630.webp 1200w"
    assert tree.meta("og:image") == f"{stem}-1200x630.png"
    assert tree.meta("twitter:image") == f"{stem}-1200x630.png"
    assert tree.meta("og:image:width") == "1200"
    assert tree.meta("og:image:height") == "630"
    assert tree.meta("og:image:alt") == "Illustration: bars rising"


def test_a_page_stored_with_a_webp_hero_still_shares_the_png() -> None:
    """Pages generated before the PNG came first keep working: the PNG sits beside the WebP."""
    stored = f"{BASE}/assets/hero/old/abcdef123456-1200x630.webp"
    page = all_blocks_page()
    page["blocks"][0].pop("imageUrl", None)
    page.pop("og_image_url", None)

    tree = Tree(
        render_page(SitePageInput.model_validate(page), site=_site(), hero_image_url=stored).html
    )

    assert tree.meta("og:image") == f"{BASE}/assets/hero/old/abcdef123456-1200x630.png"
