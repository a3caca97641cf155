"""The exact paths the ASGI side (api/tools/mcp_app.py) serves, known without importing the MCP SDK.

The served process routes these paths to the ASGI side before that side is built: it is built
on the first request to one of them (frontdoor/serve.py), so a start never pays the SDK's
import. tests/mcp_tools/test_signin.py keeps this list equal to the built app's routes.
"""

from __future__ import annotations

from api.oauth.paths import AUTHORIZATION_SERVER_PATHS

MCP_PATH = "/mcp"
PRM_ROOT = "/.well-known/oauth-protected-resource"
# The resource server: always there, built-in authorization server or external IdP.
RESOURCE_PATHS = frozenset({MCP_PATH, PRM_ROOT, f"{PRM_ROOT}{MCP_PATH}"})


def asgi_paths(*, builtin_authorization_server: bool) -> frozenset[str]:
    """Every exact path of the ASGI side in this mode."""
    if builtin_authorization_server:
        return RESOURCE_PATHS | AUTHORIZATION_SERVER_PATHS
    return RESOURCE_PATHS
