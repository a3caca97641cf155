"""Who is staff, and which tool scopes a person is granted: the rule the sign-in's consent step
and the external identity provider's tokens both follow.

The public tools need the sign-in scopes only. Each staff toolset (the signal stream's, reading
the site's pages, drafting a page) needs a scope of its own that only staff are granted: a
person who is not staff, asking for them, gets the public tools (RFC 6749 section 3.3 lets the
server issue fewer scopes than asked, and says so in the token answer's `scope`), so one client
works for everyone and asks for everything it might use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PUBLIC_SCOPES: tuple[str, ...] = ("openid", "email", "profile")
STAFF_SCOPES: tuple[str, ...] = ("signals:read", "pages:read", "pages:draft")
# What the consent page says each staff toolset lets the app do, in the person's words.
STAFF_TOOLSETS: Mapping[str, str] = {
    "signals:read": (
        "Read the signal stream: hot accounts, a person's or an account's story, and every "
        "touch with the website (read-only)"
    ),
    "pages:read": (
        "Read the site's landing pages: every page, its status and its preview (read-only)"
    ),
    "pages:draft": (
        "Draft new landing pages from a brief: written and checked against the brand, kept as "
        "drafts for review (never published)"
    ),
}


@dataclass(frozen=True)
class StaffDirectory:
    """Staff by email domain or address; with an external identity provider, by a claim."""

    domains: frozenset[str] = frozenset()
    emails: frozenset[str] = frozenset()
    # `name=value`: a token whose claim `name` equals `value` or lists it is staff's.
    claim: tuple[str, str] | None = None

    @classmethod
    def of(
        cls, *, domains: Iterable[str] = (), emails: Iterable[str] = (), claim: str | None = None
    ) -> StaffDirectory:
        name, _, value = (claim or "").partition("=")
        return cls(
            domains=frozenset(d.strip().lower().lstrip("@") for d in domains if d.strip()),
            emails=frozenset(e.strip().lower() for e in emails if e.strip()),
            claim=(name.strip(), value.strip()) if name.strip() and value.strip() else None,
        )

    @property
    def configured(self) -> bool:
        return bool(self.domains or self.emails or self.claim)

    def has_email(self, email: str | None) -> bool:
        """Whether a verified email address is staff's."""
        if not email or "@" not in email:
            return False
        address = email.strip().lower()
        return address in self.emails or address.rsplit("@", 1)[1] in self.domains

    def has_claims(self, claims: Mapping[str, object]) -> bool:
        """Whether an identity provider's token is staff's: by the claim, or its verified email."""
        if self.claim is not None:
            name, value = self.claim
            held = claims.get(name)
            if held == value or (isinstance(held, list | tuple) and value in held):
                return True
        email = claims.get("email")
        verified = claims.get("email_verified", True) is True
        return verified and isinstance(email, str) and self.has_email(email)


def granted_scopes(
    requested: Iterable[str], *, staff: bool, kept: Iterable[str] | None = None
) -> list[str]:
    """The scopes to grant, in the order asked: staff scopes only to staff, and of those only
    the ones the person kept ticked (all of them when `kept` is None)."""
    kept_set = None if kept is None else set(kept)
    return [
        scope
        for scope in dict.fromkeys(requested)
        if scope not in STAFF_SCOPES or (staff and (kept_set is None or scope in kept_set))
    ]
