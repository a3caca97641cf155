"""How the suppression list names an address: a keyed hash, never the address.

HMAC-SHA256 of the normalized address under the deployment's suppression key: without the key
the list cannot be read back by hashing guessed addresses (a bare hash could), and logs name a
held address by the same digest. Pure: no I/O, the key is passed in.
"""

import hashlib
import hmac

__all__ = ["address_digest"]


def address_digest(email: str, *, key: bytes) -> str:
    """The hex HMAC-SHA256 of a normalized (lower-cased) address under `key`."""
    return hmac.new(key, email.encode(), hashlib.sha256).hexdigest()
