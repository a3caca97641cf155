"""GcsBlobStore: public files in a Cloud Storage bucket, served through Cloud CDN.

Uploads are not transactional: an object is replaced whole, and names are derived from
content (slug and a digest), so a retried upload writes the same bytes to the same name.
"""

from __future__ import annotations

from google.api_core import exceptions as gexc
from google.cloud import storage  # type: ignore[attr-defined,unused-ignore]  # no stubs; mypy sees it only sometimes

from backends.ports import Blob, UnavailableError


class GcsBlobStore:
    """BlobStore on Cloud Storage; URLs use the configured public base (CDN) if any."""

    def __init__(
        self, client: storage.Client, *, bucket_name: str, public_base_url: str = ""
    ) -> None:
        self._bucket = client.bucket(bucket_name)
        self._public_base_url = public_base_url.rstrip("/")

    def put_blob(self, name: str, blob: Blob) -> str:
        obj = self._bucket.blob(name)
        obj.cache_control = blob.cache_control
        try:
            obj.upload_from_string(blob.data, content_type=blob.content_type)
        except (gexc.ServiceUnavailable, gexc.TooManyRequests, gexc.InternalServerError) as err:
            raise UnavailableError("cloud storage") from err
        if self._public_base_url:
            return f"{self._public_base_url}/{name}"
        return str(obj.public_url)

    def get_blob(self, name: str) -> Blob | None:
        try:
            obj = self._bucket.get_blob(name)
            if obj is None:
                return None
            # Read the metadata first: a download refreshes it from the response headers.
            content_type = obj.content_type or "application/octet-stream"
            cache_control = obj.cache_control or ""
            data = obj.download_as_bytes()
        except gexc.NotFound:
            return None
        except (gexc.ServiceUnavailable, gexc.TooManyRequests) as err:
            raise UnavailableError("cloud storage") from err
        return Blob(data=data, content_type=content_type, cache_control=cache_control)
