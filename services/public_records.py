"""The public records as payloads: one code path for the REST bodies and the MCP tool results.

Each payload is a REST body without its `ok` member; `api.rest.public` wraps them, the MCP tools
return them as structured results. Pure: the Catalog in, pydantic models out.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from schemas.catalog import Catalog
from schemas.public import BlogPost, Company, Experiment, ExperimentDetail, Role, RoleDetail


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class CompanyInfo(_Payload):
    """The company record."""

    company: Company


class BlogPostList(_Payload):
    """Every blog post, newest first as the site lists them."""

    posts: list[BlogPost]


class ExperimentList(_Payload):
    """Every research experiment, without its write-up."""

    experiments: list[Experiment] = Field(
        description="Call get_experiment with a slug for the full write-up"
    )


class ExperimentFound(_Payload):
    """One research experiment with its write-up in Markdown."""

    experiment: ExperimentDetail


class CareerList(_Payload):
    """Every open role, without its description."""

    roles: list[Role] = Field(description="Call get_career with a slug for the description")


class RoleFound(_Payload):
    """One open role with its description in Markdown."""

    role: RoleDetail


class PublicRecords:
    """The payloads of the public read surface, built once from the Catalog."""

    def __init__(self, catalog: Catalog) -> None:
        self.company = CompanyInfo(company=catalog.company)
        self.posts = BlogPostList(posts=list(catalog.posts))
        # Lists keep details' bodies out: they serialize by the declared item type.
        self.experiments = ExperimentList(experiments=list(catalog.experiments))
        self.roles = CareerList(roles=list(catalog.roles))
        self.experiment_by_slug = {
            e.slug: ExperimentFound(experiment=e) for e in catalog.experiments
        }
        self.role_by_slug = {r.slug: RoleFound(role=r) for r in catalog.roles}
