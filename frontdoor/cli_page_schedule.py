"""`frontdoor pages schedule SLUG --at TIME [--until TIME]`: a page's publish_at and
unpublish_at from the operator's terminal.

The same use case as PATCH with those fields (services/page_schedule.py): the times are checked
as the Content API checks them, the tasks are queued on the configured task queue (embedded:
the queue file in DATA_DIR, which the running service's workers take; gcp: Cloud Tasks), and the
page keeps its owner. `--cancel` clears both times.
"""

from __future__ import annotations

from datetime import datetime

import click

from api.app import page_unit
from frontdoor.cli_page_admin import OPERATOR, write_page
from frontdoor.cli_pages import backends_for
from frontdoor.settings import Settings
from services.page_writes import schedule_page

__all__ = ["schedule"]


def _rfc3339(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """Checked here only for a clear usage error; the service judges the time itself."""
    if value is None:
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter("an RFC 3339 time such as 2026-12-01T09:00:00+01:00") from None
    if at.tzinfo is None:
        raise click.BadParameter("give the offset too (Z or +01:00)")
    return value


@click.command("schedule")
@click.argument("slug")
@click.option("--at", "publish_at", callback=_rfc3339, help="publish_at: when it goes live")
@click.option("--until", "unpublish_at", callback=_rfc3339, help="unpublish_at: when it comes down")
@click.option("--cancel", is_flag=True, help="Clear both times: nothing happens by itself")
@click.pass_context
def schedule(
    ctx: click.Context,
    slug: str,
    publish_at: str | None,
    unpublish_at: str | None,
    cancel: bool,
) -> None:
    """Publish SLUG at --at and/or take it down at --until (RFC 3339 times with an offset).

    A live page takes only --until (unpublish it first to schedule it again). The service
    must be running at that time: its task workers carry the schedule out.
    """
    if cancel == bool(publish_at or unpublish_at):
        raise click.UsageError("give --at and/or --until, or --cancel alone")
    times = (
        {"publish_at": None, "unpublish_at": None}
        if cancel
        else {
            name: value
            for name, value in (("publish_at", publish_at), ("unpublish_at", unpublish_at))
            if value is not None
        }
    )
    backends = backends_for(ctx, Settings(), workers=False)
    write_page(
        ctx,
        backends,
        slug,
        lambda: schedule_page(page_unit(backends), slug=slug, times=times, editor=OPERATOR),
        done="schedule cancelled for" if cancel else "scheduled",
    )
