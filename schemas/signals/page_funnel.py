"""A page's funnel: the per-page, per-day roll-up of its events, and the read over a range.

Pure: `fold_page_events` turns new events into deltas that the store adds inside the
transaction that stores the events (so a repeated delivery, which is not new, adds nothing);
`read_funnel` turns the rows of a range back into figures. Storage lives in backends/.

An event joins a page by its path, `/p/{slug}`. Each is counted under four dimensions: `all`,
its `source` (utm_source), its `campaign` (utm_campaign) and its `variant` (`control` when it
names none); events without a campaign field count under `(none)`.

Unique visitors without a scan: for each (page, visitor, dimension value) a marker keeps the
days the visitor was seen (the visitor id hashed). Each new visitor-day is tallied on its day
under its gap, the days since the visitor's previous day (0 for never, or for LOOK_BACK_DAYS or
more: a range is at most that long, so such a visitor is new to any range holding the day).
The visitors of a day are the sum of its tallies; the distinct visitors of a range [first,
last] are the visitor-days in the range whose gap reaches before `first` (gap 0, or more than
day - first), each visitor counted once, on the first day the range saw them. A day's gaps are
kept as cumulative counts, `returning[g - 1]` the visitor-days back after at most g days, so a
read takes one number per stored (day, value), however many events, visitors and gaps are
behind it. An event that arrives after a later day of the same visitor is inserted between the
two (the later day's tally moves from the old gap to the new one), so the figures do not depend
on arrival order.
"""

import bisect
import hashlib
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from schemas.signals.events import PAGE_EVENT_TYPES, NewEvent, variant_of, visitor_of

Dimension = str  # "all", "source", "campaign", "variant"
DIMENSIONS: tuple[Dimension, ...] = ("all", "source", "campaign", "variant")
NO_VALUE = "(none)"
NEVER = -1  # the previous day of a visitor's first day
# The longest range a read may ask (services/page_stats.py); a gap this long or longer counts
# as a first visit, as it does in every such range.
LOOK_BACK_DAYS = 366
_PAGE_PATH = re.compile(r"^/p/([a-z0-9]+(?:-[a-z0-9]+)*)/?$")
_EPOCH = date(1970, 1, 1)
_VALUE_LIMIT = 200  # characters of a source or campaign kept, as the beacon sends them

TallyKey = tuple[str, int, str, str]  # slug, day, dimension, value
VisitKey = tuple[str, int, str, str, int]  # slug, day, dimension, value, gap (0: first visit)
MarkerKey = tuple[str, str]  # slug, hashed visitor id
# A marker's days per "dimension\x1fvalue", ascending.
Marker = dict[str, list[int]]


@dataclass
class Tally:
    """Events of one page, day and dimension value."""

    views: int = 0
    clicks: int = 0
    leads: int = 0


@dataclass
class PageFold:
    """What a batch adds: tallies to add, visit tallies by gap to add (negative when a late
    event moves a later day's gap) and each touched marker's new days."""

    tallies: dict[TallyKey, Tally] = field(default_factory=dict)
    visits: dict[VisitKey, int] = field(default_factory=dict)
    markers: dict[MarkerKey, Marker] = field(default_factory=dict)


def page_of(event: NewEvent) -> str | None:
    """The slug of the /p/ page a page event happened on, if any."""
    path = event.page.path
    if event.type not in PAGE_EVENT_TYPES or path is None:
        return None
    found = _PAGE_PATH.match(path)
    return found.group(1) if found else None


def day_number(day: date) -> int:
    """Days since 1970-01-01 (how days are kept)."""
    return (day - _EPOCH).days


def day_of_number(number: int) -> date:
    return date.fromordinal(_EPOCH.toordinal() + number)


def visitor_key(visitor: str) -> str:
    """A visitor id as the funnel keeps it: hashed, so the roll-up holds no id a browser sent."""
    return hashlib.sha256(visitor.encode()).hexdigest()[:24]


def values_of(event: NewEvent) -> list[tuple[Dimension, str]]:
    """The dimension values an event counts under."""

    def text(name: str) -> str:
        value = event.properties.get(name)
        return str(value)[:_VALUE_LIMIT] if value not in (None, "") else NO_VALUE

    return [
        ("all", ""),
        ("source", text("utm_source")),
        ("campaign", text("utm_campaign")),
        ("variant", variant_of(event)),
    ]


def marker_keys(events: Iterable[NewEvent]) -> set[MarkerKey]:
    """The markers a batch needs read before it is folded."""
    keys = set()
    for event in events:
        slug, visitor = page_of(event), visitor_of(event)
        if slug is not None and visitor is not None:
            keys.add((slug, visitor_key(visitor)))
    return keys


def fold_page_events(events: Sequence[NewEvent], markers: dict[MarkerKey, Marker]) -> PageFold:
    """The deltas of new events, given the stored markers of `marker_keys(events)` (absent:
    never seen). `markers` is not changed; the fold's own hold the new days."""
    fold = PageFold()
    for event in events:
        slug = page_of(event)
        if slug is None:
            continue
        day = day_number(event.occurred_at.date())
        values = values_of(event)
        for dimension, value in values:
            tally = fold.tallies.setdefault((slug, day, dimension, value), Tally())
            if event.type == "page_view":
                tally.views += 1
            elif event.type == "cta_click":
                tally.clicks += 1
            else:
                tally.leads += 1
        visitor = visitor_of(event)
        if visitor is None:
            continue
        key = (slug, visitor_key(visitor))
        if key not in fold.markers:
            fold.markers[key] = {k: list(v) for k, v in markers.get(key, {}).items()}
        marker = fold.markers[key]
        for dimension, value in values:
            days = marker.setdefault(f"{dimension}\x1f{value}", [])
            _add_visit(fold.visits, days, (slug, dimension, value), day)
    return fold


def _add_visit(
    visits: dict[VisitKey, int], days: list[int], where: tuple[str, str, str], day: int
) -> None:
    at = bisect.bisect_left(days, day)
    if at < len(days) and days[at] == day:
        return  # seen that day already
    slug, dimension, value = where
    before = days[at - 1] if at else NEVER
    _add(visits, (slug, day, dimension, value, gap_between(before, day)), 1)
    if at < len(days):  # a later day was seen first: it now follows this one
        later = days[at]
        _add(visits, (slug, later, dimension, value, gap_between(before, later)), -1)
        _add(visits, (slug, later, dimension, value, gap_between(day, later)), 1)
    days.insert(at, day)


def gap_between(before: int, day: int) -> int:
    """The gap a visitor-day is tallied under: the days since `before` (0 for NEVER, or for
    LOOK_BACK_DAYS or more)."""
    if before == NEVER or day - before >= LOOK_BACK_DAYS:
        return 0
    return day - before


def add_gaps(returning: Sequence[int], deltas: dict[int, int]) -> list[int]:
    """A day's cumulative returning counts (`returning[g - 1]`: back after at most g days)
    with `deltas` (gap: n; gap 0, a first visit, is not among them) added, trailing entries
    that add nothing dropped."""
    counts = [b - a for a, b in zip([0, *returning], returning, strict=False)]
    for gap, n in deltas.items():
        if gap:
            counts += [0] * (gap - len(counts))
            counts[gap - 1] += n
    while counts and not counts[-1]:
        counts.pop()
    return list(itertools.accumulate(counts))


def returning_within(returning: Sequence[int], days: int) -> int:
    """Of a day's visitor-days, those back after at most `days` days."""
    if days <= 0 or not returning:
        return 0
    return returning[min(days, len(returning)) - 1]


def _add(visits: dict[VisitKey, int], key: VisitKey, n: int) -> None:
    visits[key] = visits.get(key, 0) + n


# --- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FunnelRows:
    """A page's stored rows for a range of days and the dimensions asked.

    `tallies`: (day, dimension, value, views, clicks, leads); `visits`: (day, dimension,
    value, visitors, new): a day's visitors, and of them those new to the range (not seen on
    an earlier day of it), the range whose first day the read was given.
    """

    tallies: list[tuple[int, str, str, int, int, int]]
    visits: list[tuple[int, str, str, int, int]]


@dataclass
class Figures:
    """One row of the answer, before rates."""

    views: int = 0
    visitors: int = 0
    clicks: int = 0
    leads: int = 0


def read_funnel(
    rows: FunnelRows, *, first: int, last: int, by: str | None
) -> tuple[Figures, list[tuple[str, Figures]]]:
    """The totals of days first..last and, by a dimension or by day, each row's figures
    (every day of the range for `day`, values by views then name otherwise)."""
    totals = Figures()
    per_day = {d: Figures() for d in range(first, last + 1)} if by == "day" else {}
    per_value: dict[str, Figures] = {}
    for day, dimension, value, views, clicks, leads in rows.tallies:
        if not first <= day <= last:
            continue
        targets = []
        if dimension == "all":
            targets.append(totals)
            if by == "day":
                targets.append(per_day[day])
        elif dimension == by:
            targets.append(per_value.setdefault(value, Figures()))
        for figures in targets:
            figures.views += views
            figures.clicks += clicks
            figures.leads += leads
    for day, dimension, value, visitors, new in rows.visits:
        if not first <= day <= last:
            continue
        if dimension == "all":
            totals.visitors += new
            if by == "day":
                per_day[day].visitors += visitors
        elif dimension == by:
            per_value.setdefault(value, Figures()).visitors += new
    if by == "day":
        return totals, [(day_of_number(d).isoformat(), f) for d, f in per_day.items()]
    ordered = sorted(per_value.items(), key=lambda item: (-item[1].views, item[0]))
    return totals, ordered
