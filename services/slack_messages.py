"""Slack incoming-webhook messages for signal events: `text` (the notification's fallback) plus
Block Kit `blocks`. Pure.

Within Slack's documented limits: a header's plain_text at most 150 characters, a section's
text at most 3,000, a context block at most 10 elements, at most 50 blocks, `text` kept short.
mrkdwn control characters (&, <, >) are escaped in every value we did not write ourselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.signals.evidence import person_words
from schemas.signals.rollups import AccountSummary

HEADER_LIMIT = 150
SECTION_LIMIT = 3000
CONTEXT_ELEMENTS = 10
REASON_LIMIT = 400  # one line of the why
_STAGE_TITLES = {
    "aware": "Aware",
    "engaged": "Engaged",
    "evaluating": "Evaluating",
    "hand_raiser": "Hand raiser",
}


def escape(text: str) -> str:
    """Slack's mrkdwn escaping of its three control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _who(person: Mapping[str, Any]) -> str:
    email, name = person.get("email"), person.get("name")
    if not email:
        return "an anonymous visitor"
    return f"{name} ({email})" if name else str(email)


def slack_message(
    event: Mapping[str, Any],
    *,
    reached_stage: str | None,
    account: AccountSummary | None = None,
    timeline_url: str | None = None,
) -> dict[str, Any]:
    """The message for one stored event (its JSON form); `reached_stage` when the event took
    its account to a stage the endpoint alerts on. With the `account` as it stands, the message
    shows its stage, score, trend and why (each reason naming its event, the person's own words
    quoted), and a link to its timeline (`timeline_url`, the signals key's lookup)."""
    person = event.get("person") or {}
    account_part = event.get("account") or {}
    page = event.get("page") or {}
    properties = event.get("properties") or {}
    who = _who(person)
    company = account_part.get("domain") or account_part.get("name")
    kind = str(event.get("type", "event")).replace("_", " ")
    if reached_stage is not None:
        title = f"{_STAGE_TITLES.get(reached_stage, reached_stage)}: {company or who}"
        notification = f"{title} ({kind})"  # the header names the stage; this adds the event
    else:
        title = notification = f"{kind.capitalize()}: {who}"
    lines = [f"*{escape(kind)}* by {escape(who)}" + (f" at *{escape(company)}*" if company else "")]
    if page.get("path") or page.get("url"):
        lines.append(f"Page: {escape(str(page.get('title') or page.get('path') or page['url']))}")
    words = person_words(properties)
    if words:
        lines.append(f"> {escape(words)}")  # cut (evidence.WORDS_LIMIT), then escaped
    if reached_stage is not None:
        lines.append(f"The account is now *{escape(reached_stage.replace('_', ' '))}*.")
    context = [
        # Cut, then escape: a cut after escaping could split an entity such as `&amp;`.
        {"type": "mrkdwn", "text": f"{name}: {escape(_cut(str(properties[name]), 180))}"}
        for name in ("utm_source", "utm_medium", "utm_campaign")
        if properties.get(name)
    ]
    context.append({"type": "mrkdwn", "text": f"id `{escape(str(event.get('id', '')))}`"})
    blocks: list[dict[str, Any]] = [
        # plain_text shows its text as is: no mrkdwn escaping there.
        {"type": "header", "text": {"type": "plain_text", "text": _cut(title, HEADER_LIMIT)}},
        _section("\n".join(lines)),
    ]
    if account is not None:
        blocks += _account_blocks(account, timeline_url)
    blocks.append({"type": "context", "elements": context[:CONTEXT_ELEMENTS]})
    # `text` is the notification and is read as mrkdwn: escaped like the section.
    return {"text": escape(_cut(notification, 300)), "blocks": blocks}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, SECTION_LIMIT)}}


def _account_blocks(account: AccountSummary, timeline_url: str | None) -> list[dict[str, Any]]:
    """The account's standing, its why and the link to its timeline."""
    standing = (
        f"*{escape(account.domain)}* · stage *{account.stage.replace('_', ' ')}*"
        f" · score *{account.score}*/100 · trend *{account.trend}*"
    )
    why = "\n".join(f"• {escape(_cut(r.reason, REASON_LIMIT))}" for r in account.why)
    blocks = [_section(standing)]
    if why:
        blocks.append(_section(f"*Why*\n{why}"))
    if timeline_url:
        # A link's URL is escaped as mrkdwn text is; the domain is its only part from outside.
        link = f"<{escape(timeline_url)}|Timeline of {escape(account.domain)}> (signals key)"
        blocks.append(_section(link))
    return blocks
