"""The served process (notes/serving.md): granian serves Flask as WSGI, the ASGI side bridged in.

These tests start `python -m frontdoor.serve` exactly as `make run` does and talk to it over a
real socket; the composition's parts are also driven directly as WSGI callables.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
import shutil
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from werkzeug.test import Client

from frontdoor.composition import (
    BuiltOnFirstUse,
    Environ,
    LifespanBridge,
    LifespanError,
    PathDispatcher,
)
from frontdoor.settings import Settings
from tests.emulators import REPO, free_port
from tests.polling import wait_for
from tests.probes import FIXED_KEYS, run_probe
from tests.served import Served, start_served


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET over a real socket: status, lower-cased headers and body, errors included."""
    req = urllib.request.Request(url, headers=headers or {})  # noqa: S310  # loopback only
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310  # loopback only
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Served with the tests' fixed keys, logging at INFO (the default of Settings)."""
    server = start_served(tmp_path_factory.mktemp("served"), log_level="INFO", **FIXED_KEYS)
    yield server
    server.stop()


def test_the_served_process_answers_the_public_api_from_flask(served: Served) -> None:
    """SPEC Public read: GET /api/public/v1/company over a real socket, served by granian."""
    status, headers, body = fetch(f"{served.base}/api/public/v1/company")

    assert status == 200
    assert headers["server"] == "granian"
    assert headers["x-request-id"]
    assert json.loads(body)["ok"] is True


def test_the_mcp_path_answers_from_the_asgi_side_over_the_same_socket(
    served: Served,
) -> None:
    """SPEC Tool server: /mcp is the MCP app's, bridged in; Flask's hooks never see it.

    That its lifespan started is shown by a tool call through the served process in
    tests/mcp_tools/test_oauth_flow.py, and by the LifespanBridge tests below.
    """
    status, headers, _body = fetch(f"{served.base}/mcp")

    assert status == 401
    assert headers["www-authenticate"].startswith("Bearer ")
    assert "resource_metadata=" in headers["www-authenticate"]
    assert "x-request-id" not in headers


def test_paths_below_mcp_stay_with_flask_and_answer_a_json_404(served: Served) -> None:
    """DESIGN: unknown routes answer 404 `not_found` as JSON."""
    status, headers, body = fetch(f"{served.base}/mcp-not-here")

    assert status == 404
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["error"] == "not_found"


def test_every_line_the_served_process_writes_to_stdout_is_a_json_log_record(
    served: Served,
) -> None:
    """STYLE Logging: granian's own lines come out in the same Cloud Logging JSON as ours."""
    fetch(f"{served.base}/api/public/v1/blog")

    lines = [line for line in served.proc.log_path.read_text().splitlines() if line.strip()]

    assert lines
    for line in lines:
        record = json.loads(line)
        assert {"severity", "message", "time"} <= record.keys()


def test_embedded_start_prints_new_keys_once_on_stderr_and_never_logs_them(
    tmp_path: Path,
) -> None:
    """DESIGN Configuration: missing keys are generated and printed once at start."""
    served = start_served(tmp_path / "data", log_level="INFO", **dict.fromkeys(FIXED_KEYS, ""))
    try:
        status, _headers, _body = fetch(f"{served.base}/api/public/v1/company")
    finally:
        served.stop()
    assert served.proc.stderr_path is not None
    stderr = served.proc.stderr_path.read_text()
    stdout = served.proc.log_path.read_text()

    printed = dict(
        line.strip().split("=", 1) for line in stderr.splitlines() if "_API_KEY=" in line
    )
    assert status == 200
    assert sorted(printed) == sorted(FIXED_KEYS)
    assert stderr.count("New partner keys for this start") == 1
    for raw in printed.values():
        assert raw.startswith("fdk_")
        assert stderr.count(raw) == 1
        assert raw not in stdout


def test_fixed_keys_from_the_environment_print_no_key_block(served: Served) -> None:
    """DESIGN Configuration: bootstrap keys from the environment are used, not replaced."""
    assert served.proc.stderr_path is not None

    stderr = served.proc.stderr_path.read_text()

    assert "_API_KEY=" not in stderr
    assert "frontdoor serving on" in stderr


def run_serve(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m frontdoor.serve` expected to stop before serving (on a free port of its own,
    so it runs while `make run` serves on 8080)."""
    return subprocess.run(
        [sys.executable, "-m", "frontdoor.serve"],
        env={**FIXED_KEYS, "PATH": "/usr/bin:/bin", "PORT": str(free_port()), **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_bad_content_file_stops_start_up_naming_the_file_and_field(tmp_path: Path) -> None:
    """A bad content file stops start-up with a message naming the file and field."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    company_path = content / "company.json"
    company = json.loads(company_path.read_text())
    company["agents"][1]["name"] = ""
    company_path.write_text(json.dumps(company))

    result = run_serve({"CONTENT_DIR": str(content), "DATA_DIR": str(tmp_path / "data")})

    assert result.returncode == 2
    assert str(company_path) in result.stderr
    assert "agents.1.name" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_another_server_listens_on_stops_start_up_before_any_key_changes(
    tmp_path: Path,
) -> None:
    """granian listens with SO_REUSEPORT: a second `make run` on a taken port started and
    shared the connections with the first (each request to one or the other, with different
    keys and data), and its new keys revoked the first one's. It stops at once instead."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # as granian listens
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        result = subprocess.run(
            [sys.executable, "-m", "frontdoor.serve"],
            env={"PATH": "/usr/bin:/bin", "PORT": str(port), "DATA_DIR": str(tmp_path)},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )

    assert result.returncode == 2
    assert f"127.0.0.1:{port} is in use" in result.stderr
    assert "_API_KEY=" not in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "frontdoor.sqlite3").exists()


def test_a_placeholder_key_stops_start_up_naming_the_variable_but_not_the_value(
    tmp_path: Path,
) -> None:
    """STYLE Config: validators refuse a placeholder key; the refusal never echoes a secret."""
    result = run_serve({"SIGNALS_API_KEY": "sh0rt-s3cret", "DATA_DIR": str(tmp_path)})

    assert result.returncode == 2
    assert "SIGNALS_API_KEY" in result.stderr
    assert "sh0rt-s3cret" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_settings_refuse_the_gcp_backend_without_a_project(tmp_path: Path) -> None:
    """STYLE Config: BACKEND=gcp without GOOGLE_CLOUD_PROJECT is refused."""
    with pytest.raises(ValidationError, match="GOOGLE_CLOUD_PROJECT"):
        Settings(
            backend="gcp",
            google_cloud_project=None,
            push_oidc_audience="frontdoor-push",
            data_dir=tmp_path,
        )


@pytest.mark.parametrize("raw", ["changeme", "CHANGEME", "secret", "short-key"])
def test_settings_refuse_placeholder_and_short_keys(raw: str) -> None:
    """README Configuration: keys under 16 characters or placeholders are refused at start."""
    with pytest.raises(ValidationError, match="content_api_key"):
        Settings(content_api_key=raw)


def test_settings_take_an_empty_key_as_no_key() -> None:
    """An empty variable (as `KEY=` in a shell) means "generate one", not a refusal."""
    assert Settings(content_api_key="").content_api_key is None


def test_settings_accept_the_gcp_backend_with_a_project_and_push_auth() -> None:
    """DESIGN Three ways to run: BACKEND=gcp with its project and push audience starts."""
    settings = Settings(
        backend="gcp", google_cloud_project="demo-frontdoor", push_oidc_audience="frontdoor-push"
    )

    assert settings.backend == "gcp"


def test_settings_refuse_the_gcp_backend_without_push_auth_outside_the_emulator() -> None:
    """Workers verify push OIDC tokens; the check is off only in emulated mode."""
    with pytest.raises(ValidationError, match="PUSH_OIDC_AUDIENCE"):
        Settings(backend="gcp", google_cloud_project="demo-frontdoor", pubsub_emulator_host=None)

    emulated = Settings(
        backend="gcp", google_cloud_project="demo-frontdoor", pubsub_emulator_host="127.0.0.1:8085"
    )
    assert emulated.push_oidc_audience is None


# --- the composition's parts, as WSGI callables -------------------------------------------


def lifespan_app(events: list[str], *, fail: bool = False) -> Starlette:
    """A Starlette app that records its lifespan and answers /probe."""

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        events.append("startup")
        if fail:
            raise RuntimeError("database unreachable")
        yield
        events.append("shutdown")

    async def probe(_request: Request) -> PlainTextResponse:
        return PlainTextResponse(",".join(events))

    return Starlette(routes=[Route("/probe", probe)], lifespan=lifespan)


def test_the_lifespan_bridge_starts_the_app_before_serving_it() -> None:
    """notes/serving.md: a2wsgi runs no lifespan, so the bridge starts it before any request."""
    events: list[str] = []
    bridge = LifespanBridge(lifespan_app(events))
    try:
        response = Client(bridge.wsgi_app).get("/probe", buffered=True)
    finally:
        bridge.close()

    assert response.status_code == 200
    assert response.text == "startup"


def test_closing_the_lifespan_bridge_runs_the_app_shutdown() -> None:
    """The bridge's close runs the lifespan shutdown once, however often it is called."""
    events: list[str] = []
    bridge = LifespanBridge(lifespan_app(events))

    bridge.close()
    bridge.close()

    assert events == ["startup", "shutdown"]


def test_a_failed_lifespan_startup_raises_with_the_app_message() -> None:
    """A refused startup stops the served process with the app's own message."""
    with pytest.raises(LifespanError, match="database unreachable"):
        LifespanBridge(lifespan_app([], fail=True), timeout=10)


def test_an_asgi_app_without_lifespan_support_fails_at_once_instead_of_hanging() -> None:
    """An app that raises on the lifespan scope fails start-up at once, not after a timeout."""

    async def no_lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            raise RuntimeError("lifespan is not supported")

    with pytest.raises(LifespanError):
        LifespanBridge(no_lifespan, timeout=10)


REQUEST_TAG: contextvars.ContextVar[str] = contextvars.ContextVar("request_tag", default="")


def streaming_app(events: list[str], release: asyncio.Event | None = None) -> Any:
    """An ASGI app that sends its headers, then holds its body until `release` or a disconnect,
    setting a context variable for the request and resetting it on the way out (as the MCP
    SDK's auth middleware does)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await receive()
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await send({"type": "lifespan.shutdown.complete"})
            return
        token = REQUEST_TAG.set(scope["path"])
        try:
            await receive()  # the request body
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")],
                }
            )
            message = await receive()  # the response is open: only a disconnect comes now
            events.append(message["type"])
        finally:
            REQUEST_TAG.reset(token)  # raises ValueError if run in another context
            events.append("ended")

    return app


def wsgi_environ(path: str) -> Environ:
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.input": io.BytesIO(),
        "wsgi.url_scheme": "http",
    }


def test_the_bridge_hands_over_status_and_headers_before_any_body_arrives() -> None:
    """GET /mcp's event stream gets its headers at once, not with its first event."""
    events: list[str] = []
    bridge = LifespanBridge(streaming_app(events))
    started: list[str] = []
    try:
        body = bridge.wsgi_app(
            wsgi_environ("/stream"), lambda status, headers: started.append(status)
        )
        assert started == ["200 OK"]
        close = getattr(body, "close", None)
        assert close is not None
        close()
        wait_for(lambda: "ended" in events, timeout=10, what="the request's end")
    finally:
        bridge.close()

    assert events == ["http.disconnect", "ended"]


def test_a_client_that_leaves_ends_the_request_in_its_own_context_without_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The app is told `http.disconnect` and its context variable resets cleanly;
    nothing is logged (no "Task was destroyed", no "created in a different Context")."""
    events: list[str] = []
    bridge = LifespanBridge(streaming_app(events))
    try:
        for path in ("/a", "/b", "/c"):
            body = bridge.wsgi_app(wsgi_environ(path), lambda status, headers: None)
            getattr(body, "close")()  # noqa: B009  # the WSGI server's close, as PEP 3333 calls it
        wait_for(lambda: events.count("ended") == 3, timeout=10, what="three requests' end")
    finally:
        bridge.close()

    assert events == ["http.disconnect", "ended"] * 3
    assert [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")] == []


def named_app(name: str) -> Any:
    """A WSGI app that answers its own name and the path it saw."""

    def app(environ: Environ, start_response: Any) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [f"{name} {environ['PATH_INFO']}".encode()]

    return app


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/mcp", "asgi /mcp"),
        ("/mcp/", "flask /mcp/"),
        ("/mcpx", "flask /mcpx"),
        ("/.well-known/oauth-authorization-server", "asgi /.well-known/oauth-authorization-server"),
        ("/.well-known/other", "flask /.well-known/other"),
        ("/api/public/v1/company", "flask /api/public/v1/company"),
    ],
)
def test_the_path_dispatcher_sends_exact_paths_and_prefixes_to_the_asgi_side_unchanged(
    path: str, expected: str
) -> None:
    """The ASGI side gets its exact paths and prefixes with PATH_INFO untouched; Flask the rest."""
    dispatcher = PathDispatcher(
        named_app("flask"),
        named_app("asgi"),
        exact={"/mcp"},
        prefixes=("/.well-known/oauth-",),
    )

    response = Client(dispatcher).get(path)

    assert response.text == expected


LAZY_PROBE = """
import json, sys
from werkzeug.test import Client
from frontdoor.serve import create_served_app

client = Client(create_served_app())
seen = {"after_start": "mcp" in sys.modules}
seen["healthz"] = client.get("/healthz").status_code
seen["after_rest"] = "mcp" in sys.modules
seen["mcp"] = client.post("/mcp", headers={"Host": "127.0.0.1:8080"}).status_code
seen["after_mcp"] = "mcp" in sys.modules
print(json.dumps(seen))
"""


def test_the_served_app_loads_the_mcp_sdk_only_with_the_first_request_to_its_paths(
    tmp_path: Path,
) -> None:
    """Cold start: building the app and serving REST never import the MCP SDK; the
    first /mcp request builds the ASGI side and answers as the SDK does (401 without a token)."""
    seen = run_probe(LAZY_PROBE, tmp_path)
    assert seen == {
        "after_start": False,
        "healthz": 200,
        "after_rest": False,
        "mcp": 401,
        "after_mcp": True,
    }


def test_an_app_built_on_first_use_is_built_once_however_many_threads_ask() -> None:
    """Concurrent first requests wait for one build instead of building twice."""
    builds: list[int] = []
    gate = threading.Event()

    def build() -> Any:
        gate.wait(5)
        builds.append(1)
        return named_app("built")

    lazy = BuiltOnFirstUse(build)
    answers: list[str] = []

    def ask() -> None:
        answers.append(Client(lazy).get("/x").text)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    assert not lazy.built
    gate.set()
    for thread in threads:
        thread.join(10)

    assert builds == [1]
    assert answers == ["built /x"] * 4
