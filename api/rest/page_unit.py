"""The Pages unit of a set of backends: what the page use cases get from every caller that
holds backends (the REST views, the schedule's task route, the operator CLI)."""

from __future__ import annotations

from backends.bundle import Backends
from services.page_unit import Pages


def page_unit(backends: Backends) -> Pages:
    """The store, the change listeners, the brand, the clock and the schedule's task queue."""
    return Pages(
        store=backends.pages,
        changed=backends.page_changes,
        brand=backends.catalog.brand,
        clock=backends.clock,
        tasks=backends.tasks,
        options=backends.delivery_options,
    )
