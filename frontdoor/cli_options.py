"""Option checks the CLI's command groups share."""

from __future__ import annotations

import click

from backends.ports import KeyStore
from services.keys import PARTNER_NAME, spelled_otherwise

__all__ = ["partner_name", "refuse_partner_spelled_otherwise"]


def partner_name(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A partner owns its pages by name: an empty or blank one (an unset shell variable) would
    make every such key one partner, and a page written for a name no key carries could never
    be read by a partner, so a name is 1 to 64 letters, digits, `.`, `_` or `-`."""
    if value is not None and not PARTNER_NAME.match(value):
        raise click.BadParameter(
            "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


def refuse_partner_spelled_otherwise(keys: KeyStore, partner: str) -> None:
    """Raises: click.BadParameter when `partner` differs from a known partner's name only in
    case: pages, jobs and endpoints belong to a partner by its exact name."""
    known = spelled_otherwise(keys=keys, partner=partner)
    if known is not None:
        raise click.BadParameter(
            f"partner {known!r} exists; names that differ only in case are two partners, "
            f"and {partner!r} would not see the pages of {known!r}: use {known!r}",
            param_hint="'--partner'",
        )
