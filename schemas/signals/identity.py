"""Anonymous to known, the pure part: which events a visitor id links to a person.

A stored event that carries a visitor id (`properties.visitor_id`, from the beacon) and an
email links that visitor to the person (the first link stands). The visitor's anonymous events
(no person and no account of their own) then count as that person's in roll-ups and timelines;
the stored events are never rewritten (`attributed` makes the copy that is folded). Adapters
keep the links (backends/embedded/signal_identity.py, backends/gcp/signal_identity.py).
"""

from collections.abc import Iterable

from schemas.signals.events import Event, attributed, visitor_of

Link = tuple[str, str | None]  # (email, domain)


def is_anonymous(event: Event) -> bool:
    """Counts for the person its visitor is linked to: it names no person and no account."""
    return event.person.email is None and event.account.domain is None


def new_links(events: Iterable[Event], links: dict[str, Link]) -> dict[str, Link]:
    """The links a batch makes (visitor id and email on one event, visitor not yet linked);
    `links` gains them too."""
    made: dict[str, Link] = {}
    for event in events:
        visitor, email = visitor_of(event), event.person.email
        if visitor and email and visitor not in links:
            links[visitor] = made[visitor] = (email, event.account.domain)
    return made


def as_linked(event: Event, links: dict[str, Link]) -> Event:
    """The event as roll-ups count it: an anonymous event of a linked visitor as its person's."""
    visitor = visitor_of(event)
    if visitor is None or visitor not in links or not is_anonymous(event):
        return event
    email, domain = links[visitor]
    return attributed(event, email=email, domain=domain)
