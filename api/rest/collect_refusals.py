"""What /collect refused, counted per process and logged where an operator reads them.

Each refusal is one log record, `collect refused: <reason>`, whose JSON carries
`collect_refused` (the reason) and `refused_count` (how many of that reason this process has
refused since it started), beside the client's salted hash, never its address. The reasons:
`forged_beacon` (a beacon that tried to set a person, an account, a time or a form type),
`over_form_limit`, `over_visitor_limit`, `over_address_limit`, `foreign_origin` and
`suppressed` (a form naming an erased address). On Google Cloud a log-based metric on
`jsonPayload.collect_refused` counts them across instances; on one machine, `grep` the log.
Nothing here answers a request: the view raises its own error.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from typing import Literal

__all__ = ["CollectRefusals", "RefusalReason"]

logger = logging.getLogger(__name__)

RefusalReason = Literal[
    "forged_beacon",
    "over_form_limit",
    "over_visitor_limit",
    "over_address_limit",
    "foreign_origin",
    "suppressed",
]


class CollectRefusals:
    """Counts of refused posts by reason, in this process's memory (thread-safe)."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def count(self, reason: RefusalReason, *, client_hash: str, detail: str = "") -> int:
        """Count and log one refusal; this process's total for the reason."""
        with self._lock:
            self._counts[reason] += 1
            total = self._counts[reason]
        logger.warning(
            "collect refused: %s%s (%d in this process)",
            reason,
            f" ({detail})" if detail else "",
            total,
            extra={"collect_refused": reason, "refused_count": total, "client_hash": client_hash},
        )
        return total

    def totals(self) -> dict[str, int]:
        """Each reason's count so far (reasons never refused are left out)."""
        with self._lock:
            return dict(self._counts)
