"""Whole numbers read from text a client sent (query parameters, headers, tokens, cursors)."""

from __future__ import annotations


def ascii_whole_number(raw: str, *, max_digits: int) -> int | None:
    """`raw` as an int when it is 1 to `max_digits` ASCII digits, else None.

    `str.isdigit()` alone also takes "³" (which `int()` refuses: a 500) and "٣" (which `int()`
    reads as 3); signs, spaces, "_" and "." are refused too.
    """
    if raw.isascii() and raw.isdigit() and len(raw) <= max_digits:
        return int(raw)
    return None
