"""The one served process: Flask as WSGI, the ASGI side bridged in at its paths, behind granian.

granian serves RSGI: frontdoor/rsgi_front.py reads each body under BODY_READ_TIMEOUT, then runs
the WSGI app (`create_served_app`) in a thread. `main` runs in granian's parent process and
imports only what it needs to check the settings and the content; the app itself is imported
and built in the worker (`create_served_rsgi_app`),
and the ASGI side (the MCP SDK) on its first request (bench/bench_startup.py measures both).
Both hold the garbage collector while they import and build (every object made then lives as
long as the process; collecting during the imports took about a sixth of the start), then
freeze what they made out of later collections and let the collector run again.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

    from api.config import AppConfig
    from backends.bundle import Backends
    from domain.scopes import Scope
    from frontdoor.composition import WsgiApp
    from frontdoor.rsgi_front import RsgiFront
    from frontdoor.settings import Settings
    from schemas.catalog import Catalog

logger = logging.getLogger(__name__)

# What main() leaves for the worker granian forks from its process: the settings it read and the
# content it checked, by content directory (so the worker reads neither again), and that this
# is a served process (whose start-up objects are frozen; a test building the app in its own
# process is not one).
CHECKED_SETTINGS: list[Settings] = []
CHECKED_CONTENT: dict[str, Catalog] = {}
START: dict[str, bool] = {"served": False}


def create_served_app(settings: Settings | None = None) -> WsgiApp:
    """The whole service as one WSGI callable (granian's factory target, one call per worker)."""
    with _start_objects():
        return _build_served_app(settings)


@contextmanager
def _start_objects() -> Iterator[None]:
    """The collector held while a worker imports and builds the app (everything made then lives
    as long as the process); in a served process, what was made is then frozen out of later
    collections (which would otherwise copy its pages)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
        if START["served"]:
            gc.freeze()
    finally:
        if collecting:
            gc.enable()


def _build_served_app(settings: Settings | None) -> WsgiApp:
    # Imported here, in the worker: granian's parent never loads the app.
    from frontdoor.logs import configure_logging
    from frontdoor.settings import Settings
    from frontdoor.wiring import build_backends

    settings = settings or (CHECKED_SETTINGS[0] if CHECKED_SETTINGS else Settings())
    configure_logging(level=settings.log_level, project=settings.google_cloud_project)
    checked = CHECKED_CONTENT.get(str(settings.content_dir))
    backends = build_backends(settings, catalog=checked, start_workers=False)
    app = compose_served_app(settings, backends)
    # Once every store is open and the app built: the workers' first claims on the queue file
    # (and job recovery's first pass) then overlap the first requests instead of delaying them.
    backends.start_workers()
    return app


def compose_served_app(settings: Settings, backends: Backends) -> WsgiApp:
    """Flask with the ASGI side at its paths (built on first use), every answer carrying the
    security headers (api/security_headers.py)."""
    from api.app import create_app
    from api.security_headers import SecurityHeaders
    from api.tools.mcp_paths import asgi_paths
    from frontdoor.composition import BuiltOnFirstUse, PathDispatcher
    from frontdoor.wiring import app_config

    config = app_config(settings)
    flask_app = create_app(config, backends)

    def build_asgi_side() -> WsgiApp:
        # The same AppConfig: a draft's preview link signed on either side opens on the other.
        return served_asgi_side(settings, backends, config=config)

    paths = asgi_paths(builtin_authorization_server=not settings.oauth_issuer)
    dispatcher = PathDispatcher(
        flask_app.wsgi_app, BuiltOnFirstUse(build_asgi_side), exact=paths, prefixes=()
    )
    return SecurityHeaders(dispatcher, https=settings.base_url.startswith("https://"))


def create_served_rsgi_app() -> RsgiFront:
    """granian's factory target: the WSGI app behind RsgiFront, which reads each body under
    the read timeout on granian's event loop before a thread runs the app (one call a worker)."""
    with _start_objects():  # Flask loads here, with the front: held like the app's imports
        from frontdoor.rsgi_front import RsgiFront
        from frontdoor.settings import Settings

        # The settings the parent checked, as create_served_app reads them (a fork inherits
        # them).
        settings = CHECKED_SETTINGS[0] if CHECKED_SETTINGS else Settings()
        app = _build_served_app(settings)
        return RsgiFront(app, base_url=settings.base_url, timeout=settings.body_read_timeout)


def served_asgi_side(
    settings: Settings, backends: Backends, *, config: AppConfig | None = None
) -> WsgiApp:
    """The MCP SDK's app with the OAuth routes, its lifespan started, as WSGI over the bridge;
    `config` is the HTTP app's (built from the settings when not given)."""
    from api.tools.mcp_app import create_mcp_asgi_app
    from frontdoor.composition import LifespanBridge
    from frontdoor.mcp_wiring import mcp_config, page_ports, signin_limit

    asgi = create_mcp_asgi_app(
        mcp_config(settings),
        catalog=backends.catalog,
        oauth_store=backends.oauth,
        mailer=backends.mailer,
        clock=backends.clock,
        signin_limit=signin_limit(settings),
        signals=backends.signals,
        pages=page_ports(settings, backends, config=config),
    )
    return LifespanBridge(asgi.app).wsgi_app


def announce_local_keys(settings: Settings) -> dict[Scope, str]:
    """Embedded mode: issue a key for each scope with no bootstrap key, and show them once.

    A start that prints new keys revokes the keys earlier starts printed (partner `local`,
    marked bootstrap); keys set in the environment or issued with the CLI are untouched.
    """
    from domain.scopes import BOOTSTRAP_SCOPES  # not the ports': see check_start

    missing = [scope for scope in BOOTSTRAP_SCOPES if getattr(settings, f"{scope}_api_key") is None]
    if settings.backend != "embedded" or not missing:
        return {}
    import click

    from backends.clock import utc_now
    from backends.embedded.keys import SqliteKeyStore
    from backends.embedded.sqlite import SqliteDatabase
    from services.keys import replace_bootstrap_keys

    db = SqliteDatabase(Path(settings.data_dir) / "frontdoor.sqlite3")
    now = utc_now()
    try:
        issued, revoked = replace_bootstrap_keys(keys=SqliteKeyStore(db), scopes=missing, now=now)
        for key_id in revoked:
            logger.info("revoked the bootstrap key %s of an earlier start", key_id)
    finally:
        db.connection().close()  # the worker opens its own; none is carried across the fork
    if issued:
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


USAGE = """Serve frontdoor (public API, Content API, Signal API, MCP server) with granian, as
`make run` and `frontdoor serve` do.

It takes no arguments: every setting comes from the environment (PORT, BACKEND, DATA_DIR,
...; see "Configuration" in README.md). In embedded mode a start issues a partner key for
each scope with none set and revokes the ones earlier starts printed. `frontdoor --help`
lists the operator commands (keys, pages, signals, openapi).
"""


def main(argv: Sequence[str] | None = None) -> None:
    """`make run`: refuse any argument (`--help` prints the usage), validate settings and
    content, then serve with granian."""
    import click

    # Before anything is read or written: `--help` or a mistyped flag must not start a server
    # (nor rotate the bootstrap keys).
    @click.command(help=USAGE, context_settings={"help_option_names": ["-h", "--help"]})
    def command() -> None:
        serve()

    command.main(args=argv, prog_name="python -m frontdoor.serve")


def serve() -> None:
    """Validate settings and content, then serve with granian until stopped."""
    gc.disable()
    from granian import Granian
    from granian.constants import Interfaces

    from frontdoor.logs import granian_log_config

    settings = check_start()
    gc.freeze()
    gc.enable()  # granian's parent supervises for the whole run: it collects as usual
    Granian(
        target="frontdoor.serve:create_served_rsgi_app",
        factory=True,
        interface=Interfaces.RSGI,
        address=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_access=False,
        log_dictconfig=granian_log_config(settings.google_cloud_project),
    ).serve()


def listen_problem(host: str, port: int) -> str | None:
    """Why this process could not be the only one to listen on host:port, or None.

    granian listens with SO_REUSEPORT, so a second server on a port another one listens on
    would start and share its connections; a socket without that option cannot bind there
    (SO_REUSEADDR lets it past the TIME_WAIT a server stopped just now leaves)."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return (
                    f"{host}:{port} is in use (is another frontdoor serving?): stop it, or set"
                    " PORT to a free port"
                )
            return f"cannot listen on {host}:{port}: {err.strerror or err}"
    return None


def check_start() -> Settings:
    """What granian's parent does before serving: read the settings, check that the port is
    free and (gcp mode) that Google Cloud credentials are found unless every client is on an
    emulator, check the content (kept for the worker), issue missing bootstrap keys in embedded
    mode; exit 2 on bad settings, no credentials, a taken port or bad content. It loads only
    what that needs: never the app, nor with every key set a port."""
    import click
    from pydantic import ValidationError

    from backends.content_files import ContentError, load_catalog

    # `python -m frontdoor.serve` runs this file as __main__; granian's worker imports it by
    # name, so what main() leaves for the worker goes into that module.
    from frontdoor import serve as by_name
    from frontdoor.gcp_credentials import credentials_problem
    from frontdoor.logs import configure_logging
    from frontdoor.settings import Settings

    try:
        settings = Settings()
    except ValidationError as err:
        click.echo(f"configuration error:\n{settings_problems(err)}", err=True)
        sys.exit(2)
    configure_logging(level=settings.log_level, project=settings.google_cloud_project)
    problem = credentials_problem(settings) or listen_problem(settings.host, settings.port)
    if problem is not None:
        click.echo(problem, err=True)
        sys.exit(2)
    try:
        by_name.CHECKED_CONTENT[str(settings.content_dir)] = load_catalog(settings.content_dir)
    except ContentError as err:
        click.echo(f"content error: {err}", err=True)
        sys.exit(2)
    announce_local_keys(settings)
    click.echo(f"frontdoor serving on {settings.base_url}", err=True)
    by_name.CHECKED_SETTINGS[:] = [settings]
    by_name.START["served"] = True
    return settings


if __name__ == "__main__":
    main()
