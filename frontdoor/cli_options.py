"""Option checks the CLI's command groups share."""

from __future__ import annotations

import re

import click

from backends.ports import KeyStore
from schemas.signals.events import EVENT_TYPES
from services.keys import PARTNER_NAME, spelled_otherwise

__all__ = ["event_sources", "event_types", "partner_name", "refuse_partner_spelled_otherwise"]

_SOURCE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")  # as an ingested event's `source`


def _listed(values: tuple[str, ...]) -> tuple[str, ...]:
    """Repeated and comma-separated values, in order, once each."""
    names = (name.strip() for value in values for name in value.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def event_types(
    _ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """`--type` of a limited signals key: known event types only."""
    names = _listed(value)
    unknown = [name for name in names if name not in EVENT_TYPES]
    if unknown:
        raise click.BadParameter(
            f"unknown event type {', '.join(unknown)}; one of {', '.join(EVENT_TYPES)}"
        )
    return names


def event_sources(
    _ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """`--source` of a limited signals key: source names as events carry them (`site`, `crm`)."""
    names = _listed(value)
    bad = [name for name in names if not _SOURCE.match(name)]
    if bad:
        raise click.BadParameter(
            f"{', '.join(bad)}: a source is lower-case letters, digits, _ or -"
        )
    return names


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
