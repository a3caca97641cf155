"""CloudCdn: purge a path from Cloud CDN by invalidating it on the load balancer's URL map.

Invalidation is asynchronous on Google's side (it takes seconds to minutes); the page's own
short max-age bounds what a visitor sees meanwhile, so we start the operation and return.
"""

from __future__ import annotations

import logging
from typing import Any

import requests
from google.api_core import exceptions as gexc
from google.cloud import compute_v1

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
            self._client = compute_v1.UrlMapsClient()
        return self._client

    def purge(self, path: str) -> None:
        rule = compute_v1.CacheInvalidationRule(path=path)
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
