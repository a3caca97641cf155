"""Richtext blocks: Markdown to HTML with raw HTML off, then sanitized by nh3.

Headings are renumbered to sit under the block's own heading, so a page keeps exactly one h1
and its heading levels never skip. Nothing here reads files, the clock or the network.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

import nh3

if TYPE_CHECKING:  # markdown-it loads on the first render, not with the app (bench_startup)
    from markdown_it import MarkdownIt

__all__ = ["render_markdown"]

_TAGS = {
    "p", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "strong", "em", "code", "pre",
    "blockquote", "a", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "img", "s",
}  # fmt: skip
_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "ol": {"start"}}
_SCHEMES = {"https", "http", "mailto"}
_HEADING = re.compile(r"<(/?)h([1-6])>")


@cache
def _parser() -> MarkdownIt:
    # "js-default" is CommonMark with raw HTML disabled and markdown-it's link validation
    # (javascript:, vbscript:, file: and non-image data: URLs are refused); tables on.
    from markdown_it import MarkdownIt

    return MarkdownIt("js-default").enable("table").enable("strikethrough")


def render_markdown(markdown: str, *, heading_base: int) -> str:
    """Sanitized HTML for one richtext block; its headings start at heading_base + 1."""
    html = _parser().render(markdown)
    html = _renumber_headings(html, heading_base=heading_base)
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
        attribute_filter=_https_images_only,
        # Images in prose sit below the fold: the browser fetches them when they come near.
        set_tag_attribute_values={"img": {"loading": "lazy", "decoding": "async"}},
    )


def _https_images_only(tag: str, attribute: str, value: str) -> str | None:
    """Images load over https only (the page's CSP refuses anything else)."""
    if tag == "img" and attribute == "src" and not value.lower().startswith("https://"):
        return None
    return value


def _renumber_headings(html: str, *, heading_base: int) -> str:
    """Map the heading levels used, in rank order, onto consecutive levels below the block's."""
    used = sorted({int(level) for _, level in _HEADING.findall(html)})
    mapping = {level: min(heading_base + 1 + rank, 6) for rank, level in enumerate(used)}
    return _HEADING.sub(lambda m: f"<{m.group(1)}h{mapping[int(m.group(2))]}>", html)
