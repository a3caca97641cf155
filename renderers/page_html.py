"""Landing page HTML from content blocks: the design system's templates, head metadata and CSP.

Pure: the page, the site's fixed facts (company, customer logos, asset URLs) and flags go in;
an HTML string and the Content-Security-Policy that fits it come out. No Flask, no I/O beyond
the package's own templates, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal, get_args

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from renderers.hero_sources import HeroSources, hero_sources, share_image
from renderers.page_head import content_security_policy, document_title, page_json_ld
from renderers.richtext import render_markdown
from renderers.safe_urls import absolute_url, image_src, is_https, safe_href
from renderers.site import Site, build_site
from schemas.catalog import Customer
from schemas.content.pages import PageBlock, SitePageInput
from schemas.errors import Issue

__all__ = [
    "COLLECT_PATH",
    "FORM_STATES",
    "HONEYPOT_FIELD",
    "FormState",
    "RenderedPage",
    "Site",
    "build_site",
    "render_not_found",
    "render_page",
    "render_unavailable",
]

COLLECT_PATH = "/api/public/v1/collect"
# The collect endpoint (api/rest/collect.py) drops a post whose honeypot field is filled, and
# redirects to `?submitted=1`, or `?error=invalid_<field>#leadform` naming the field refused, or
# `?error=rate_limited#leadform` for a post over its rate limit, or `?error=unavailable#leadform`
# when the ingest queue could not take it (nothing was sent).
HONEYPOT_FIELD = "website"
FORM_ANCHOR = "leadform"
FormState = Literal[
    "open",
    "submitted",
    "invalid_email",
    "invalid_name",
    "invalid_company",
    "rate_limited",
    "unavailable",
]
FORM_STATES: tuple[FormState, ...] = get_args(FormState)


@dataclass(frozen=True)
class RenderedPage:
    """A page's HTML and the Content-Security-Policy header to serve it with."""

    html: str
    content_security_policy: str


@dataclass(frozen=True)
class Link:
    href: str
    label: str


@dataclass(frozen=True)
class Image:
    src: str
    alt: str
    sources: HeroSources | None = None


@dataclass(frozen=True)
class BlockView:
    """One block with what its template needs beyond the content: ids, links, safe HTML."""

    block: PageBlock
    anchor: str
    item_level: int = 3
    cta: Link | None = None
    image: Image | None = None
    html: Markup | None = None
    logos: tuple[Markup, ...] = ()
    form_anchor: str = FORM_ANCHOR
    submit_label: str = "Send request"


def render_page(
    page: SitePageInput,
    *,
    site: Site,
    hero_image_url: str | None = None,
    preview: bool = False,
    form_state: FormState = "open",
    warnings: Sequence[Issue] = (),
    variant: str | None = None,
) -> RenderedPage:
    """The page's HTML; `preview` adds noindex and a draft banner listing the gate's
    `warnings`; `form_state`, the form's; `variant`, the arm of an experiment this is (named
    to the beacon and in the lead form, so every event says what the visitor saw)."""
    canonical = f"{site.base_url}/p/{page.slug}"
    image = absolute_url(
        image_src(page.og_image_url, base_url=site.base_url)
        or _first_hero_image(page)
        or share_image(image_src(hero_image_url, base_url=site.base_url)),
        base_url=site.base_url,
    )
    fallback_cta = (
        Link(href="#" + FORM_ANCHOR, label="Talk to a strategist")
        if _has_leadform(page)
        else Link(href=str(site.company.urls.book_call), label="Book a call")
    )
    header_cta = Link(
        href=safe_href(page.cta_href) or fallback_cta.href,
        label=page.cta_label or fallback_cta.label,
    )
    logo = site.base_url + site.assets.favicon.href
    json_ld = page_json_ld(page, company=site.company, canonical=canonical, image=image, logo=logo)
    head = {
        "title": document_title(page.title, site.company.name),
        "og_title": page.title,
        "description": page.description,
        "noindex": page.noindex or preview,
        "canonical": canonical,
        "image": image,
        "image_size": (1200, 630) if image and hero_sources(image) else None,
        "image_alt": _hero_alt(page),
        "json_ld": Markup(json_ld),  # noqa: S704  # escaped for a <script> data block above
        "theme_color": site.theme_color,
    }
    views = [
        _view(block, n, page=page, hero_image_url=hero_image_url, site=site, fallback=header_cta)
        for n, block in enumerate(page.blocks, start=1)
    ]
    html = (
        _environment()
        .get_template("page.html.j2")
        .render(
            site=site,
            head=head,
            blocks=views,
            header_cta=header_cta,
            preview=preview,
            warnings=list(warnings) if preview else [],
            form_state=form_state,
            slug=page.slug,
            collect_url=COLLECT_PATH,
            honeypot=HONEYPOT_FIELD,
            variant=variant,
        )
    )
    policy = content_security_policy(json_ld, own_scripts=not preview)
    return RenderedPage(html=html, content_security_policy=policy)


def render_not_found(*, site: Site) -> RenderedPage:
    """The on-brand 404 page for /p/... paths that serve nothing."""
    return _render_error_page(site=site, title="Page not found", template="not_found.html.j2")


def render_unavailable(*, site: Site) -> RenderedPage:
    """The on-brand 503 page for /p/{slug} while the page store is down."""
    return _render_error_page(
        site=site, title="Page briefly unavailable", template="unavailable.html.j2"
    )


def _render_error_page(*, site: Site, title: str, template: str) -> RenderedPage:
    head = {
        "title": document_title(title, site.company.name),
        "og_title": title,
        "description": None,
        "noindex": True,
        "canonical": None,
        "image": None,
        "image_size": None,
        "image_alt": None,
        "json_ld": None,
        "theme_color": site.theme_color,
    }
    header_cta = Link(href=str(site.company.urls.book_call), label="Book a call")
    html = (
        _environment()
        .get_template(template)
        .render(site=site, head=head, header_cta=header_cta, preview=False)
    )
    return RenderedPage(html=html, content_security_policy=content_security_policy(None))


def _view(
    block: PageBlock,
    n: int,
    *,
    page: SitePageInput,
    hero_image_url: str | None,
    site: Site,
    fallback: Link,
) -> BlockView:
    anchor = f"b{n}"
    if block.type == "hero":
        own = image_src(block.imageUrl, base_url=site.base_url)
        image = own or image_src(hero_image_url, base_url=site.base_url)
        sources = hero_sources(image)
        # The alt text the page gives (a generated page's describes its drawn hero).
        picture = (
            Image(src=sources.png if sources else image, alt=block.imageAlt or "", sources=sources)
            if image
            else None
        )
        return BlockView(
            block=block,
            anchor=anchor,
            cta=_link(block.ctaHref, block.ctaLabel, fallback),
            image=picture,
        )
    if block.type in ("features", "steps"):
        return BlockView(block=block, anchor=anchor, item_level=3 if block.title else 2)
    if block.type == "richtext":
        return BlockView(
            block=block,
            anchor=anchor,
            html=Markup(  # noqa: S704  # nh3-sanitized in render_markdown
                render_markdown(block.markdown, heading_base=2 if block.title else 1)
            ),
        )
    if block.type == "logos":
        return BlockView(block=block, anchor=anchor, logos=_logos(site, suffix=anchor))
    if block.type == "cta":
        return BlockView(
            block=block, anchor=anchor, cta=_link(block.ctaHref, block.ctaLabel, fallback)
        )
    if block.type == "leadform":
        first = next(i for i, b in enumerate(page.blocks, start=1) if b.type == "leadform")
        return BlockView(
            block=block,
            anchor=anchor,
            form_anchor=FORM_ANCHOR if first == n else f"{FORM_ANCHOR}-{n}",
            submit_label=page.cta_label or "Send request",
        )
    if block.type == "quote":
        return BlockView(block=block, anchor=anchor, logos=_quote_logo(block.company, site, anchor))
    return BlockView(block=block, anchor=anchor)


def _link(href: str | None, label: str | None, fallback: Link) -> Link:
    return Link(href=safe_href(href) or fallback.href, label=label or fallback.label)


def _logos(site: Site, *, suffix: str) -> tuple[Markup, ...]:
    return tuple(_logo(site, c, suffix) for c in site.customers if c.slug in site.logos)


def _quote_logo(company: str | None, site: Site, suffix: str) -> tuple[Markup, ...]:
    """The logo of the customer a quote names, when it is one of ours."""
    text = (company or "").lower()
    for customer in site.customers:
        named = re.search(rf"\b{re.escape(customer.name.lower())}\b", text)
        if named and customer.slug in site.logos:
            return (_logo(site, customer, suffix),)
    return ()


def _logo(site: Site, customer: Customer, suffix: str) -> Markup:
    # Logo SVGs are our own files from content/; ids get the block's suffix so two logos of
    # one customer on a page never repeat an id.
    svg = site.logos[customer.slug]
    return Markup(  # noqa: S704  # our own SVG files from content/, not partner input
        re.sub(r'(id="|aria-labelledby=")([\w-]+)"', rf'\1\2-{suffix}"', svg)
    )


def _first_hero_image(page: SitePageInput) -> str | None:
    hero = page.blocks[0]
    return (
        hero.imageUrl if hero.type == "hero" and hero.imageUrl and is_https(hero.imageUrl) else None
    )


def _hero_alt(page: SitePageInput) -> str | None:
    hero = page.blocks[0]
    return hero.imageAlt if hero.type == "hero" and hero.imageAlt else None


def _has_leadform(page: SitePageInput) -> bool:
    return any(block.type == "leadform" for block in page.blocks)


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("renderers", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
        keep_trailing_newline=False,
    )
