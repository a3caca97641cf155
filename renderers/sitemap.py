"""sitemap.xml and sitemap-images.xml from a list of entries (sitemaps.org 0.9, Google image 1.1).

Pure: callers pass every public URL (the developer pages, the docs, published landing pages
with their hero images); nothing here knows where the entries come from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from xml.etree import ElementTree as ET

__all__ = ["IMAGE_NS", "SITEMAP_NS", "SitemapEntry", "render_image_sitemap", "render_sitemap"]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


@dataclass(frozen=True)
class SitemapEntry:
    """One public URL; `lastmod` is a W3C date (YYYY-MM-DD or full time), `images` absolute URLs."""

    loc: str
    lastmod: str | None = None
    images: tuple[str, ...] = ()


def render_sitemap(entries: Iterable[SitemapEntry]) -> str:
    """A urlset with one `<url>` per entry."""
    urlset = ET.Element("urlset", {"xmlns": SITEMAP_NS})
    for entry in entries:
        _url(urlset, entry)
    return _document(urlset)


def render_image_sitemap(entries: Iterable[SitemapEntry]) -> str:
    """The same urlset with `<image:image>` children for every image of a page."""
    urlset = ET.Element("urlset", {"xmlns": SITEMAP_NS, "xmlns:image": IMAGE_NS})
    for entry in entries:
        url = _url(urlset, entry)
        for image in entry.images:
            node = ET.SubElement(url, "image:image")
            ET.SubElement(node, "image:loc").text = image
    return _document(urlset)


def _url(urlset: ET.Element, entry: SitemapEntry) -> ET.Element:
    url = ET.SubElement(urlset, "url")
    ET.SubElement(url, "loc").text = entry.loc
    if entry.lastmod:
        ET.SubElement(url, "lastmod").text = entry.lastmod
    return url


def _document(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
