"""The key of the suppression list's hashes (signals-api.md "Erasure that sticks").

SUPPRESSION_KEY when set. Else, on one machine, a random key kept in DATA_DIR
(`suppression_key`, owner-only, shared by every worker process); on Google Cloud a key derived
from INTERNAL_TOKEN, a secret every service there already shares. A key that changes loses
the list (its hashes no longer match), so it is never made up per process in the cloud.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from pathlib import Path

from frontdoor.kept_secrets import kept_secret
from frontdoor.settings import Settings

logger = logging.getLogger(__name__)


def suppression_key(settings: Settings) -> bytes:
    """SUPPRESSION_KEY, else one kept in DATA_DIR (embedded) or derived from INTERNAL_TOKEN."""
    if settings.suppression_key is not None:
        return settings.suppression_key.get_secret_value().encode()
    if settings.backend == "embedded":
        path = Path(settings.data_dir) / "suppression_key"
        return kept_secret(path, lambda: secrets.token_hex(32)).encode()
    if settings.internal_token is not None:
        token = settings.internal_token.get_secret_value().encode()
        return hmac.new(token, b"frontdoor-suppression-list", hashlib.sha256).digest()
    # Terraform always sets INTERNAL_TOKEN; without it (an emulated run) the key is only as
    # secret as the project's name, so an operator is told.
    logger.error(
        "SUPPRESSION_KEY and INTERNAL_TOKEN are unset: set one to key the suppression list"
    )
    return hashlib.sha256(
        b"frontdoor-emulated-suppression\n" + str(settings.google_cloud_project).encode()
    ).digest()
