"""The floor of the server: an RSGI app on granian that does nothing but what any app must.

A GET answers a small JSON record; a body is read whole (as frontdoor's front reads it, piece
by piece on the event loop), its commas counted (as the content bounds do before parsing), and
answered 422. bench/bench_body_flood.py floods it with the same bodies as frontdoor.
"""

from __future__ import annotations

import json
from typing import Any

RECORD = json.dumps({"name": "Floor", "tagline": "Nothing but the server"}).encode()
JSON = [("content-type", "application/json")]


class FloorApp:
    """RSGI: reads answer RECORD; bodies are read, their commas counted, and refused."""

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.method in ("GET", "HEAD"):
            proto.response_bytes(200, JSON, RECORD)
            return
        pieces = [piece async for piece in proto]
        commas = b"".join(pieces).count(b",")
        proto.response_bytes(422, JSON, json.dumps({"commas": commas}).encode())


app = FloorApp()
