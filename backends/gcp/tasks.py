"""CloudTasksTaskQueue: HTTP tasks on a Cloud Tasks queue (or the gcloud-tasks-emulator).

The client has no emulator variable of its own: with CLOUD_TASKS_EMULATOR_HOST set (our
convention, read by Settings) it is built on an insecure gRPC channel (notes/gcp-emulators.md).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
from google.api_core import exceptions as gexc
from google.cloud import tasks_v2
from google.cloud.tasks_v2.services.cloud_tasks.transports import CloudTasksGrpcTransport
from google.protobuf import timestamp_pb2

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.ports import HttpTask, UnavailableError


def cloud_tasks_client(*, emulator_host: str | None = None) -> tasks_v2.CloudTasksClient:
    """A Cloud Tasks client; on an insecure channel when an emulator host is given."""
    if emulator_host:
        channel = grpc.insecure_channel(emulator_host)
        return tasks_v2.CloudTasksClient(transport=CloudTasksGrpcTransport(channel=channel))
    return tasks_v2.CloudTasksClient()


def queue_path(*, project: str, location: str, queue: str) -> str:
    """The full name of a queue."""
    path: str = tasks_v2.CloudTasksClient.queue_path(project, location, queue)
    return path


def ensure_queue(
    client: tasks_v2.CloudTasksClient, path: str, *, deadline: CallDeadline = DEFAULT_DEADLINE
) -> str:
    """Create the queue if missing (emulated runs; Terraform owns it in the cloud); its path."""
    with contextlib.suppress(gexc.AlreadyExists):
        client.create_queue(
            parent=path.split("/queues/")[0], queue=tasks_v2.Queue(name=path), **deadline.write
        )
    return path


class CloudTasksTaskQueue:
    """TaskQueue on Cloud Tasks: one `create_task` with an http_request per task.

    The client is built on first use, so wiring needs no credentials until a task is sent.
    """

    def __init__(
        self,
        connect: Callable[[], tasks_v2.CloudTasksClient],
        *,
        queue_path: str,
        oidc_service_account: str | None = None,
        create_queue: bool = False,
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._connect = connect
        self._deadline = deadline
        self._client: tasks_v2.CloudTasksClient | None = None
        self._lock = threading.Lock()
        self._queue_path = queue_path
        self._oidc_service_account = oidc_service_account
        self._create_queue = create_queue

    def _ready_client(self) -> tasks_v2.CloudTasksClient:
        with self._lock:
            if self._client is None:
                client = self._connect()
                if self._create_queue:
                    ensure_queue(client, self._queue_path, deadline=self._deadline)
                self._client = client
            return self._client

    def enqueue(self, task: HttpTask) -> bool:
        request = tasks_v2.HttpRequest(
            http_method=tasks_v2.HttpMethod.POST,
            url=task.url,
            headers=dict(task.headers),
            body=task.body,
        )
        if self._oidc_service_account:
            request.oidc_token = tasks_v2.OidcToken(
                service_account_email=self._oidc_service_account
            )
        cloud_task = tasks_v2.Task(
            name=f"{self._queue_path}/tasks/{task.name}", http_request=request
        )
        if task.schedule_time is not None:
            stamp = timestamp_pb2.Timestamp()
            stamp.FromDatetime(task.schedule_time)
            cloud_task.schedule_time = stamp
        try:
            # A named task: one sent again after an unanswered attempt is AlreadyExists.
            self._ready_client().create_task(
                parent=self._queue_path, task=cloud_task, **self._deadline.write
            )
        except gexc.AlreadyExists:
            return False
        except (gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.RetryError) as err:
            raise UnavailableError("cloud tasks") from err
        return True

    def close(self) -> None:
        """Close the client's channel, if one was opened."""
        with self._lock:
            if self._client is not None:
                self._client.transport.close()  # type: ignore[no-untyped-call]  # untyped in the client
                self._client = None
