"""GET /api/public/content/brand: the brand rules the quality gate applies now (content key).

One document, built by gate.brand_rules from the same brand data and page schema the gate
reads: what a page is judged by, before it is judged.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from api.auth import KeyCheck
from api.rest.signal_query import refuse_parameters
from gate.brand_rules import brand_rules
from schemas.catalog import Brand
from schemas.content.brand_rules import BrandRulesBody

PATH = "/api/public/content/brand"


def create_brand_blueprint(*, brand: Brand, keys: KeyCheck) -> Blueprint:
    """The brand rules document, for partners and their writers."""
    bp = Blueprint("brand", __name__)

    @bp.get(PATH)
    def get_brand_rules() -> Response:
        keys.require("content")
        refuse_parameters(request.args)
        body = BrandRulesBody(brand=brand_rules(brand))
        return Response(body.model_dump_json(), status=200, mimetype="application/json")

    return bp
