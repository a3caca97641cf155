"""Browser fixtures: the whole app served on a free loopback port, and one Debian chromium.

The served app and the browser are started once per session; each test writes pages under a
slug of its own, so tests share the store without cleanup.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import BaseWSGIServer, make_server

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from tests.conftest import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY

SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Any]


@dataclass(frozen=True)
class LiveServer:
    """The app on a real socket: its origin and the backends behind it."""

    url: str
    backends: Backends


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """create_app on werkzeug in a thread; PUBLIC_BASE_URL is the socket's own origin."""
    holder: dict[str, WsgiApp] = {}

    def dispatch(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        return holder["app"](environ, start_response)

    server: BaseWSGIServer = make_server("127.0.0.1", 0, dispatch, threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("e2e") / "data",
        public_base_url=url,
        content_api_key=CONTENT_KEY,
        signals_api_key=SIGNALS_KEY,
        ingest_api_key=INGEST_KEY,
    )
    backends = build_backends(settings)
    holder["app"] = create_app(app_config(settings), backends).wsgi_app
    thread = threading.Thread(target=server.serve_forever, name="e2e-server", daemon=True)
    thread.start()
    yield LiveServer(url=url, backends=backends)
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
    backends.close()


@pytest.fixture
def slug() -> str:
    """A page slug of this test's own."""
    return f"e2e-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """tests/artifacts/screenshots/, where browser tests leave their pictures."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
