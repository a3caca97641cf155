"""Load content/ into a Catalog; a bad file stops start-up with a message naming file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from schemas.catalog import (
    BlogPostFile,
    Brand,
    Catalog,
    Customer,
    ExperimentFile,
    RoleFile,
)
from schemas.errors import field_path
from schemas.public import BlogPost, Company, ExperimentDetail, RoleDetail

T = TypeVar("T")


class ContentError(Exception):
    """A content file is missing or does not match its schema."""

    def __init__(self, path: Path, field: str, message: str) -> None:
        self.path = path
        self.field = field
        super().__init__(f"{path}: {field or '(file)'}: {message}")


def load_catalog(content_dir: Path) -> Catalog:
    """Read and validate every content file. Raises: ContentError."""
    company = _load(content_dir / "company.json", Company)
    posts = _load(content_dir / "blog" / "posts.json", list[BlogPostFile])
    experiments = _load(content_dir / "research" / "experiments.json", list[ExperimentFile])
    roles = _load(content_dir / "careers" / "roles.json", list[RoleFile])
    brand = _load(content_dir / "brand.json", Brand)
    customers = _load(content_dir / "customers.json", list[Customer])
    _unique_slugs(content_dir / "blog" / "posts.json", [p.slug for p in posts])
    _unique_slugs(content_dir / "research" / "experiments.json", [e.slug for e in experiments])
    _unique_slugs(content_dir / "careers" / "roles.json", [r.slug for r in roles])
    urls = company.urls
    blog_base, research_base, careers_base = (
        str(u).rstrip("/") for u in (urls.blog, urls.research, urls.careers)
    )
    docs_dir = content_dir / "docs"
    return Catalog(
        company=company,
        posts=[BlogPost(url=f"{blog_base}/{p.slug}", **p.model_dump()) for p in posts],
        post_bodies={p.slug: _text(content_dir / "blog" / f"{p.slug}.md") for p in posts},
        experiments=[
            ExperimentDetail(
                url=f"{research_base}/{e.slug}",
                body=_text(content_dir / "research" / f"{e.slug}.md"),
                **e.model_dump(),
            )
            for e in experiments
        ],
        roles=[
            RoleDetail(
                url=f"{careers_base}/{r.slug}",
                description=_text(content_dir / "careers" / f"{r.slug}.md"),
                **r.model_dump(),
            )
            for r in roles
        ],
        brand=brand,
        customers=customers,
        logos={c.slug: _svg(content_dir / c.logo) for c in customers},
        docs={p.name: p.read_text(encoding="utf-8") for p in sorted(docs_dir.glob("*.md"))}
        if docs_dir.is_dir()
        else {},
    )


def _load(path: Path, shape: type[T] | Any) -> Any:
    raw = _text(path)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise ContentError(path, "", f"not valid JSON ({err.msg} at line {err.lineno})") from err
    try:
        if isinstance(shape, type) and issubclass(shape, BaseModel):
            return shape.model_validate(data)
        return TypeAdapter(shape).validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        raise ContentError(path, field_path(first["loc"]), first["msg"]) from err


def _text(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise ContentError(path, "", "file is missing") from err
    if not text.strip():
        raise ContentError(path, "", "file is empty")
    return text


def _svg(path: Path) -> str:
    text = _text(path)
    lowered = text.lower()
    if "<svg" not in lowered or "<script" in lowered or 'href="http' in lowered:
        raise ContentError(
            path, "", "must be a self-contained SVG with no script or external reference"
        )
    return text


def _unique_slugs(path: Path, slugs: list[str]) -> None:
    seen: set[str] = set()
    for index, slug in enumerate(slugs):
        if slug in seen:
            raise ContentError(path, f"{index}.slug", f"duplicate slug {slug!r}")
        seen.add(slug)
