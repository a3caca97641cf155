"""Scheduled publishing: the durable task that carries out a page's `publish_at` or
`unpublish_at`, and what that task does when it comes due.

A write that sets a time queues one HTTP task on the TaskQueue (the durable queue table when
embedded, Cloud Tasks on Google Cloud) for that time, before the write is saved: a task whose
write then failed finds nothing to do. The task is named for the page, the action and the
time, so a retried write queues it once, and calls POST /internal/pages/{slug}/schedule (the
internal token, as delivery attempts do) with the action and the time. There the page must
still want it: the same time in its input and the status it leaves (`scheduled` to publish,
`published` to unpublish). A task for a time since changed or cleared, one run twice, or one
run late for a page already published by hand changes nothing: rescheduling needs no task
deleted (the Cloud Tasks emulator cannot), the old one comes due and is skipped. A due publish
is the publish of PATCH `is_published: true`: the quality gate, a new version in the history
(source `schedule`), the change listeners and the CDN purge.

The schedule's rules on the page itself are schemas/content/schedule.py. A variant's start or
any other timed change can reuse `queue_at` with an action of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from backends.ports import DeliveryOptions, StoredPage, TaskQueue
from schemas.content.changes import merge_patch, unpublished
from schemas.content.pages import SitePageInput
from schemas.content.schedule import (
    SCHEDULE_FIELDS,
    ScheduleAction,
    schedule_issues,
    schedule_time,
    settled,
)
from services.deliveries import internal_task
from services.page_unit import Pages, revised
from services.pages import Editor, GateRefusedError, change_page

__all__ = [
    "SCHEDULE_PATH",
    "EarlyError",
    "Outcome",
    "ScheduledTask",
    "plan_schedule",
    "queue_at",
    "run_scheduled",
]

logger = logging.getLogger(__name__)

SCHEDULE_PATH = "/internal/pages/{slug}/schedule"
SCHEDULER_KEY_ID = "schedule"  # the key id a version written by the schedule carries
Outcome = Literal["published", "unpublished", "skipped", "refused"]


class EarlyError(Exception):
    """The task came before its time (a clock ahead of ours): the queue runs it again."""


@dataclass(frozen=True)
class ScheduledTask:
    """One page's action at one time."""

    slug: str
    action: ScheduleAction
    at: datetime


def plan_schedule(
    pages: Pages, *, sent: Mapping[str, Any], page: SitePageInput, current: StoredPage | None
) -> None:
    """Check the schedule a write sets and queue its tasks, before the write is saved.

    `sent` is the body (POST) or the merge patch (PATCH); `page` the gated page it makes.
    Raises: GateRefusedError with the schedule's issues (nothing queued); UnavailableError
    (the write answers 503 and nothing is saved).
    """
    issues = schedule_issues(sent=sent, page=page, current=current, now=pages.clock())
    if issues:
        raise GateRefusedError(issues)
    for action, field in SCHEDULE_FIELDS.items():
        at: datetime | None = getattr(page, field)
        if at is not None and sent.get(field) is not None:
            queue_at(ScheduledTask(page.slug, action, at), tasks=pages.tasks, options=pages.options)


def queue_at(task: ScheduledTask, *, tasks: TaskQueue, options: DeliveryOptions) -> bool:
    """One task for `task.at`; False if one of this page, action and time was queued before."""
    millis = round(task.at.timestamp() * 1000)
    return tasks.enqueue(
        internal_task(
            options,
            name=f"page-{task.action}-{task.slug}-{millis}",
            path=SCHEDULE_PATH.format(slug=task.slug),
            body={"action": task.action, "at": task.at.isoformat()},
            at=task.at,
        )
    )


def run_scheduled(pages: Pages, *, slug: str, action: ScheduleAction, at: datetime) -> Outcome:
    """Publish or unpublish the page if it still wants it at `at`; what came of it.

    A page that no longer passes the gate is left as it is (`refused`, logged for operators).
    Raises: EarlyError before `at`; UnavailableError, BusyError (the task is run again).
    """
    now = pages.clock()
    if now < at:
        raise EarlyError(slug)
    current = pages.store.get_page(slug)
    if current is None or not _wants(current, action, at):
        return "skipped"
    scheduler = Editor(partner=current.owner, key_id=SCHEDULER_KEY_ID, admin=True)
    outcome: list[Outcome] = ["skipped"]

    def change(page: StoredPage) -> StoredPage | None:
        if not _wants(page, action, at):  # changed since it was read: the newer write stands
            return None
        outcome[0] = "published" if action == "publish" else "unpublished"
        if action == "unpublish":
            return settled(unpublished(page, now=now))
        merged = merge_patch(page.page_input, {"is_published": True, "publish_at": None})
        live = revised(pages, page, merged)
        return settled(live) if live is not None else None

    try:
        change_page(
            pages=pages.store,
            slug=slug,
            change=change,
            editor=scheduler,
            changed=pages.changed,
            source="schedule",
        )
    except GateRefusedError as err:
        logger.error(
            "page %s not published at its publish_at: it fails today's quality gate",
            slug,
            extra={
                "slug": slug,
                "event": "scheduled_publish_refused",
                "codes": [issue.code for issue in err.issues],
            },
        )
        return "refused"
    return outcome[0]


def _wants(page: StoredPage, action: ScheduleAction, at: datetime) -> bool:
    status = "scheduled" if action == "publish" else "published"
    return page.status == status and schedule_time(page.page_input, SCHEDULE_FIELDS[action]) == at
