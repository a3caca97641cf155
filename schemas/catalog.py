"""The content files' shapes (content/) and the loaded Catalog the service reads from."""

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.public import BlogPost, Company, ExperimentDetail, RoleDetail

_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class BlogPostFile(_File):
    """content/blog/posts.json items; the body sits in content/blog/<slug>.md."""

    slug: str = Field(pattern=r"^[a-z0-9-]+$")
    title: str
    author: str
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    excerpt: str


class ExperimentFile(_File):
    """content/research/experiments.json items; the body sits in content/research/<slug>.md."""

    slug: str = Field(pattern=r"^[a-z0-9-]+$")
    title: str
    tag: str
    status: str
    excerpt: str
    author: str
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    readTime: str  # noqa: N815  # SPEC.md's field name
    surface: str


class RoleFile(_File):
    """content/careers/roles.json items; the description sits in content/careers/<slug>.md."""

    slug: str = Field(pattern=r"^[a-z0-9-]+$")
    code: str
    title: str
    tagline: str
    location: str
    type: str
    isNew: bool  # noqa: N815  # SPEC.md's field name


class BannedPhrase(_File):
    phrase: str = Field(min_length=2)
    reason: str
    suggest: str | None = None
    allow: list[Literal["negated", "proof_quote"]] = Field(
        default_factory=list,
        description='Contexts where the phrase passes: `negated` ("no guaranteed meetings"),'
        " `proof_quote` (inside a customer quote the brief's proof gives); none by default",
    )


class TypeStep(_File):
    name: str
    size_rem: float = Field(gt=0)
    line_height: float = Field(gt=0)
    weight: int = Field(ge=100, le=900)


class Brand(_File):
    """content/brand.json: the rules the quality gate and the design system read."""

    banned_wording: list[BannedPhrase] = Field(min_length=1)
    icp_vocabulary: list[str] = Field(min_length=1)
    palette: dict[str, str]
    type_scale: list[TypeStep] = Field(min_length=1)
    font_stack: str
    voice: list[str]

    @field_validator("palette")
    @classmethod
    def _hex_colours(cls, palette: dict[str, str]) -> dict[str, str]:
        for name, value in palette.items():
            if not _HEX.match(value):
                raise ValueError(f"palette.{name} must be a #rrggbb colour")
        return palette


class Customer(_File):
    """content/customers.json items; the logo is an SVG file under content/logos/."""

    slug: str = Field(pattern=r"^[a-z0-9-]+$")
    name: str
    logo: str = Field(pattern=r"^logos/[a-z0-9-]+\.svg$")
    industry: str


class Catalog(BaseModel):
    """Everything content/ holds, validated and with canonical URLs filled in."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    company: Company
    posts: list[BlogPost]
    post_bodies: dict[str, str]
    experiments: list[ExperimentDetail]
    roles: list[RoleDetail]
    brand: Brand
    customers: list[Customer]
    logos: dict[str, str] = Field(description="customer slug -> SVG markup")
    docs: dict[str, str] = Field(default_factory=dict, description="content/docs/*.md by file name")
