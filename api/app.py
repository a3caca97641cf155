"""create_app(config, backends): the Flask app with every blueprint and the shared error model.

The app factory is the one place in api/ that holds the whole Backends: it hands each blueprint
the ports, or the use-case unit (`page_unit`'s Pages, the experiments' ports), that surface
needs, so no view reaches a port it was not given."""

from __future__ import annotations

import logging
import random
import re
import time
from typing import TYPE_CHECKING

from flask import Flask, Response, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from api.auth import KeyCheck
from api.config import AppConfig
from api.errors import register_error_handlers
from api.rate_limits import RateLimits, install_rate_limit_headers
from api.request_context import request_id, trace_id
from api.rest.assets import create_assets_blueprint
from api.rest.brand import create_brand_blueprint
from api.rest.collect import create_collect_blueprint
from api.rest.content import create_content_blueprint
from api.rest.experiments import create_experiments_blueprint, experiment_split
from api.rest.files import create_files_blueprint
from api.rest.http_cache import CORS_HEADERS
from api.rest.jobs import JobPorts, create_jobs_blueprint
from api.rest.page_schedule import create_page_schedule_blueprint
from api.rest.page_stats import create_page_stats_blueprint
from api.rest.pages import create_pages_blueprint, published_page_entries
from api.rest.public import create_public_blueprint
from api.rest.signals import SignalPorts, create_signals_blueprint
from api.rest.variants import create_variants_blueprint
from api.rest.webhooks import create_webhooks_blueprint
from backends.bundle import Backends
from services.keys import KeyRing
from services.page_experiments import ExperimentPorts, stats_tally
from services.pages import Pages

if TYPE_CHECKING:
    from renderers.site import Site

logger = logging.getLogger(__name__)

_TRACE = re.compile(r"^([0-9a-fA-F]{32})")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
# Keyed surfaces stay off shared caches and out of browsers' CORS.
_KEYED_PREFIXES = ("/api/public/content/", "/api/public/v1/signals")


def create_app(config: AppConfig, backends: Backends) -> Flask:
    """A fresh app on the given backends; nothing global is touched."""
    # No folder of Flask's own: the site's assets are the pages blueprint's /static/<name>.
    app = Flask(__name__, static_folder=None)
    app.config.update(PUBLIC_BASE_URL=config.base_url, MAX_CONTENT_LENGTH=config.max_body_bytes)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # DefaultJSONProvider has it
    app.url_map.strict_slashes = False
    # `a//b` is an unknown route (404), not a 308 to `a/b`: werkzeug builds that redirect from
    # the request's Host and scheme (http behind the TLS proxy), and a client that follows it
    # sends its body and key again.
    app.url_map.merge_slashes = False
    if config.mode == "gcp" and config.forwarded_for_hops:
        # Our own proxies (Cloud Run's front end, the load balancer) each append the address
        # they saw to X-Forwarded-For; the entry `forwarded_for_hops` from the end is the
        # client, and entries left of it are the client's own, spoofable claim. ProxyFix puts
        # that entry in `remote_addr` (a shorter header keeps the peer); nothing else changes.
        # Embedded mode listens to its clients directly and keeps the socket peer.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]  # Flask documents this wrap
            app.wsgi_app, x_for=config.forwarded_for_hops, x_proto=0
        )
    limits = RateLimits(
        config.rate_limits, window_seconds=config.rate_limit_window_seconds, clock=time.monotonic
    )
    keys = KeyCheck(KeyRing(backends.keys, config.bootstrap_keys), limits)
    register_error_handlers(app)
    install_rate_limit_headers(app)
    app.before_request(_start_request)
    app.after_request(_finish_request)
    app.teardown_request(_end_request)
    app.add_url_rule("/healthz", "healthz", _healthz)
    app.register_blueprint(create_public_blueprint(backends.catalog, limits=limits))
    app.register_blueprint(
        create_files_blueprint(
            backends.catalog,
            config.base_url,
            auth_url=config.oauth_issuer,
            page_entries=published_page_entries(backends.pages, base_url=config.base_url),
        )
    )
    app.register_blueprint(create_signals_blueprint(ports=signal_ports(backends), keys=keys))
    app.register_blueprint(
        create_collect_blueprint(config, signal_queue=backends.signal_queue, clock=backends.clock)
    )
    pages = page_unit(backends)
    idempotency = backends.idempotency
    app.register_blueprint(
        create_content_blueprint(pages=pages, idempotency=idempotency, config=config, keys=keys)
    )
    app.register_blueprint(
        create_variants_blueprint(
            pages=pages, variants=backends.variants, idempotency=idempotency, keys=keys
        )
    )
    experiments = experiment_ports(pages, backends, config)
    app.register_blueprint(
        create_experiments_blueprint(
            ports=experiments, idempotency=idempotency, config=config, keys=keys
        )
    )
    app.register_blueprint(
        create_page_stats_blueprint(
            pages=backends.pages, signals=backends.signals, clock=backends.clock, keys=keys
        )
    )
    app.register_blueprint(create_brand_blueprint(brand=backends.catalog.brand, keys=keys))
    app.register_blueprint(
        create_jobs_blueprint(ports=job_ports(backends), config=config, keys=keys)
    )
    app.register_blueprint(create_assets_blueprint(blobs=backends.blobs))
    app.register_blueprint(create_page_schedule_blueprint(pages=pages))

    def site() -> Site:
        # The assets are read by the first page, asset or 404 asked for, not by a start.
        from renderers.site import build_site

        return build_site(
            backends.catalog, base_url=config.base_url, beacon_consent=config.beacon_consent
        )

    app.register_blueprint(
        create_pages_blueprint(
            site=site,
            pages=backends.pages,
            clock=backends.clock,
            preview_secret=config.preview_secret,
            page_changes=backends.page_changes,
            brand=backends.catalog.brand,
            variants=backends.variants,
            split=experiment_split(experiments, clock=backends.clock),
        )
    )
    app.register_blueprint(
        create_webhooks_blueprint(
            webhooks=backends.webhooks,
            idempotency=backends.idempotency,
            jobs=backends.jobs,
            tasks=backends.tasks,
            options=backends.delivery_options,
            clock=backends.clock,
            keys=keys,
        )
    )
    return app


def page_unit(backends: Backends) -> Pages:
    """The Pages unit every caller holding backends gives the page use cases (the REST views,
    the schedule's task route, the operator CLI): the store, the change listeners, the brand,
    the clock and the schedule's task queue."""
    return Pages(
        store=backends.pages,
        changed=backends.page_changes,
        brand=backends.catalog.brand,
        clock=backends.clock,
        tasks=backends.tasks,
        options=backends.delivery_options,
    )


def experiment_ports(pages: Pages, backends: Backends, config: AppConfig) -> ExperimentPorts:
    """The stores and settings of the experiment use cases, on the app's one Pages unit;
    counts from the page stats."""
    return ExperimentPorts(
        pages=pages,
        variants=backends.variants,
        experiments=backends.experiments,
        settings=config.experiment,
        tally=stats_tally(backends.signals, clock=backends.clock),
    )


def signal_ports(backends: Backends) -> SignalPorts:
    """What the Signal API works on."""
    return SignalPorts(
        signals=backends.signals,
        signal_queue=backends.signal_queue,
        webhooks=backends.webhooks,
        suppressions=backends.suppressions,
        pages=backends.pages,
        clock=backends.clock,
    )


def job_ports(backends: Backends) -> JobPorts:
    """What the jobs surface works on."""
    return JobPorts(
        jobs=backends.jobs,
        job_queue=backends.job_queue,
        pages=backends.pages,
        idempotency=backends.idempotency,
        clock=backends.clock,
        delivery_options=backends.delivery_options,
    )


def _healthz() -> Response:
    return Response(b"ok", mimetype="text/plain", headers={"Cache-Control": "no-store"})


def _start_request() -> None:
    # Every request passes here: read the WSGI environ directly rather than through proxies.
    environ = request.environ
    incoming = environ.get("HTTP_X_REQUEST_ID")
    request_id.set(incoming if incoming and _REQUEST_ID.match(incoming) else _new_request_id())
    trace = environ.get("HTTP_X_CLOUD_TRACE_CONTEXT")
    match = _TRACE.match(trace) if trace else None
    trace_id.set(match.group(1) if match else None)
    if logger.isEnabledFor(logging.DEBUG):
        g.started = time.perf_counter()


def _new_request_id() -> str:
    """32 hex digits, unique in practice. A label to quote, not a secret: drawn from `random`
    (seeded from the OS at start and in each forked worker) rather than os.urandom, whose
    system call lets go of the interpreter lock on every request (under load, a hand-off
    between threads each time)."""
    return f"{random.getrandbits(128):032x}"


def _end_request(_error: BaseException | None) -> None:
    # Threads serve many requests: nothing logged between them may carry a stale id.
    request_id.set(None)
    trace_id.set(None)


def _finish_request(response: Response) -> Response:
    response.headers["X-Request-Id"] = request_id.get() or ""
    path = request.path
    if path.startswith(_KEYED_PREFIXES):
        response.headers["Cache-Control"] = "no-store"
    elif request.method == "OPTIONS" or response.status_code >= 400:
        for name, value in CORS_HEADERS.items():
            response.headers.setdefault(name, value)
    if response.status_code >= 500:
        logger.error("%s %s answered %d", request.method, path, response.status_code)
    elif logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "%s %s %d",
            request.method,
            path,
            response.status_code,
            extra={"latency_ms": round((time.perf_counter() - g.get("started", 0.0)) * 1000, 2)},
        )
    return response
