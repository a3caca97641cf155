"""CloudCdn: purge a path from Cloud CDN by invalidating it on the load balancer's URL map.

Invalidation is asynchronous on Google's side (it takes seconds to minutes); the page's own
short max-age bounds what a visitor sees meanwhile, so we start the operation and return.

The Compute Engine client is imported on the first purge, not with this module: importing it
takes about 5 s of CPU (measured on this machine), which every Google Cloud process would pay
at its start, workers restarted after a crash included, while only a deployment with a
CDN_URL_MAP ever purges.
"""

from __future__ import annotations

import logging
from typing import Any

import requests
from google.api_core import exceptions as gexc

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.ports import UnavailableError

logger = logging.getLogger(__name__)


class CloudCdn:
    """Cdn on Cloud CDN: `urlMaps.invalidateCache` for one path (and host, when given)."""

    def __init__(
        self,
        *,
        project: str,
        url_map: str,
        host: str | None = None,
        client: Any = None,
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._deadline = deadline
        self._project = project
        self._url_map = url_map
        self._host = host
        self._client = client

    def _urlmaps(self) -> Any:
        if self._client is None:
            self._client = _compute().UrlMapsClient()
        return self._client

    def purge(self, path: str) -> None:
        rule = _compute().CacheInvalidationRule(path=path)
        if self._host:
            rule.host = self._host
        try:
            operation = self._urlmaps().invalidate_cache(
                project=self._project,
                url_map=self._url_map,
                cache_invalidation_rule_resource=rule,
                timeout=self._deadline.seconds,  # not retried: the client's own default is 600 s
            )
        except (gexc.GoogleAPICallError, requests.exceptions.RequestException) as err:
            raise UnavailableError(f"cdn purge of {path}") from err
        logger.info(
            "cdn purge of %s started", path, extra={"path": path, "operation": operation.name}
        )


def _compute() -> Any:
    """google.cloud.compute_v1, imported on first use (see the module docstring)."""
    from google.cloud import compute_v1  # here, not at the top: seconds of CPU at import

    return compute_v1
