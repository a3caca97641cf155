"""The Signal API's rows of the OpenAPI table: stream, roll-ups, ingest and webhooks.

SPEC "Signal API" and DESIGN "Signals", "Ingest", "Deliveries".
"""

from schemas.openapi.operation import (
    DELIVERY_ID,
    DOMAIN,
    EMAIL,
    HOOK_ID,
    IDEMPOTENCY,
    KEYED,
    Operation,
    Reply,
)
from schemas.openapi.placeholders import (
    AccountsQueryDoc,
    CollectBeaconDoc,
    CollectFormDoc,
    IngestBatchDoc,
    LatestQueryDoc,
    SignalsQueryDoc,
)
from schemas.signals.bodies import (
    AccountBody,
    AccountsBody,
    CollectBody,
    EraseBody,
    IngestBody,
    PersonBody,
    StreamBody,
)
from schemas.signals.webhooks import (
    DeliveriesQuery,
    DeliveryBody,
    DeliveryListBody,
    WebhookDeletedBody,
    WebhookInput,
    WebhookListBody,
    WebhookSecretBody,
    WebhookTestBody,
)

__all__ = ["SIGNAL_OPERATIONS", "WEBHOOK_OPERATIONS"]

V1 = "/api/public/v1"
SIGNALS = f"{V1}/signals"
HOOKS = f"{SIGNALS}/webhooks"
FORM = "application/x-www-form-urlencoded"

SIGNAL_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get",
        SIGNALS,
        "listSignals",
        "Signals",
        "Newest-first event stream",
        "signals",
        (Reply(200, "Events and `next_since` for the next poll", StreamBody),),
        description="Poll with `since=<next_since>`: no gap, no duplicate.",
        query=SignalsQueryDoc,
        errors=(400, *KEYED, 503),
    ),
    Operation(
        "get",
        f"{SIGNALS}/latest",
        "latestSignals",
        "Signals",
        "The newest touches now",
        "signals",
        (Reply(200, "The newest events and `next_since` to poll on from them", StreamBody),),
        description="Newest first, no window; `has_more` says older ones match too. Poll on with"
        " `GET /signals?since=<next_since>` and the same filters.",
        query=LatestQueryDoc,
        errors=(400, *KEYED, 503),
    ),
    Operation(
        "get",
        f"{SIGNALS}/accounts",
        "listAccounts",
        "Signals",
        "Accounts by recent activity or score (0-100, with trend and reasons), paged by cursor",
        "signals",
        (Reply(200, "Account summaries", AccountsBody),),
        query=AccountsQueryDoc,
        errors=(400, *KEYED, 403, 503),
    ),
    Operation(
        "get",
        f"{SIGNALS}/accounts/{{domain}}",
        "getAccount",
        "Signals",
        "One account and its timeline",
        "signals",
        (Reply(200, "The account, or `seen: false` when unknown", AccountBody),),
        params=(DOMAIN,),
        errors=(400, *KEYED, 403, 503),
    ),
    Operation(
        "get",
        f"{SIGNALS}/people/{{email}}",
        "getPerson",
        "Signals",
        "One person and their timeline",
        "signals",
        (Reply(200, "The person, or `seen: false` when unknown", PersonBody),),
        params=(EMAIL,),
        errors=(400, *KEYED, 403, 503),
    ),
    Operation(
        "delete",
        f"{SIGNALS}/people/{{email}}",
        "erasePerson",
        "Ingest",
        "Erase a person's events",
        "ingest",
        (
            Reply(
                200,
                "Events and roll-ups of this person removed, the address held in the"
                " suppression list (its later events are refused); the erasure is logged",
                EraseBody,
            ),
        ),
        params=(EMAIL,),
        errors=(400, *KEYED, 503),
    ),
    Operation(
        "post",
        f"{SIGNALS}/events",
        "ingestEvents",
        "Ingest",
        "Send up to 500 events",
        "ingest",
        (Reply(202, "At least one event accepted", IngestBody),),
        description=(
            "Each event's id is `<source>:<row_id>`; a repeat is stored once. The body is read "
            "as JSON whatever its content type."
        ),
        request=IngestBatchDoc,
        request_example={
            "events": [
                {
                    "source": "crm",
                    "row_id": "42",
                    "type": "book_call",
                    "occurred_at": "2026-11-20T10:00:00Z",
                    "person": {"email": "ada@acme.com", "name": "Ada"},
                    "account": {"domain": "acme.com", "name": "Acme"},
                }
            ]
        },
        errors=(400, *KEYED, 408, 413, 422, 503),
    ),
    Operation(
        "post",
        f"{V1}/collect",
        "collect",
        "Ingest",
        "The site's own form posts and beacons",
        "none",
        (
            Reply(202, "Recorded (beacon)", CollectBody),
            Reply(
                303,
                "Form post: back to `/p/{slug}?submitted=1`, or `?error=invalid_email`,"
                " `invalid_name` or `invalid_company` naming the field to fix, or"
                " `?error=rate_limited` (with Retry-After) over the rate limit, or"
                " `?error=unavailable` (with Retry-After) while the ingest queue is down:"
                " nothing was recorded, the visitor is asked to send it again in a minute",
            ),
        ),
        description=(
            "Origin-checked and rate-limited; forms work without JavaScript. A beacon says"
            " what the browser saw: the beacon script (`/beacon.js`) sends `page_view` and"
            " `cta_click` beacons with a visitor id and UTM fields in `properties`, limited per"
            " visitor id (60 a minute) and per address (1,200 a minute); a beacon naming a"
            " person, an account, a time or a form type is refused (422). Only a form post"
            " names a person (a landing page form, or `type=identify` from the script's"
            " `identify()`): 20 a minute per address, whatever the visitor id."
        ),
        request=CollectBeaconDoc,
        other_requests=((FORM, CollectFormDoc),),
        errors=(400, 403, 408, 413, 415, 422, 429, 503),
    ),
)

WEBHOOK_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post",
        HOOKS,
        "createWebhook",
        "Webhooks",
        "Register a webhook endpoint",
        "signals",
        (Reply(201, "The endpoint and its `whsec_` secret, shown this once", WebhookSecretBody),),
        description="Deliveries are signed per Standard Webhooks and retried for about three days."
        " Send an Idempotency-Key to make a retry answer the first endpoint and secret.",
        params=(IDEMPOTENCY,),
        request=WebhookInput,
        request_example={"url": "https://hooks.example.com/kestrel", "types": ["book_call"]},
        errors=(400, *KEYED, 403, 408, 409, 415, 422, 503),
    ),
    Operation(
        "get",
        HOOKS,
        "listWebhooks",
        "Webhooks",
        "List webhook endpoints",
        "signals",
        (Reply(200, "Endpoints, without secrets", WebhookListBody),),
        errors=(400, *KEYED, 403, 503),
    ),
    Operation(
        "delete",
        f"{HOOKS}/{{id}}",
        "deleteWebhook",
        "Webhooks",
        "Remove a webhook endpoint",
        "signals",
        (Reply(200, "Removed", WebhookDeletedBody),),
        params=(HOOK_ID,),
        errors=(*KEYED, 403, 404, 503),
    ),
    Operation(
        "post",
        f"{HOOKS}/{{id}}/rotate",
        "rotateWebhookSecret",
        "Webhooks",
        "Rotate the signing secret",
        "signals",
        (
            Reply(
                200,
                "The new secret, shown this once; the old one overlaps for 24 hours",
                WebhookSecretBody,
            ),
        ),
        description=(
            "Send an Idempotency-Key to retry safely: a repeat answers the first new secret, "
            "the one deliveries are signed with."
        ),
        params=(HOOK_ID, IDEMPOTENCY),
        errors=(400, *KEYED, 403, 404, 409, 422, 503),
    ),
    Operation(
        "post",
        f"{HOOKS}/{{id}}/test",
        "testWebhook",
        "Webhooks",
        "Send a signed test delivery now",
        "signals",
        (Reply(200, "What the receiver answered (its status code only)", WebhookTestBody),),
        description="Type `webhook.test` with a sample event (a Slack endpoint gets a test"
        " message); signed with the endpoint's secrets, not retried, not in the delivery log."
        " 409 `endpoint_disabled` once the receiver answered 410 Gone.",
        params=(HOOK_ID,),
        errors=(400, *KEYED, 404, 409, 503),
    ),
    Operation(
        "get",
        f"{HOOKS}/{{id}}/deliveries",
        "listDeliveries",
        "Webhooks",
        "List an endpoint's deliveries",
        "signals",
        (Reply(200, "Deliveries, newest first", DeliveryListBody),),
        params=(HOOK_ID,),
        query=DeliveriesQuery,
        errors=(400, *KEYED, 403, 404, 503),
    ),
    Operation(
        "post",
        f"{HOOKS}/deliveries/{{delivery_id}}/replay",
        "replayDelivery",
        "Webhooks",
        "Send a delivery again",
        "signals",
        (Reply(202, "Queued for delivery (same `webhook-id`)", DeliveryBody),),
        description="409 `endpoint_disabled` once the receiver answered 410 Gone.",
        params=(DELIVERY_ID,),
        errors=(*KEYED, 403, 404, 409, 503),
    ),
)
