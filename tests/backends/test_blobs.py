"""Contract suite for BlobStore: a local folder, and Cloud Storage on gcp-storage-emulator."""

from __future__ import annotations

import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from backends.embedded.blobs import InvalidBlobNameError, LocalBlobStore
from backends.ports import Blob, BlobStore

CACHE = "public, max-age=31536000, immutable"


@pytest.fixture(params=["local", pytest.param("gcs", marks=pytest.mark.emulator)])
def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BlobStore]:
    if request.param == "local":
        yield LocalBlobStore(tmp_path / "assets", base_url="http://testserver/assets")
        return
    request.getfixturevalue("storage_emulator")
    from google.cloud import storage  # type: ignore[attr-defined,unused-ignore]  # no stubs

    from backends.gcp.blobs import GcsBlobStore

    client = storage.Client(project="demo-frontdoor")
    bucket = f"b-{uuid.uuid4().hex[:12]}"
    client.create_bucket(bucket)
    yield GcsBlobStore(client, bucket_name=bucket)


def test_a_stored_blob_reads_back_with_its_headers(blobs: BlobStore) -> None:
    """put_blob / get_blob keep the bytes, content type and cache control."""
    blob = Blob(data=b"RIFF....WEBP", content_type="image/webp", cache_control=CACHE)

    url = blobs.put_blob("hero/audit/abc-1200x630.webp", blob)

    assert url.endswith("/hero/audit/abc-1200x630.webp")
    assert blobs.get_blob("hero/audit/abc-1200x630.webp") == blob


def test_putting_the_same_name_again_replaces_it(blobs: BlobStore) -> None:
    """A retried upload writes the same name: the last write wins, nothing piles up."""
    blobs.put_blob("a.png", Blob(data=b"one", content_type="image/png", cache_control=CACHE))

    blobs.put_blob("a.png", Blob(data=b"two", content_type="image/png", cache_control=CACHE))

    assert blobs.get_blob("a.png").data == b"two"  # type: ignore[union-attr]


def test_an_unknown_blob_reads_as_none(blobs: BlobStore) -> None:
    assert blobs.get_blob("nothing/here.png") is None


@pytest.mark.emulator
def test_a_gcs_blob_is_served_at_its_public_url(request: pytest.FixtureRequest) -> None:
    """The URL GcsBlobStore returns answers with the object (the emulator's public URL)."""
    request.getfixturevalue("storage_emulator")
    from google.cloud import storage  # type: ignore[attr-defined,unused-ignore]  # no stubs

    from backends.gcp.blobs import GcsBlobStore

    client = storage.Client(project="demo-frontdoor")
    bucket = f"b-{uuid.uuid4().hex[:12]}"
    client.create_bucket(bucket)
    store = GcsBlobStore(client, bucket_name=bucket)

    url = store.put_blob("x.png", Blob(data=b"png!", content_type="image/png", cache_control=CACHE))

    with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310  # loopback emulator
        assert answer.read() == b"png!"


def test_a_local_blob_name_cannot_leave_its_folder(tmp_path: Path) -> None:
    """LocalBlobStore refuses `..`, absolute and odd names; reads of them find nothing."""
    store = LocalBlobStore(tmp_path / "assets", base_url="http://testserver/assets")
    (tmp_path / "secret.txt").write_text("no")

    with pytest.raises(InvalidBlobNameError):
        store.put_blob(
            "../secret.txt", Blob(data=b"x", content_type="text/plain", cache_control="")
        )

    assert store.get_blob("../secret.txt") is None
    assert store.get_blob("/etc/passwd") is None
    assert store.get_blob("a/.hidden") is None
