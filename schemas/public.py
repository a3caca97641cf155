"""Public read API: the company, blog, research and careers records and their response bodies."""

from typing import Literal

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Agent(_Record):
    """One of the company's AI agents."""

    name: str = Field(min_length=1, examples=["Scout"])
    slug: str = Field(pattern=r"^[a-z0-9-]+$")
    does: str = Field(min_length=1, description="What the agent does, in one sentence")


class Founder(_Record):
    name: str
    title: str
    bio: str


class PricingPlan(_Record):
    name: str
    price: str = Field(description="Price as shown on the site, e.g. '$9,500 / month'")
    billing: str
    summary: str
    includes: list[str]


class EngagementModel(_Record):
    summary: str
    steps: list[str]
    minimum_term: str
    cancellation: str


class CompanyUrls(_Record):
    """Canonical URLs of the company's own site."""

    website: AnyHttpUrl
    blog: AnyHttpUrl
    research: AnyHttpUrl
    careers: AnyHttpUrl
    book_call: AnyHttpUrl
    contact: str


class Company(_Record):
    """The company record returned by GET /api/public/v1/company."""

    name: str = Field(min_length=1)
    legal_name: str
    tagline: str
    description: str
    founded: int
    headquarters: str
    agents: list[Agent] = Field(min_length=1)
    engagement_model: EngagementModel
    pricing: list[PricingPlan]
    founders: list[Founder]
    urls: CompanyUrls


class BlogPost(_Record):
    slug: str
    title: str
    author: str
    url: str = Field(json_schema_extra={"format": "uri"})
    date: str
    excerpt: str


class Experiment(_Record):
    slug: str
    title: str
    tag: str
    status: str
    excerpt: str
    author: str
    date: str
    readTime: str  # noqa: N815  # the field name is SPEC.md's
    surface: str
    url: str = Field(json_schema_extra={"format": "uri"})


class ExperimentDetail(Experiment):
    """An experiment with its write-up, as the detail endpoint returns it."""

    body: str = Field(description="The write-up in Markdown")


class Role(_Record):
    slug: str
    code: str
    title: str
    tagline: str
    location: str
    type: str
    isNew: bool  # noqa: N815  # the field name is SPEC.md's
    url: str = Field(json_schema_extra={"format": "uri"})


class RoleDetail(Role):
    """A role with its description, as the detail endpoint returns it."""

    description: str = Field(description="The role description in Markdown")


class CompanyBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    company: Company


class BlogBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    posts: list[BlogPost]


class ResearchBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    experiments: list[Experiment]


class ExperimentBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    experiment: ExperimentDetail


class CareersBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    roles: list[Role]


class RoleBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    role: RoleDetail
