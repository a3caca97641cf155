"""The one served process: granian serves Flask as WSGI, the ASGI side bridged in at its paths."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping

import click
from pydantic import ValidationError

from api.app import create_app
from api.keys import issue_key
from api.mcp_app import create_mcp_asgi_app
from api.mcp_fast_path import McpFastPath
from backends.bundle import Backends
from backends.content_files import ContentError
from backends.ports import BOOTSTRAP_SCOPES, Scope
from frontdoor.composition import LifespanBridge, PathDispatcher, WsgiApp
from frontdoor.logs import configure_logging, granian_log_config
from frontdoor.mcp_wiring import build_oauth_store, mcp_config
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends

logger = logging.getLogger(__name__)


def create_served_app(settings: Settings | None = None) -> WsgiApp:
    """The whole service as one WSGI callable (granian's factory target, one call per worker)."""
    settings = settings or Settings()
    configure_logging(level=settings.log_level, project=settings.google_cloud_project)
    backends = build_backends(settings)
    flask_app = create_app(app_config(settings), backends)
    asgi = create_mcp_asgi_app(
        mcp_config(settings),
        catalog=backends.catalog,
        oauth_store=build_oauth_store(settings),
        mailer=backends.mailer,
        clock=backends.clock,
    )
    bridge = LifespanBridge(asgi.app)
    # POST /mcp answers the SDK already gave are replayed on the WSGI side (no bridge hop);
    # everything else goes through the bridge to the SDK (api.mcp_fast_path).
    asgi_side = McpFastPath(bridge.wsgi_app, asgi.fast_path)
    return PathDispatcher(flask_app.wsgi_app, asgi_side, exact=asgi.paths, prefixes=())


def announce_local_keys(settings: Settings, backends: Backends) -> dict[Scope, str]:
    """Embedded mode: issue a key for each scope with no bootstrap key, and show them once.

    A start that prints new keys revokes the keys earlier starts printed (partner `local`,
    marked bootstrap); keys set in the environment or issued with the CLI are untouched.
    """
    if settings.backend != "embedded":
        return {}
    now = backends.clock()
    issued: dict[Scope, str] = {}
    new_ids: set[str] = set()
    for scope in BOOTSTRAP_SCOPES:
        if getattr(settings, f"{scope}_api_key") is None:
            raw, record = issue_key(
                backends.keys, partner="local", scope=scope, now=now, bootstrap=True
            )
            issued[scope] = raw
            new_ids.add(record.key_id)
    if issued:
        for old in backends.keys.list_keys():
            if old.bootstrap and old.active and old.key_id not in new_ids:
                backends.keys.revoke_key(old.key_id, now=now)
                logger.info("revoked the bootstrap key %s of an earlier start", old.key_id)
        # On the terminal only, never through logging: the one time these secrets exist in clear.
        click.echo(local_keys_block(issued), err=True)
    return issued


def local_keys_block(keys: Mapping[Scope, str]) -> str:
    """The one block of text that shows the keys issued for this start."""
    rule = "-" * 72
    lines = [
        rule,
        "New partner keys for this start. They are shown once and stored only as hashes;",
        "the keys earlier starts printed are revoked. Set these variables yourself to keep",
        "fixed keys (`frontdoor keys list` lists all).",
        "",
        *(f"  {scope.upper()}_API_KEY={raw}" for scope, raw in keys.items()),
        rule,
    ]
    return "\n".join(lines)


def settings_problems(err: ValidationError) -> str:
    """Each refused setting by its variable name; never the value, which may be a secret."""
    lines = []
    for problem in err.errors():
        name = ".".join(str(part) for part in problem["loc"]).upper() or "settings"
        lines.append(f"  {name}: {problem['msg']}")
    return "\n".join(lines)


def main() -> None:
    """`make run`: validate settings and content, then serve with granian."""
    # Imported here: only the served entry point needs the server.
    from granian import Granian
    from granian.constants import Interfaces

    try:
        settings = Settings()
    except ValidationError as err:
        click.echo(f"configuration error:\n{settings_problems(err)}", err=True)
        sys.exit(2)
    configure_logging(level=settings.log_level, project=settings.google_cloud_project)
    try:
        backends = build_backends(settings, start_workers=False)
    except ContentError as err:
        click.echo(f"content error: {err}", err=True)
        sys.exit(2)
    announce_local_keys(settings, backends)
    # The supervisor only checks the set-up: granian's workers build their own backends and
    # run the queue workers; queued work waits on disk for them (issue 13).
    backends.close()
    click.echo(f"frontdoor serving on {settings.base_url}", err=True)
    Granian(
        target="frontdoor.serve:create_served_app",
        factory=True,
        interface=Interfaces.WSGI,
        address=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_access=False,
        log_dictconfig=granian_log_config(settings.google_cloud_project),
    ).serve()


if __name__ == "__main__":
    main()
