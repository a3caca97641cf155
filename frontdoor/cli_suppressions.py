"""`frontdoor signals unsuppress EMAIL`: accept an erased address's events again.

Erasing a person (DELETE /signals/people/{email}) holds their address in the suppression list,
as a keyed hash; only an operator lifts that, for example when the person comes back and asks
to be contacted. The lift is logged by the hash, never the address (signals-api.md "Erasure
that sticks").
"""

from __future__ import annotations

import click

from frontdoor.logs import configure_logging
from frontdoor.settings import Settings
from frontdoor.suppression_key import suppression_key
from frontdoor.wiring import build_backends
from schemas.signals.events import normalize_email
from schemas.signals.suppression import address_digest
from services.suppressions import lift_suppression

__all__ = ["unsuppress"]


@click.command("unsuppress")
@click.argument("email")
@click.pass_context
def unsuppress(ctx: click.Context, email: str) -> None:
    """Accept EMAIL's events again after its erasure (exit 1 if it was not held)."""
    address = normalize_email(email)
    if address is None:
        raise click.BadParameter("not an email address", param_hint="EMAIL")
    settings = Settings()
    configure_logging(level="WARNING", project=settings.google_cloud_project)
    backends = build_backends(settings, start_workers=False)
    try:
        digest = address_digest(address, key=suppression_key(settings))
        lifted = lift_suppression(suppressions=backends.suppressions, email=address, digest=digest)
    finally:
        backends.close()
    if not lifted:
        click.echo(f"{address} was not suppressed; nothing changed", err=True)
        ctx.exit(1)
    click.echo(f"lifted: events of {address} are accepted again (logged as {digest[:16]})")
