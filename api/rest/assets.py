"""Public files of the embedded blob store at /assets/{name}: hero images with a long cache.

Names are content-addressed (a digest in each name), so a year's `immutable` cache is safe.
The store refuses names that could leave its folder; anything unknown answers 404.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from backends.ports import BlobStore

ASSETS_PATH = "/assets"
_HEADERS = {"X-Content-Type-Options": "nosniff", "Access-Control-Allow-Origin": "*"}


def create_assets_blueprint(*, blobs: BlobStore) -> Blueprint:
    """GET /assets/<path> from the blob store."""
    bp = Blueprint("assets", __name__)

    @bp.get(f"{ASSETS_PATH}/<path:name>")
    def asset(name: str) -> Response:
        blob = blobs.get_blob(name)
        if blob is None:
            return Response(b"not found", status=404, mimetype="text/plain", headers=dict(_HEADERS))
        response = Response(blob.data, mimetype=blob.content_type, headers=dict(_HEADERS))
        response.headers["Cache-Control"] = blob.cache_control
        response.add_etag()
        response.make_conditional(request)
        return response

    return bp
