"""DESIGN "Operator CLI": `frontdoor seed-demo` and `frontdoor signals tail`, same backends."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from backends.ports import StreamQuery
from frontdoor.cli import cli
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from schemas.signals.events import EVENT_TYPES, Event
from schemas.signals.rollups import STAGES


def frontdoor(data_dir: Path, *args: str) -> Result:
    """Run `frontdoor ARGS` on embedded backends in `data_dir`."""
    return CliRunner().invoke(cli, list(args), obj={}, env={"DATA_DIR": str(data_dir)})


def stored_events(data_dir: Path) -> list[Event]:
    """Every event in the store, newest first, read straight from the port."""
    backends = build_backends(Settings(data_dir=data_dir))
    try:
        return backends.signals.read_stream(StreamQuery(limit=1000)).events
    finally:
        backends.close()


def tail_lines(result: Result) -> list[str]:
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def next_since(result: Result) -> str:
    return result.stderr.strip().rsplit("next_since: ", 1)[1]


@pytest.mark.spec("signals.ingest")
def test_seed_demo_stores_every_type_accounts_at_every_stage_and_free_mail_people(
    data_dir: Path,
) -> None:
    """DESIGN Signals: stages aware..hand_raiser are reached; free-mail makes no account."""
    result = frontdoor(data_dir, "seed-demo")

    assert result.exit_code == 0, result.output
    assert "stored 200 new of 200 demo events" in result.stdout
    events = stored_events(data_dir)
    assert len(events) == 200
    assert {event.type for event in events} == set(EVENT_TYPES)
    assert {event.id for event in events} == {f"demo:demo-{i:05d}" for i in range(200)}
    stages = {line.split("│")[2].strip() for line in result.stdout.splitlines() if "│" in line}
    assert stages == set(STAGES)
    free_mail = {e.person.email for e in events if e.person.email and not e.account.domain}
    assert free_mail == {"hana.demo@gmail.com", "ivo.demo@outlook.com"}
    assert "hana.demo@gmail.com: engaged, no account" in result.stdout


@pytest.mark.spec("signals.ingest")
def test_seed_demo_run_twice_stores_nothing_new(data_dir: Path) -> None:
    """SPEC Events: ids are stable and serve as idempotency keys."""
    frontdoor(data_dir, "seed-demo", "--events", "40")

    result = frontdoor(data_dir, "seed-demo", "--events", "40")

    assert result.exit_code == 0, result.output
    assert "stored 0 new of 40 demo events" in result.stdout
    assert len(stored_events(data_dir)) == 40


def test_seed_demo_shows_its_progress_batch_by_batch_on_stderr(data_dir: Path) -> None:
    """DESIGN Operator CLI: long work shows progress (on Firestore each event is a
    transaction: thousands take minutes); the outcome stays on stdout."""
    result = frontdoor(data_dir, "seed-demo", "--events", "1200")

    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "  > 500/1200 events",
        "  > 1000/1200 events",
        "  > 1200/1200 events",
    ]
    assert "stored 1200 new of 1200 demo events" in result.stdout
    assert "events" not in result.stdout.split("stored", 1)[0]


@pytest.mark.spec("signals.stream")
def test_tail_prints_every_event_once_oldest_first_across_stream_pages(data_dir: Path) -> None:
    """SPEC Events: a poller walking next_since sees each event once; tail prints oldest first."""
    frontdoor(data_dir, "seed-demo", "--events", "30")

    lines = tail_lines(frontdoor(data_dir, "signals", "tail", "--no-follow", "--limit", "7"))

    oldest_first = sorted(stored_events(data_dir), key=lambda e: (e.recorded_at, e.id))
    assert [line.split()[:3] for line in lines] == [
        [e.occurred_at.strftime("%Y-%m-%d"), e.occurred_at.strftime("%H:%M:%S"), e.type]
        for e in oldest_first
    ]


@pytest.mark.spec("signals.stream")
def test_tail_since_its_last_next_since_prints_only_events_stored_after_it(
    data_dir: Path,
) -> None:
    """SPEC Events: clients poll with the returned next_since as the next since."""
    frontdoor(data_dir, "seed-demo", "--events", "20")
    first = frontdoor(data_dir, "signals", "tail", "--no-follow")
    frontdoor(data_dir, "seed-demo", "--events", "25")

    later = frontdoor(data_dir, "signals", "tail", "--no-follow", "--since", next_since(first))

    assert len(tail_lines(first)) == 20
    assert len(tail_lines(later)) == 5
    assert next_since(later) != next_since(first)


@pytest.mark.spec("signals.stream")
def test_tail_filters_by_type_and_domain_and_shows_person_account_and_page(
    data_dir: Path,
) -> None:
    """GET /signals `type` and `domain`: only that account's events of those types."""
    frontdoor(data_dir, "seed-demo", "--events", "60")

    lines = tail_lines(
        frontdoor(
            data_dir,
            "signals",
            "tail",
            "--no-follow",
            "--type",
            "book_call,lead_form",
            "--domain",
            "northwind.example",
        )
    )

    assert lines
    assert {tuple(line.split()[2:]) for line in lines} == {
        ("book_call", "ada.park@northwind.example", "northwind.example", "/book"),
        ("lead_form", "ben.ortiz@northwind.example", "northwind.example", "/p/revops-audit"),
    }


@pytest.mark.spec("signals.errors")
def test_tail_refuses_a_bad_option_naming_it_as_the_api_would(data_dir: Path) -> None:
    """SPEC Errors: a malformed query parameter is refused, naming the parameter."""
    result = frontdoor(data_dir, "signals", "tail", "--no-follow", "--type", "page_visit")

    assert result.exit_code == 2
    assert "--type: invalid_format" in result.stderr
    assert result.stdout == ""


def test_tail_help_says_it_follows_by_default_and_how_days_meets_since(data_dir: Path) -> None:
    """The help is what an operator reads: following is the default, and `--days` with an
    older `--since` narrows it (as the API's `days` does), not only "without --since"."""
    result = frontdoor(data_dir, "signals", "tail", "--help")

    assert result.exit_code == 0
    assert "[default: follow]" in result.stdout
    assert "narrows an older --since" in " ".join(result.stdout.split())
