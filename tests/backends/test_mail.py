"""Contract suite for Mailer: the embedded outbox folder and the Pub/Sub mail topic (on the
emulator) both keep each message as `{to, subject, text}` for whoever sends it before `send`
returns, and both refuse with the port's UnavailableError, so a sign-in answers 503 (retry),
never 500."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from backends.embedded.mail import OutboxMailer
from backends.ports import Mailer, UnavailableError
from frontdoor.logs import CloudJsonFormatter

pytestmark = pytest.mark.spec("mcp.oauth.signin")

PROJECT = "demo-frontdoor"


@dataclass
class Side:
    """One adapter under test, what its reader finds, and one that cannot take mail."""

    mailer: Mailer
    kept: Callable[[], list[dict[str, str]]]
    broken: Mailer


@pytest.fixture(params=["outbox", pytest.param("pubsub", marks=pytest.mark.emulator)])
def side(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Side]:
    if request.param == "outbox":
        outbox = tmp_path / "outbox"
        blocked = tmp_path / "not-a-folder"
        blocked.write_text("a file where the outbox should be", encoding="utf-8")
        yield Side(
            mailer=OutboxMailer(outbox),
            kept=lambda: [
                json.loads(path.read_text(encoding="utf-8"))
                for path in sorted(outbox.glob("*.json"))
            ],
            broken=OutboxMailer(blocked / "outbox"),
        )
        return
    request.getfixturevalue("pubsub_emulator")
    from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs

    from backends.gcp.deadline import CallDeadline
    from backends.gcp.mail import PubSubMailer
    from backends.gcp.pubsub import PubSubPublisher

    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    topic = f"mail-{uuid.uuid4().hex[:8]}"
    reader = subscriber.subscription_path(PROJECT, f"{topic}-sender")
    publisher.create_topic(name=publisher.topic_path(PROJECT, topic))
    subscriber.create_subscription(name=reader, topic=publisher.topic_path(PROJECT, topic))

    def kept() -> list[dict[str, str]]:
        answer = subscriber.pull(subscription=reader, max_messages=10, timeout=10)
        return [json.loads(m.message.data) for m in answer.received_messages]

    yield Side(
        mailer=PubSubMailer(PubSubPublisher(project=PROJECT, topic=topic, client=publisher)),
        kept=kept,
        broken=PubSubMailer(  # a topic nobody created: the operator's setup is missing
            PubSubPublisher(
                project=PROJECT,
                topic=f"{topic}-missing",
                client=publisher,
                deadline=CallDeadline(2),
            )
        ),
    )
    subscriber.close()


def test_a_sent_message_is_kept_for_the_sender_as_to_subject_and_text(side: Side) -> None:
    """DESIGN MCP: the sign-in code goes through the mail port before the code form shows."""
    side.mailer.send(to="ana@acme.example", subject="Your sign-in code", text="123456")

    assert side.kept() == [
        {"to": "ana@acme.example", "subject": "Your sign-in code", "text": "123456"}
    ]


def test_the_log_never_holds_a_code_or_its_recipient(
    side: Side, caplog: pytest.LogCaptureFixture
) -> None:
    """README Logs: a sign-in code is in the subject and the text; the log names at most
    where the message went (the outbox file), never the code or the person."""
    caplog.set_level(logging.DEBUG)

    side.mailer.send(
        to="ana@acme.example",
        subject="Your Acme sign-in code: 481516",
        text="Your sign-in code is 481516",
    )

    log = "\n".join(CloudJsonFormatter(None).format(r) for r in caplog.records)
    assert caplog.records
    assert "481516" not in log
    assert "ana@acme.example" not in log


def test_a_message_the_mailer_cannot_take_raises_unavailable(side: Side) -> None:
    with pytest.raises(UnavailableError):
        side.broken.send(to="ana@acme.example", subject="Your sign-in code", text="123456")
