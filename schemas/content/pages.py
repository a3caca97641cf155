"""Content API: SitePageInput and the ten PageBlock types, exactly as SPEC.md's tables.

Structure and limits live here (pydantic reports every failure at once); the quality gate's
rules that need judgement (hero position, ICP, URL safety, brand wording) live in gate/.
URL fields are plain strings here so that the gate can name an unsafe one as `unsafe_url`.
"""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.errors import Issue

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
SLUG_MAX_LENGTH = 80

Text = Annotated[str, Field(min_length=1)]


class _Strict(BaseModel):
    """Unknown fields are refused (`unknown_field`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class HeroBlock(_Strict):
    type: Literal["hero"]
    eyebrow: str | None = Field(default=None, max_length=120)
    title: Text = Field(max_length=90)
    sub: Text = Field(max_length=220, description="Must clearly state the target ICP")
    bullets: list[Annotated[str, Field(max_length=100)]] | None = Field(default=None, max_length=5)
    ctaLabel: str | None = Field(default=None, max_length=40)  # noqa: N815  # SPEC.md's field name
    ctaHref: str | None = Field(default=None, description="Site path or absolute https URL")  # noqa: N815
    imageUrl: str | None = Field(default=None, description="Absolute https URL")  # noqa: N815
    imageAlt: str | None = None  # noqa: N815


class LogosBlock(_Strict):
    type: Literal["logos"]
    title: str | None = None


class StatItem(_Strict):
    value: Text = Field(max_length=24)
    label: Text = Field(max_length=80)


class StatsBlock(_Strict):
    type: Literal["stats"]
    items: list[StatItem] = Field(min_length=1, max_length=4)


class CardItem(_Strict):
    title: Text = Field(max_length=80)
    body: Text = Field(max_length=320)


class FeaturesBlock(_Strict):
    type: Literal["features"]
    title: str | None = None
    lede: str | None = None
    items: list[CardItem] = Field(min_length=1, max_length=8)


class StepsBlock(_Strict):
    type: Literal["steps"]
    title: str | None = None
    lede: str | None = None
    items: list[CardItem] = Field(min_length=1, max_length=8)


class QuoteBlock(_Strict):
    type: Literal["quote"]
    quote: Text = Field(max_length=500)
    who: str | None = None
    company: str | None = None


class RichtextBlock(_Strict):
    type: Literal["richtext"]
    title: str | None = None
    markdown: Text = Field(max_length=4000)


class FaqItem(_Strict):
    q: Text
    a: Text


class FaqBlock(_Strict):
    type: Literal["faq"]
    title: str | None = None
    items: list[FaqItem] = Field(min_length=1, max_length=12)


NEXT_STEP_MAX = 200
NEXT_STEPS_MAX = 4


class LeadformBlock(_Strict):
    type: Literal["leadform"]
    title: str | None = None
    sub: str | None = None
    next: list[Annotated[str, Field(min_length=1, max_length=NEXT_STEP_MAX)]] | None = Field(
        default=None,
        min_length=1,
        max_length=NEXT_STEPS_MAX,
        description="What happens after a visitor sends the form, one step per item, shown "
        "under 'What happens next' and after sending; left out, the company's own steps (a "
        "strategist reads the request, emails within one business day to find a time for a "
        "45-minute intro call)",
    )


class CtaBlock(_Strict):
    type: Literal["cta"]
    title: Text = Field(max_length=120)
    sub: str | None = None
    ctaLabel: str | None = Field(default=None, max_length=40)  # noqa: N815  # SPEC.md's field name
    ctaHref: str | None = None  # noqa: N815


PageBlock = Annotated[
    HeroBlock
    | LogosBlock
    | StatsBlock
    | FeaturesBlock
    | StepsBlock
    | QuoteBlock
    | RichtextBlock
    | FaqBlock
    | LeadformBlock
    | CtaBlock,
    Field(discriminator="type"),
]

BLOCK_TYPES: tuple[str, ...] = (
    "hero",
    "logos",
    "stats",
    "features",
    "steps",
    "quote",
    "richtext",
    "faq",
    "leadform",
    "cta",
)


class SitePageInput(_Strict):
    """The body of POST /api/public/content/pages: content only; the design system adds layout."""

    slug: str = Field(max_length=SLUG_MAX_LENGTH, pattern=SLUG_PATTERN, examples=["growth-audit"])
    title: Text = Field(max_length=60)
    description: str | None = Field(default=None, max_length=160)
    og_image_url: str | None = Field(default=None, json_schema_extra={"format": "uri"})
    cta_label: str | None = Field(default=None, max_length=40)
    cta_href: str | None = Field(default=None, description="Site path or absolute https URL")
    noindex: bool = False
    is_published: bool = True
    blocks: list[PageBlock] = Field(min_length=1, max_length=30)


# --- the stored record and the Content API's bodies ------------------------------------

PageStatusName = Literal["draft", "published", "unpublished"]


class GateResult(BaseModel):
    """Which quality gate a stored page passed."""

    model_config = ConfigDict(defer_build=True)

    passed: bool
    ruleset: str = Field(
        description="The gate and brand-rules version applied", examples=["gate-3+brand-3f2a9c1d"]
    )


class PageRecord(BaseModel):
    """A stored landing page: the input fields plus what the service adds."""

    model_config = ConfigDict(defer_build=True)

    slug: str
    title: str
    description: str | None = None
    og_image_url: str | None = None
    cta_label: str | None = None
    cta_href: str | None = None
    noindex: bool = False
    is_published: bool
    blocks: list[PageBlock]
    status: PageStatusName = Field(description="draft, published or unpublished")
    url: str = Field(
        description="The page's public URL: the base URL, then /p/ and the slug; it answers"
        " only while published"
    )
    version: int = Field(
        ge=1, description="Grows by one per write; the strong ETag is derived from it"
    )
    source: Literal["api", "generate"]
    hero_image_url: str | None = None
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None = Field(default=None, description="When it last went live")
    gate: GateResult
    preview_url: str | None = Field(
        default=None,
        description="Drafts only: a signed link to this version, valid 7 days after the change",
    )
    partner: str | None = Field(
        default=None,
        description="The partner that owns the page: the one whose key created it",
    )


class PageBody(BaseModel):
    """GET, POST, PATCH and DELETE of one page."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    page: PageRecord
    warnings: list[Issue] = Field(
        default_factory=list,
        description="The quality gate's warnings on the page as written (judgement calls such "
        "as a universal word in a promise), judged on the page as stored; they never block "
        "a write",
    )


class PageListBody(BaseModel):
    """GET /api/public/content/pages: newest first; pass `next_cursor` as `cursor` for more."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    pages: list[PageRecord]
    next_cursor: str | None = None
    has_more: bool = False


class VersionRecord(BaseModel):
    """One kept version of a page, so a write can be undone: who wrote it, how, when, the page."""

    model_config = ConfigDict(defer_build=True)

    version: int = Field(ge=1)
    status: PageStatusName
    source: Literal["api", "generate", "restore"] = Field(
        description="What wrote it: a Content API write, a generation job, or a restore"
    )
    partner: str = Field(description="The partner whose key wrote this version")
    key_id: str = Field(description="The id of that key (never the secret)")
    saved_at: datetime
    page: PageRecord


class VersionBody(BaseModel):
    """GET /api/public/content/pages/{slug}/versions/{n}."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    version: VersionRecord


class VersionListBody(BaseModel):
    """GET .../pages/{slug}/versions: newest first; pass `next_cursor` as `cursor` for more."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    versions: list[VersionRecord]
    next_cursor: str | None = None
    has_more: bool = False
