"""PubSubMailer: production mail as one Pub/Sub message per email to the operators' mailer.

We chose a topic over a vendor API: the operator subscribes whatever transactional sender they
already run (SendGrid, SES, Postmark, their own SMTP relay), and the service holds no mail
credentials. The message is JSON `{to, subject, text}` with attribute `kind=mail`; the log
names neither the recipient nor the subject or text (a sign-in code is in both).
"""

from __future__ import annotations

import json
import logging

from backends.gcp.pubsub import PubSubPublisher

logger = logging.getLogger(__name__)


class PubSubMailer:
    """Mailer that publishes to the mail topic; the subscriber does the sending."""

    def __init__(self, publisher: PubSubPublisher) -> None:
        self._publisher = publisher

    def send(self, *, to: str, subject: str, text: str) -> None:
        body = json.dumps({"to": to, "subject": subject, "text": text}).encode()
        self._publisher.publish(body, kind="mail")
        logger.info("mail published for the mailer")
