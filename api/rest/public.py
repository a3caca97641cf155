"""Public read API under /api/public/v1/: company, blog, research and careers, no key.

Rate-limited per client address (the `public` policy of api/rate_limits.py).
"""

from __future__ import annotations

from flask import Blueprint, Response, json, request

from api.built_once import BuiltOnce
from api.rate_limits import RateLimits
from api.rest.http_cache import CORS_HEADERS, CachedBody, cached_response
from schemas.catalog import Catalog
from schemas.public import (
    BlogBody,
    CareersBody,
    CompanyBody,
    ExperimentBody,
    ResearchBody,
    RoleBody,
)

JSON = "application/json"


def create_public_blueprint(catalog: Catalog, *, limits: RateLimits | None = None) -> Blueprint:
    """The six read endpoints, each body serialized once (content is fixed at start)."""
    bp = Blueprint("public", __name__, url_prefix="/api/public/v1")

    @bp.before_request
    def count_client() -> None:
        if limits is None:
            return
        # The client's address: in gcp mode the app's ProxyFix took it from X-Forwarded-For.
        limits.check("public", request.remote_addr or "", advertise=False)

    # Content is fixed at start; the first read serializes every body (a start need not).
    bodies = BuiltOnce(lambda: public_bodies(catalog))

    @bp.get("/company")
    def get_company() -> Response:
        return cached_response(bodies.get()["company"])

    @bp.get("/blog")
    def list_blog_posts() -> Response:
        return cached_response(bodies.get()["blog"])

    @bp.get("/research")
    def list_experiments() -> Response:
        return cached_response(bodies.get()["research"])

    @bp.get("/research/<slug>")
    def get_experiment(slug: str) -> Response:
        found = bodies.get().get(f"research/{slug}")
        return cached_response(found) if found else not_found_body(slug)

    @bp.get("/careers")
    def list_careers() -> Response:
        return cached_response(bodies.get()["careers"])

    @bp.get("/careers/<slug>")
    def get_career(slug: str) -> Response:
        found = bodies.get().get(f"careers/{slug}")
        return cached_response(found) if found else not_found_body(slug)

    return bp


def public_bodies(catalog: Catalog) -> dict[str, CachedBody]:
    """Every read body by name (`company`, `blog`, `research`, `careers`, `research/{slug}`,
    `careers/{slug}`): one code path with the MCP tools, each a shared payload plus `ok`."""
    # Loaded by the first read, not by a start (bench/bench_startup.py).
    from services.public_records import PublicRecords

    def body(
        model: CompanyBody | BlogBody | ResearchBody | CareersBody | ExperimentBody | RoleBody,
    ) -> CachedBody:
        return CachedBody.of(model.model_dump_json().encode(), JSON)

    records = PublicRecords(catalog)
    bodies = {
        "company": body(CompanyBody(**dict(records.company))),
        "blog": body(BlogBody(**dict(records.posts))),
        "research": body(ResearchBody(**dict(records.experiments))),
        "careers": body(CareersBody(**dict(records.roles))),
    }
    for slug, found in records.experiment_by_slug.items():
        bodies[f"research/{slug}"] = body(ExperimentBody(**dict(found)))
    for slug, role in records.role_by_slug.items():
        bodies[f"careers/{slug}"] = body(RoleBody(**dict(role)))
    return bodies


def not_found_body(slug: str) -> Response:
    """SPEC's public read 404: exactly `{error, slug}` as application/json."""
    return Response(
        json.dumps({"error": "not_found", "slug": slug}),
        status=404,
        mimetype=JSON,
        headers={**CORS_HEADERS, "Cache-Control": "public, max-age=60"},
    )
