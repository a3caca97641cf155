"""GcsBlobStore: public files in a Cloud Storage bucket, served through Cloud CDN.

Uploads are not transactional: an object is replaced whole, and names are derived from
content (slug and a digest), so a retried upload writes the same bytes to the same name.
"""

from __future__ import annotations

import requests
from google.api_core import exceptions as gexc
from google.cloud import storage  # type: ignore[attr-defined,unused-ignore]  # no stubs; mypy sees it only sometimes
from google.cloud.storage.retry import DEFAULT_RETRY

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.ports import Blob, UnavailableError

# What the storage client raises once it stops retrying: a refusal, its retry out of time, or
# (on its last attempt) the HTTP client's own timeout or broken connection.
_TRANSIENT = (
    gexc.ServiceUnavailable,
    gexc.TooManyRequests,
    gexc.InternalServerError,
    gexc.RetryError,
    requests.exceptions.Timeout,
    requests.exceptions.ConnectionError,
)


class GcsBlobStore:
    """BlobStore on Cloud Storage; URLs use the configured public base (CDN) if any."""

    def __init__(
        self,
        client: storage.Client,
        *,
        bucket_name: str,
        public_base_url: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._bucket = client.bucket(bucket_name)
        self._public_base_url = public_base_url.rstrip("/")
        # The client's own policy (it retries for 120 s) within the deadline. An upload is
        # retried too: names come from content, so a second upload writes the same bytes.
        self._bounded = {
            "retry": DEFAULT_RETRY.with_timeout(deadline.seconds),
            "timeout": deadline.seconds,
        }

    def put_blob(self, name: str, blob: Blob) -> str:
        obj = self._bucket.blob(name)
        obj.cache_control = blob.cache_control
        try:
            obj.upload_from_string(blob.data, content_type=blob.content_type, **self._bounded)
        except _TRANSIENT as err:
            raise UnavailableError("cloud storage") from err
        if self._public_base_url:
            return f"{self._public_base_url}/{name}"
        return str(obj.public_url)

    def get_blob(self, name: str) -> Blob | None:
        try:
            obj = self._bucket.get_blob(name, **self._bounded)
            if obj is None:
                return None
            # Read the metadata first: a download refreshes it from the response headers.
            content_type = obj.content_type or "application/octet-stream"
            cache_control = obj.cache_control or ""
            data = obj.download_as_bytes(**self._bounded)
        except gexc.NotFound:
            return None
        except _TRANSIENT as err:
            raise UnavailableError("cloud storage") from err
        return Blob(data=data, content_type=content_type, cache_control=cache_control)
