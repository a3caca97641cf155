"""A bare Flask app, bench_startup's baseline: `granian --interface wsgi bench.bare_flask:app`."""

from __future__ import annotations

from flask import Flask

app = Flask(__name__)


@app.get("/healthz")
def healthz() -> dict[str, bool]:
    """What the start-up bench polls for the first 200."""
    return {"ok": True}
