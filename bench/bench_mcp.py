"""MCP tools/call throughput against the REST endpoint returning the same record, same process.

The served process (`python -m frontdoor.serve`, granian WSGI, 1 worker, /mcp bridged in
through a2wsgi behind the WSGI fast path, api/mcp_fast_path.py) answers wrk from a second
process: POST /mcp `tools/call get_company_info` with a valid bearer token (stateless, JSON
response), in both protocol eras the server speaks (2025-11-25 without a session, and
2026-07-28), and GET /api/public/v1/company, each the best of three interleaved rounds.
The figures are mcp/rest (goal >= 0.7); after the warm-up these calls are answered by the
fast path (the SDK's answer replayed after the
SDK's per-request checks). Informational, no goal: the same call with a fresh progress
token each time, so that every request misses the memo and goes through the SDK transport
over the bridge (`sdk_path`), and that call again on the ASGI side alone under uvicorn
(bench/mcp_asgi.py, notes/serving.md's fallback shape), to tell the bridge's cost from the
SDK's. The token is planted in the OAuth store as the built-in authorization server stores
it (sha256), so no sign-in is needed.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import tempfile
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from api.oauth_config import sha256_hex
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import OAuthTokenRecord
from bench.bench_public_read import WARM_UP, WRK_ARGS, Served

COMPANY = "/api/public/v1/company"
RUN = "5s"
ROUNDS = 3
GOAL = 0.7
ERAS = {"stateless_2025": "2025-11-25", "modern_2026": "2026-07-28"}
CALL: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_company_info", "arguments": {}},
}


def main() -> dict[str, Any]:
    """Measure REST and MCP in one served process and print the ratio."""
    with (
        tempfile.TemporaryDirectory(prefix="bench-mcp-") as data_dir,
        Served(["-m", "frontdoor.serve"], data_dir) as base,
    ):
        token = plant_token(Path(data_dir), resource=f"{base}/mcp")
        for version in ERAS.values():
            check_tool_call(base, token, version)
        scripts = {}
        for era, version in ERAS.items():
            scripts[era] = Path(data_dir) / f"tools_call_{era}.lua"
            scripts[era].write_text(lua_script(token, version), encoding="utf-8")
        wrk(base + COMPANY, duration=WARM_UP)
        for script in scripts.values():
            wrk(base + "/mcp", script=script, duration=WARM_UP)
        # Interleaved rounds, best of each (as bench_public_read): a burst of load elsewhere
        # on the machine then lowers one run, not one route.
        routes: dict[str, tuple[str, Path | None]] = {"rest_company": (COMPANY, None)}
        for era, script in scripts.items():
            routes[f"mcp_tools_call_{era}"] = ("/mcp", script)
        figures: dict[str, float] = {}
        for _round in range(ROUNDS):
            for name, (path, route_script) in routes.items():
                rps = wrk(base + path, script=route_script)
                figures[name] = max(figures.get(name, 0.0), rps)
        sdk_script = Path(data_dir) / "tools_call_sdk_path.lua"
        sdk_script.write_text(lua_script(token, ERAS["stateless_2025"], fresh=True), "utf-8")
        figures["mcp_tools_call_stateless_2025_sdk_path"] = wrk(base + "/mcp", script=sdk_script)
        uvicorn = ["-m", "uvicorn", "--factory", "bench.mcp_asgi:create_asgi_app"]
        uvicorn += ["--workers", "1", "--log-level", "warning", "--no-access-log"]
        with Served(uvicorn, data_dir, port_flag=True) as direct:
            direct_token = plant_token(Path(data_dir), resource=f"{direct}/mcp")
            script = Path(data_dir) / "tools_call_direct.lua"
            script.write_text(
                lua_script(direct_token, ERAS["stateless_2025"], fresh=True), encoding="utf-8"
            )
            check_tool_call(direct, direct_token)
            wrk(direct + "/mcp", script=script, duration=WARM_UP)
            figures["mcp_tools_call_stateless_2025_uvicorn_alone"] = wrk(
                direct + "/mcp", script=script
            )
    result = report(figures)
    for name, rps in result["requests_per_second"].items():
        print(f"  {name:<30} {rps:>10,.1f} req/s")
    for name, ratio in result["ratios"].items():
        verdict = "ok" if result["goals_met"][name] else "BELOW GOAL"
        print(f"  {name:<30} {ratio:>10.2f}x  (goal >= {GOAL}x: {verdict})")
    for name in ("sdk_path_bridged_vs_asgi_alone", "fast_path_vs_sdk_path"):
        print(f"  {name:<30} {result[name]:>10.2f}x")
    return result


def report(figures: dict[str, float]) -> dict[str, Any]:
    """Ratios of each era's tools/call to the REST read, with the goal."""
    rest = figures["rest_company"]
    ratios = {f"{era}_vs_rest": figures[f"mcp_tools_call_{era}"] / rest for era in ERAS}
    fast = figures["mcp_tools_call_stateless_2025"]
    sdk_path = figures["mcp_tools_call_stateless_2025_sdk_path"]
    alone = figures["mcp_tools_call_stateless_2025_uvicorn_alone"]
    return {
        "requests_per_second": {name: round(value, 1) for name, value in figures.items()},
        "ratios": {name: round(value, 3) for name, value in ratios.items()},
        # Informational (no goal): the SDK transport over the bridge against the ASGI side
        # alone, and the fast path against the SDK transport in the same process.
        "sdk_path_bridged_vs_asgi_alone": round(sdk_path / alone, 3),
        "fast_path_vs_sdk_path": round(fast / sdk_path, 3),
        "goals": dict.fromkeys(ratios, GOAL),
        "goals_met": {name: value >= GOAL for name, value in ratios.items()},
        "load": (
            f"wrk {' '.join(WRK_ARGS)} -d{RUN} per route after a {WARM_UP} warm-up; best of"
            f" {ROUNDS} interleaved rounds for REST and the two eras, one run for the rest"
        ),
    }


def plant_token(data_dir: Path, *, resource: str) -> str:
    """A valid access token for /mcp, stored as the built-in authorization server does."""
    raw = "fda_" + secrets.token_urlsafe(32)
    store = SqliteOAuthStore(SqliteDatabase(data_dir / "frontdoor.sqlite3"))
    store.add_token(
        OAuthTokenRecord(
            token_hash=sha256_hex(raw),
            kind="access",
            client_id="bench",
            subject="bench@example.com",
            scopes=("openid", "email", "profile"),
            resource=resource,
            grant_id="bench",
            expires_at=datetime.now(UTC) + timedelta(hours=1),
        )
    )
    return raw


def headers(token: str, version: str = "2025-11-25") -> dict[str, str]:
    """A tools/call POST's headers; the 2026-07-28 era also names the method and tool."""
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": version,
    }
    if version != "2025-11-25":
        sent |= {"Mcp-Method": "tools/call", "Mcp-Name": "get_company_info"}
    return sent


def check_tool_call(base: str, token: str, version: str = "2025-11-25") -> None:
    """One call by hand first, so the bench never measures a stream of errors."""
    request = urllib.request.Request(  # noqa: S310  # loopback only
        base + "/mcp",
        data=json.dumps(call_body(version)).encode(),
        headers=headers(token, version),
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as resp:  # noqa: S310  # loopback only
        body = json.loads(resp.read())
    if "structuredContent" not in body.get("result", {}):
        raise RuntimeError(f"tools/call did not answer a result: {body}")


def call_body(version: str) -> dict[str, Any]:
    """The JSON-RPC body; a 2026-07-28 request carries its client's identity in `_meta`."""
    if version == "2025-11-25":
        return CALL
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return {**CALL, "params": {**CALL["params"], "_meta": meta}}


def lua_script(token: str, version: str, *, fresh: bool = False) -> str:
    """wrk's request; `fresh`: a new progress token per request, so no two bodies are equal
    and every one goes through the SDK transport (the fast path has no memo for it)."""
    call = call_body(version)
    lines = ['wrk.method = "POST"']
    lines += [
        f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}"
        for k, v in headers(token, version).items()
    ]
    if not fresh:
        return "\n".join([*lines, f"wrk.body = {json.dumps(json.dumps(call))}"]) + "\n"
    params = {**call["params"], "_meta": {**call["params"].get("_meta", {}), "progressToken": 0}}
    template = json.dumps({**call, "params": params}).replace(
        '"progressToken": 0', '"progressToken": %d'
    )
    lines += [
        f"local template = {json.dumps(template)}",
        "local n = 0",
        "request = function()",
        "  n = n + 1",
        "  return wrk.format(nil, nil, nil, string.format(template, n))",
        "end",
    ]
    return "\n".join(lines) + "\n"


def wrk(url: str, *, script: Path | None = None, duration: str = RUN) -> float:
    """Requests/s of one wrk run; any socket error or non-2xx status fails the bench."""
    cmd = ["wrk", *WRK_ARGS, f"-d{duration}"]
    if script is not None:
        cmd += ["-s", str(script)]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    if "Non-2xx or 3xx responses" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw errors on {url}:\n{out}")
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if match is None:
        raise RuntimeError(f"no Requests/sec in wrk output:\n{out}")
    return float(match.group(1))


if __name__ == "__main__":
    main()
