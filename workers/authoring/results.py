"""What the built-in writer's proof sections get: the proof's prose under a heading, its
numbers as stats (four to a row) and its quotes, each attributed.

Which section shows the stats and which the quotes is decided by the plan before any section
is drawn (plan.py); a page whose sections give the proof no home gets one of its own before
the request at the end.
"""

from __future__ import annotations

from dataclasses import replace

from workers.authoring.blocks import Material, ProseMaterial, QuoteMaterial, StatsMaterial
from workers.authoring.desk import Desk, Section

_STATS_PER_ROW = 4


def allot_proof(desk: Desk, section: Section) -> list[Material]:
    """A results, proof or quote heading: the prose and stats it was given, then its quotes."""
    if section.quote_lede:
        lede = desk.line(desk.voice.quote_lede) or desk.company.tagline
        return [ProseMaterial(title=section.title, markdown=lede), *_quotes(section)]
    if not section.takes_results:
        return _quotes(section)
    unsaid = [s for s in desk.plain if not desk.pool.is_used(s)]
    if not (unsaid or section.stats or section.quotes or section.quotes_pending):
        # A results heading over no result would say how results are reported, which is not
        # a result: the heading is left out and the note asks for the proof.
        desk.leave_out(
            section.title,
            "the brief's proof has no result, figure or quote left to show under it",
            "add to `proof` the results to show (figures with their scale, a client's words)",
        )
        return []
    return _results(desk, section) + _quotes(section)


def allot_unplaced_proof(desk: Desk, section: Section) -> list[Material]:
    """The proof no requested section took: its own heading, stats and quotes."""
    said = section.stats or any(not desk.pool.is_used(s) for s in desk.plain)
    if not said:
        return _quotes(section)
    titled = replace(section, title=desk.pick(desk.voice.headings["results"]))
    return _results(desk, titled) + _quotes(section)


def _results(desk: Desk, section: Section) -> list[Material]:
    """A heading with the proof's prose, then its numbers as stats."""
    pool, stats = desk.pool, section.stats
    body = [pool.spend(s) for s in desk.plain if not pool.is_used(s)]
    if not body and section.quotes_pending and not stats:
        body = [desk.line(desk.voice.quote_lede) or desk.company.tagline]
    if not body:
        body = [desk.line(desk.voice.results_lede) or desk.company.tagline]
    rows = range(0, len(stats), _STATS_PER_ROW)
    return [
        ProseMaterial(title=section.title, markdown=" ".join(body)),
        *(StatsMaterial(stats=stats[start : start + _STATS_PER_ROW]) for start in rows),
    ]


def _quotes(section: Section) -> list[Material]:
    return [QuoteMaterial(quote=quote) for quote in section.quotes]
