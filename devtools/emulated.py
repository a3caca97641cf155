"""`make run-emulated`: the whole service on the Google Cloud emulators, as it runs in the cloud.

Starts the Firestore, Pub/Sub, storage and tasks emulators, creates what terraform/ creates
(topics, push subscriptions with dead letter topics, the image bucket, the deliveries queue),
then the API (`python -m frontdoor.serve`, BACKEND=gcp) and one functions-framework process
per worker target, each on its own loopback port; Ctrl-C (SIGINT or SIGTERM) stops all of it.

Differences from terraform/pubsub.tf, on purpose: no retry policy (the emulator redelivers
about every second whatever the policy says) and no OIDC push tokens (the emulator signs
none, so PUBSUB_EMULATOR_HOST switches the workers' check off). Mail to the `mail` topic is
read back from a pull subscription and shown on the terminal (the sign-in codes of /mcp).
"""

from __future__ import annotations

import json
import secrets
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import click
import httpx

from devtools import emulators
from devtools.emulated_resources import (
    GENERATION_TOPIC,
    LOCATION,
    MAIL_OUTBOX,
    MAIL_TOPIC,
    QUEUE,
    SIGNALS_TOPIC,
    WORKERS,
    create_resources,
    pull_messages,
)
from devtools.processes import (
    REPO,
    ManagedProcess,
    free_port,
    http_ok,
    spawn_process,
    tcp_open,
    wait_ready,
)

DEFAULT_PROJECT = "demo-frontdoor"  # "demo-": a project id that can only ever be emulated
READY_TIMEOUT = 120.0
SCOPES = ("content", "signals", "ingest")


@dataclass(frozen=True)
class EmulatorHosts:
    """Where the four emulators listen (`host:port`, no scheme)."""

    firestore: str
    pubsub: str
    storage: str
    tasks: str


@dataclass(frozen=True)
class StackConfig:
    """What one emulated run looks like; every field has a laptop default."""

    project: str = DEFAULT_PROJECT
    port: int = 8080
    keys: dict[str, str] = field(default_factory=dict)  # scope -> key; missing ones generated
    state_dir: Path = REPO / ".data" / "emulated"
    max_delivery_attempts: int = 5  # terraform's default
    tasks_max_retries: int = 3
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. AUTHOR_MODEL
    logs: Path | None = None  # default: state_dir/logs

    @property
    def log_dir(self) -> Path:
        return self.logs or self.state_dir / "logs"


@dataclass
class EmulatedStack:
    """A running emulated deployment: its processes, addresses, keys and environment."""

    config: StackConfig
    hosts: EmulatorHosts
    base_url: str
    keys: dict[str, str]
    app_env: dict[str, str]
    worker_ports: dict[str, int]
    emulator_processes: list[ManagedProcess]
    apps: dict[str, ManagedProcess] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def bucket(self) -> str:
        return self.app_env["BLOBS_BUCKET"]

    def kill(self, name: str) -> None:
        """SIGKILL one app process (the API or a worker) and its children: a crash."""
        self.apps[name].kill()

    def restart(self, name: str) -> ManagedProcess:
        """Start an app process again on its own port, as Cloud Run starts a new instance."""
        with self._lock:
            self.apps[name].stop()
            self.apps[name] = _start_apps(self, [name])[name]
            return self.apps[name]

    def revive(self) -> list[str]:
        """Restart every app process that has exited; the names restarted."""
        dead = [name for name, proc in self.apps.items() if proc.proc.poll() is not None]
        for name in dead:
            self.restart(name)
        return dead

    def pull(self, subscription: str) -> list[dict[str, Any]]:
        """Pull and ack what waits on one of this stack's pull subscriptions."""
        return pull_messages(self.hosts.pubsub, self.config.project, subscription)

    def emulators_alive(self) -> bool:
        return all(proc.proc.poll() is None for proc in self.emulator_processes)

    def stop(self) -> None:
        """Stop the app processes first (they hold client connections), then the emulators."""
        for proc in [*self.apps.values(), *self.emulator_processes]:
            proc.stop()

    def describe(self) -> str:
        """Where everything is, for the terminal."""
        rule = "-" * 72
        lines = [
            rule,
            f"frontdoor on the Google Cloud emulators (project {self.config.project})",
            "",
            f"  {'API':<30}{self.base_url}  (logs {self.apps['api'].log_path})",
        ]
        for worker in WORKERS:
            proc = self.apps[worker.name]
            lines.append(
                f"  {'worker ' + worker.name:<30}http://{proc.host}/  "
                f"<- {worker.subscription} (target {worker.target})"
            )
        lines += [
            "",
            f"  FIRESTORE_EMULATOR_HOST={self.hosts.firestore}",
            f"  PUBSUB_EMULATOR_HOST={self.hosts.pubsub}",
            f"  STORAGE_EMULATOR_HOST=http://{self.hosts.storage}  (bucket {self.bucket})",
            f"  CLOUD_TASKS_EMULATOR_HOST={self.hosts.tasks}  (queue {QUEUE})",
            f"  GOOGLE_CLOUD_PROJECT={self.config.project}",
            "",
            *(f"  {scope.upper()}_API_KEY={key}" for scope, key in sorted(self.keys.items())),
            "",
            f"  logs: {self.config.log_dir}",
            "  Ctrl-C stops everything.",
            rule,
        ]
        return "\n".join(lines)


def start_stack(config: StackConfig, *, hosts: EmulatorHosts | None = None) -> EmulatedStack:
    """Start (or attach to) the emulators, create the resources, start the API and workers.

    With `hosts`, the emulators are already running (tests share theirs); a project of its
    own keeps this stack apart. Raises: RuntimeError when a process does not come up.
    """
    owned: list[ManagedProcess] = []
    try:
        if hosts is None:
            owned = _start_emulators(config)
            hosts = EmulatorHosts(*(proc.host for proc in owned))
        keys = {s: config.keys.get(s) or secrets.token_urlsafe(24) for s in SCOPES}
        stack = EmulatedStack(
            config=config,
            hosts=hosts,
            base_url=f"http://127.0.0.1:{config.port}",
            keys=keys,
            app_env=_app_env(config, hosts, keys),
            worker_ports={worker.name: free_port() for worker in WORKERS},
            emulator_processes=owned,
        )
        create_resources(
            config.project,
            pubsub_host=hosts.pubsub,
            storage_host=hosts.storage,
            tasks_host=hosts.tasks,
            bucket=stack.bucket,
            worker_ports=stack.worker_ports,
            max_delivery_attempts=config.max_delivery_attempts,
        )
        stack.apps = _start_apps(stack, ["api", *(worker.name for worker in WORKERS)])
    except BaseException:  # a failure or an interrupt mid-start leaves nothing running
        for proc in owned:
            proc.stop()
        raise
    return stack


def _start_emulators(config: StackConfig) -> list[ManagedProcess]:
    """The four emulators, started side by side (two JVMs: about two seconds)."""
    log_dir = config.log_dir
    starters: list[Callable[[], ManagedProcess]] = [
        lambda: emulators.start_firestore(log_dir=log_dir),
        lambda: emulators.start_pubsub(log_dir=log_dir),
        lambda: emulators.start_storage(log_dir=log_dir),
        lambda: emulators.start_tasks(log_dir=log_dir, max_retries=config.tasks_max_retries),
    ]
    with ThreadPoolExecutor(max_workers=len(starters)) as pool:
        futures = [pool.submit(start) for start in starters]
    started = [f.result() for f in futures if f.exception() is None]
    failed = [f.exception() for f in futures if f.exception() is not None]
    if failed:
        for proc in started:
            proc.stop()
        raise RuntimeError(f"an emulator did not start: {failed[0]}") from failed[0]
    return started


def _app_env(config: StackConfig, hosts: EmulatorHosts, keys: dict[str, str]) -> dict[str, str]:
    """The environment every app process shares (terraform/run.tf's common_env, emulated)."""
    base_url = f"http://127.0.0.1:{config.port}"
    return {
        "BACKEND": "gcp",
        "GOOGLE_CLOUD_PROJECT": config.project,
        "HOST": "127.0.0.1",
        "PUBLIC_BASE_URL": base_url,
        "INTERNAL_BASE_URL": base_url,
        "DATA_DIR": str(config.state_dir / "data"),
        "FIRESTORE_EMULATOR_HOST": hosts.firestore,
        "PUBSUB_EMULATOR_HOST": hosts.pubsub,
        "STORAGE_EMULATOR_HOST": f"http://{hosts.storage}",
        "CLOUD_TASKS_EMULATOR_HOST": hosts.tasks,
        "CLOUD_TASKS_LOCATION": LOCATION,
        "CLOUD_TASKS_QUEUE": QUEUE,
        "SIGNALS_TOPIC": SIGNALS_TOPIC,
        "GENERATION_TOPIC": GENERATION_TOPIC,
        "MAIL_TOPIC": MAIL_TOPIC,
        "BLOBS_BUCKET": f"{config.project}-images",
        "WEBHOOK_ALLOW_LOOPBACK": "true",
        "INTERNAL_TOKEN": secrets.token_urlsafe(32),
        "PREVIEW_SECRET": secrets.token_urlsafe(32),
        **{f"{scope.upper()}_API_KEY": key for scope, key in keys.items()},
        "LOG_LEVEL": "INFO",
        **config.extra_env,
    }


def _start_apps(stack: EmulatedStack, names: list[str]) -> dict[str, ManagedProcess]:
    """Spawn the named app processes side by side, then wait until each answers."""
    python = sys.executable
    spawned: dict[str, ManagedProcess] = {}
    for name in names:
        if name == "api":
            port = stack.config.port
            cmd = [python, "-m", "frontdoor.serve"]
        else:
            worker = next(w for w in WORKERS if w.name == name)
            port = stack.worker_ports[name]
            cmd = [
                str(Path(python).parent / "functions-framework"),
                "--source=frontdoor/functions.py",
                f"--target={worker.target}",
                "--signature-type=cloudevent",
                "--host=127.0.0.1",
                f"--port={port}",
            ]
        env = {**stack.app_env, "PORT": str(port)}
        spawned[name] = spawn_process(
            name, cmd, port=port, log_dir=stack.config.log_dir, env=env, cwd=REPO
        )
    try:
        for name, proc in spawned.items():
            ready = http_ok("/healthz") if name == "api" else tcp_open
            wait_ready(proc, ready=ready, timeout=READY_TIMEOUT)
    except RuntimeError:
        for proc in spawned.values():
            proc.stop()
        raise
    return spawned


def show_mail(stack: EmulatedStack) -> None:
    """Echo the mail the service sent (sign-in codes) since the last call."""
    try:
        messages = stack.pull(MAIL_OUTBOX)
    except httpx.HTTPError:  # the emulator is busy; the mail waits for the next call
        return
    for message in messages:
        try:
            mail = json.loads(message["data"])
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        click.echo(f"mail to {mail.get('to')}: {mail.get('subject')}\n{mail.get('text')}\n")


@click.command()
@click.option("--port", type=int, default=8080, envvar="PORT", show_default=True)
@click.option("--project", default=DEFAULT_PROJECT, show_default=True)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=StackConfig.state_dir,
    show_default=True,
    help="Logs and data of this run",
)
@click.option("--content-key", envvar="CONTENT_API_KEY", default=None, help="(default: new)")
@click.option("--signals-key", envvar="SIGNALS_API_KEY", default=None, help="(default: new)")
@click.option("--ingest-key", envvar="INGEST_API_KEY", default=None, help="(default: new)")
def main(
    port: int,
    project: str,
    state_dir: Path,
    content_key: str | None,
    signals_key: str | None,
    ingest_key: str | None,
) -> None:
    """Run the API and the workers on the Google Cloud emulators until Ctrl-C."""
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    given = {"content": content_key, "signals": signals_key, "ingest": ingest_key}
    keys = {scope: key for scope, key in given.items() if key}
    config = StackConfig(project=project, port=port, keys=keys, state_dir=state_dir)
    click.echo("starting the emulators, the API and the workers ...", err=True)
    try:
        stack = start_stack(config)
    except RuntimeError as err:
        click.echo(f"could not start: {err}", err=True)
        sys.exit(1)
    click.echo(stack.describe())
    code = 0
    try:
        while not stopping.wait(1.0):
            if not stack.emulators_alive():
                click.echo("an emulator exited; stopping", err=True)
                code = 1
                break
            try:
                for name in stack.revive():
                    click.echo(f"{name} exited and was started again", err=True)
            except RuntimeError as err:  # it exits again at once: its log says why
                click.echo(f"could not start it again: {err}", err=True)
                code = 1
                break
            show_mail(stack)
    finally:
        click.echo("stopping ...", err=True)
        stack.stop()
    sys.exit(code)


if __name__ == "__main__":
    main()
