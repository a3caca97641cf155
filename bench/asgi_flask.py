"""The served Flask app under an ASGI server through a2wsgi: the baseline bench_public_read beats.

Bench only. notes/serving.md measured this stack at about a quarter of Flask served natively
by granian; `uvicorn --factory bench.asgi_flask:create_asgi_app` serves it.
"""

from __future__ import annotations

from a2wsgi import WSGIMiddleware

from api.app import create_app
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends


def create_asgi_app() -> WSGIMiddleware:
    """The same Flask app that `python -m frontdoor.serve` serves, wrapped for ASGI."""
    settings = Settings()
    flask_app = create_app(app_config(settings), build_backends(settings))
    # a2wsgi types environ as its own TypedDict; Flask takes a plain dict.
    return WSGIMiddleware(flask_app)  # type: ignore[arg-type]
