"""The one served process: granian serves Flask as WSGI, with the ASGI side bridged in at its paths."""

from __future__ import annotations

import logging
import sys

import click

from api.app import create_app
from api.keys import issue_key
from backends.bundle import Backends
from backends.content_files import ContentError
from backends.ports import SCOPES
from frontdoor.asgi_probe import PATHS, create_probe_app
from frontdoor.composition import LifespanBridge, PathDispatcher, WsgiApp
from frontdoor.logs import configure_logging
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends

logger = logging.getLogger(__name__)


def create_served_app(settings: Settings | None = None) -> WsgiApp:
    """The whole service as one WSGI callable (granian's factory target, one call per worker)."""
    settings = settings or Settings()
    configure_logging(level=settings.log_level, project=settings.google_cloud_project)
    backends = build_backends(settings)
    flask_app = create_app(app_config(settings), backends)
    bridge = LifespanBridge(create_probe_app())
    return PathDispatcher(flask_app.wsgi_app, bridge.wsgi_app, exact=PATHS, prefixes=())


def announce_local_keys(settings: Settings, backends: Backends) -> None:
    """Embedded mode: issue a key for each scope with no bootstrap key, and show it once."""
    if settings.backend != "embedded":
        return
    now = backends.clock()
    for scope in SCOPES:
        if getattr(settings, f"{scope}_api_key") is not None:
            continue
        raw, record = issue_key(backends.keys, partner="local", scope=scope, now=now)
        # Shown on the terminal only, never logged: it is the one time this secret exists in clear.
        click.echo(f"{scope.upper()}_API_KEY={raw}", err=True)
    click.echo("(keys above are new for this start; `frontdoor keys list` shows every key)", err=True)


def main() -> None:
    """`make run`: validate settings and content, then serve with granian."""
    from granian import Granian  # noqa: PLC0415  # only the served entry point needs the server
    from granian.constants import Interfaces  # noqa: PLC0415

    try:
        settings = Settings()
        configure_logging(level=settings.log_level, project=settings.google_cloud_project)
        backends = build_backends(settings)
    except ContentError as err:
        click.echo(f"content error: {err}", err=True)
        sys.exit(2)
    announce_local_keys(settings, backends)
    click.echo(f"frontdoor serving on {settings.base_url}", err=True)
    Granian(
        target="frontdoor.serve:create_served_app",
        factory=True,
        interface=Interfaces.WSGI,
        address=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_access=False,
    ).serve()


if __name__ == "__main__":
    main()
