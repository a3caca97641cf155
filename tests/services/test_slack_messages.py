"""services/slack_messages.py: the Slack message of one event reads as a sales channel wants it
(signals-api.md "Slack alerts")."""

from __future__ import annotations

from typing import Any

from services.slack_messages import slack_message


def event(**parts: Any) -> dict[str, Any]:
    return {
        "id": "crm:42",
        "type": "book_call",
        "source": "crm",
        "person": {"email": "ada@acme.com", "name": "Ada"},
        "account": {"domain": "acme.com", "name": "Acme"},
        "page": {},
        "properties": {},
        **parts,
    }


def test_an_event_message_names_its_type_once_in_the_notification_text() -> None:
    """Slack alerts: `text` is the notification; it repeats nothing."""
    message = slack_message(event(type="lead_form"), reached_stage=None)

    assert message["text"] == "Lead form: Ada (ada@acme.com)"
    assert message["blocks"][0]["text"]["text"] == "Lead form: Ada (ada@acme.com)"


def test_a_stage_alert_names_the_event_that_reached_the_stage() -> None:
    """Slack alerts: the message as the reference shows it."""
    message = slack_message(event(), reached_stage="hand_raiser")

    assert message == {
        "text": "Hand raiser: acme.com (book call)",
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": "Hand raiser: acme.com"}},
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": "*book call* by Ada (ada@acme.com) at *acme.com*\n"
                    "The account is now *hand raiser*.",
                },
            },
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "id `crm:42`"}]},
        ],
    }


def test_a_person_without_a_name_is_named_by_the_address_alone() -> None:
    """Slack alerts: no empty parentheses, no "None"."""
    unnamed = event(person={"email": "bo@acme.com", "name": None})

    message = slack_message(unnamed, reached_stage=None)

    assert message["text"] == "Book call: bo@acme.com"
    assert message["blocks"][1]["text"]["text"].startswith("*book call* by bo@acme.com at")


def test_a_long_campaign_is_cut_before_escaping_so_no_entity_is_broken() -> None:
    """Slack alerts: values are escaped (&, <, >) and a cut never splits `&amp;`."""
    campaign = "q" * 197 + "&&&&"
    message = slack_message(event(properties={"utm_campaign": campaign}), reached_stage=None)

    (shown,) = [e["text"] for e in message["blocks"][2]["elements"] if "utm" in e["text"]]
    assert shown.endswith("…")
    assert "&amp" not in shown.replace("&amp;", "")
    assert shown.count("&") == shown.count("&amp;")


def test_a_name_is_escaped_where_slack_reads_mrkdwn_and_shown_as_is_in_the_header() -> None:
    """Slack alerts: `text` and the section are mrkdwn (a typed `<!channel>` must not ping the
    channel); the header is plain_text."""
    person = {"email": "bo@acme.com", "name": "<!channel> & Bo"}

    message = slack_message(event(type="lead_form", person=person), reached_stage=None)

    assert message["text"] == "Lead form: &lt;!channel&gt; &amp; Bo (bo@acme.com)"
    assert message["blocks"][0]["text"]["text"] == "Lead form: <!channel> & Bo (bo@acme.com)"
    assert "&lt;!channel&gt; &amp; Bo" in message["blocks"][1]["text"]["text"]
