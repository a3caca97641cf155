"""Option checks the CLI's command groups share."""

from __future__ import annotations

import click

from services.keys import PARTNER_NAME

__all__ = ["partner_name"]


def partner_name(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A partner owns its pages by name: an empty or blank one (an unset shell variable) would
    make every such key one partner, and a page written for a name no key carries could never
    be read by a partner, so a name is 1 to 64 letters, digits, `.`, `_` or `-`."""
    if value is not None and not PARTNER_NAME.match(value):
        raise click.BadParameter(
            "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value
