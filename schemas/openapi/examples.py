"""Real examples for the OpenAPI document from the catalog: slugs that exist and true answers."""

from typing import Any

from pydantic import BaseModel

from schemas.catalog import Catalog
from schemas.public import (
    BlogBody,
    CareersBody,
    CompanyBody,
    ExperimentBody,
    ResearchBody,
    RoleBody,
)

__all__ = ["add_real_examples"]

V1 = "/api/public/v1"


def add_real_examples(document: dict[str, Any], catalog: Catalog) -> None:
    """Slug parameters name real records; the public reads' 200s carry their real bodies."""
    examples = {
        f"{V1}/research/{{slug}}": catalog.experiments[0].slug if catalog.experiments else None,
        f"{V1}/careers/{{slug}}": catalog.roles[0].slug if catalog.roles else None,
    }
    for path, slug in examples.items():
        for param in document["paths"][path]["get"]["parameters"]:
            if param["name"] == "slug" and slug:
                param["example"] = slug
    for path, body in _public_bodies(catalog).items():
        content = document["paths"][path]["get"]["responses"]["200"]["content"]
        content["application/json"]["example"] = body.model_dump(mode="json")


def _public_bodies(catalog: Catalog) -> dict[str, BaseModel]:
    """The real answers of the public reads, as response examples."""
    bodies: dict[str, BaseModel] = {
        f"{V1}/company": CompanyBody(company=catalog.company),
        f"{V1}/blog": BlogBody(posts=catalog.posts),
        f"{V1}/research": ResearchBody(experiments=list(catalog.experiments)),
        f"{V1}/careers": CareersBody(roles=list(catalog.roles)),
    }
    if catalog.experiments:
        bodies[f"{V1}/research/{{slug}}"] = ExperimentBody(experiment=catalog.experiments[0])
    if catalog.roles:
        bodies[f"{V1}/careers/{{slug}}"] = RoleBody(role=catalog.roles[0])
    return bodies
