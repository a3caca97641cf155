"""The characters page and brief text may not hold, found field by field.

NUL, and the Unicode bidirectional embedding, override and isolate controls (U+202A to U+202E,
U+2066 to U+2069): they make text display in an order other than the one stored and read by
the gate ("Trojan Source", CVE-2021-42574). Each string holding one is an `invalid_character`
issue naming its field; the marks a language needs (U+200E, U+200F) stay allowed.
"""

import re

from schemas.errors import Issue

REFUSED = re.compile("[\x00\u202a-\u202e\u2066-\u2069]")


def character_issues(value: object, *, path: str = "") -> list[Issue]:
    """One issue per string in `value` (a parsed JSON body) that holds a refused character."""
    found = REFUSED.search(value) if isinstance(value, str) else None
    if found is not None:
        code_point = f"U+{ord(found.group()):04X}"
        return [Issue(field=path, code="invalid_character", message=f"{code_point} is not allowed")]
    if isinstance(value, dict):
        items = [(str(key), child) for key, child in value.items()]
    elif isinstance(value, list):
        items = [(str(index), child) for index, child in enumerate(value)]
    else:
        return []
    issues: list[Issue] = []
    for name, child in items:
        issues += character_issues(child, path=f"{path}.{name}" if path else name)
    return issues
