"""The Content API's rows of the OpenAPI table: SPEC "Content API", DESIGN "Pages", "Generation"."""

from schemas.content.brand_rules import BrandRulesBody
from schemas.content.jobs import GeneratedPage, GenerationBrief, JobAccepted, JobBody
from schemas.content.page_stats import PageStatsBody
from schemas.content.pages import (
    PageBody,
    PageListBody,
    SitePageInput,
    VersionBody,
    VersionListBody,
)
from schemas.content.variants import (
    AllocationBody,
    AllocationInput,
    VariantBody,
    VariantInput,
    VariantListBody,
    VariantPatch,
)
from schemas.openapi.operation import (
    ETAG,
    IDEMPOTENCY,
    IF_MATCH,
    IF_NONE_MATCH,
    JOB_ID,
    KEYED,
    NOT_MODIFIED,
    PREFER,
    SLUG,
    Operation,
    Param,
    Reply,
)
from schemas.openapi.placeholders import (
    PageListQueryDoc,
    PagePatchDoc,
    PageStatsQueryDoc,
    VersionListQueryDoc,
)

__all__ = ["CONTENT_OPERATIONS"]

PAGES = "/api/public/content/pages"
VERSION = Param(
    "n", "path", "A version number from the page's history", {"type": "integer"}, example="1"
)
CREATE_IF_MATCH = Param(
    "If-Match", "header", "Replace only this version (the ETag you read); 412 when it changed"
)
CREATE_IF_NONE_MATCH = Param(
    "If-None-Match", "header", "`*`: create only, never replace; 412 when the slug has a page"
)
OWN = " Pages are each partner's own: another partner's page answers 404, as an unknown slug does."

PAGE_EXAMPLE = {
    "slug": "pipeline-audit",
    "title": "A pipeline audit in two weeks",
    "description": "Where your pipeline leaks, written up by a senior strategist.",
    "blocks": [
        {
            "type": "hero",
            "title": "Find where your pipeline leaks",
            "sub": "For heads of growth at Series A to C B2B SaaS companies.",
            "ctaLabel": "Book a call",
            "ctaHref": "/book",
        },
        {"type": "faq", "items": [{"q": "How long does it take?", "a": "Two weeks."}]},
        {"type": "cta", "title": "Start with one call", "ctaLabel": "Book", "ctaHref": "/book"},
    ],
}
VARIANT_ID = Param(
    "variant_id", "path", "The variant's id (never `control`: that is the page)", example="b"
)
VARIANT_IF_MATCH = Param(
    "If-Match", "header", "The variant's (or allocation's) ETag you read; 412 when it changed"
)
VARIANTS_NOTE = (
    " A page carries at most 4 variants besides its control (the page itself); each is a whole"
    " page content that passes the page's quality gate on its own. Visitors see a variant only"
    " while the page is published and its allocation gives the variant a share." + OWN
)
BRIEF_EXAMPLE = {
    "slug": "revops-audit",
    "topic": "A two-week audit of the revenue funnel",
    "icp": "revops leads at Series B SaaS companies",
    "goal": "Book a scoping call",
    "publish": False,
}

CONTENT_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post",
        PAGES,
        "createPage",
        "Content",
        "Create or replace a page by slug",
        "content",
        (
            Reply(
                201,
                "Stored; published unless `is_published` is false or `publish_at` is set",
                PageBody,
                headers=ETAG,
            ),
        ),
        description="Passes the schema and the brand gate, then publishes at /p/{slug}. A slug"
        " another partner's page has answers 409 `slug_taken` and changes nothing. The gate's"
        " errors refuse the write (422); its warnings never do and come back as `warnings[]`."
        " With `publish_at` the page is `scheduled` and goes live by itself at that time"
        " (through the gate again); with `unpublish_at` it comes down by itself; a time in the"
        " past, without an offset, or an `unpublish_at` not after `publish_at` is 422 naming"
        " the field.",
        request=SitePageInput,
        request_example=PAGE_EXAMPLE,
        params=(IDEMPOTENCY, CREATE_IF_MATCH, CREATE_IF_NONE_MATCH),
        errors=(400, *KEYED, 408, 409, 412, 413, 415, 422, 503),
    ),
    Operation(
        "get",
        PAGES,
        "listPages",
        "Content",
        "List pages, newest first",
        "content",
        (Reply(200, "A page of records and the next cursor", PageListBody),),
        description="Your own pages only (a `content_admin` key: every partner's).",
        query=PageListQueryDoc,
        errors=(400, *KEYED, 503),
    ),
    Operation(
        "post",
        f"{PAGES}/generate",
        "generatePage",
        "Content",
        "Write a page from a brief",
        "content",
        (
            Reply(201, "Authored, gated and stored", GeneratedPage, headers=ETAG),
            Reply(
                202,
                "Still running (or `Prefer: respond-async`): poll Location",
                JobAccepted,
                headers=("Location",),
            ),
        ),
        description="The writer retries once with the gate's errors; a second failure is 422."
        " The gate's warnings never block and are never sent back to the writer; they come back"
        " as `warnings[]` with the page and on the job. A brief for a slug another partner's"
        " page has answers 409 `slug_taken` at once. `variants` (2 to 4 versions in all) also"
        " writes variants `b`, `c`, `d` of the page from other angles, each through the gate;"
        " `job.variants` lists each one and how it ended.",
        request=GenerationBrief,
        request_example=BRIEF_EXAMPLE,
        params=(IDEMPOTENCY, PREFER),
        errors=(400, *KEYED, 408, 409, 413, 415, 422, 502, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}",
        "getPage",
        "Content",
        "Read one page record",
        "content",
        (Reply(200, "The stored record", PageBody, headers=ETAG), NOT_MODIFIED),
        description=OWN.strip(),
        params=(SLUG, IF_NONE_MATCH),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "patch",
        f"{PAGES}/{{slug}}",
        "updatePage",
        "Content",
        "Edit a page (JSON merge patch)",
        "content",
        (Reply(200, "Updated", PageBody, headers=ETAG),),
        description="RFC 7396 merge over the stored input; the merged page must pass the gate."
        " `publish_at` / `unpublish_at` set, move (the earlier time is dropped) or, with null,"
        " cancel the page's schedule.",
        request=PagePatchDoc,
        request_media=("application/merge-patch+json", "application/json"),
        params=(SLUG, IF_MATCH),
        errors=(400, *KEYED, 404, 408, 409, 412, 413, 415, 422, 503),
    ),
    Operation(
        "delete",
        f"{PAGES}/{{slug}}",
        "unpublishPage",
        "Content",
        "Unpublish a page (soft delete)",
        "content",
        (Reply(200, "Unpublished; the record stays readable", PageBody, headers=ETAG),),
        params=(SLUG, IF_MATCH),
        errors=(400, *KEYED, 404, 409, 412, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}/versions",
        "listPageVersions",
        "Content",
        "List a page's versions, newest first",
        "content",
        (Reply(200, "Versions with who wrote each and how, and the next cursor", VersionListBody),),
        description="Every write is a version: create, PATCH, unpublish, publish, generate and"
        " restore, each with the partner, key id, time, source and status." + OWN,
        query=VersionListQueryDoc,
        params=(SLUG,),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}/versions/{{n}}",
        "getPageVersion",
        "Content",
        "Read one version of a page",
        "content",
        (Reply(200, "The version as it was saved", VersionBody),),
        params=(SLUG, VERSION),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "post",
        f"{PAGES}/{{slug}}/versions/{{n}}/restore",
        "restorePageVersion",
        "Content",
        "Make an old version the current one again",
        "content",
        (Reply(200, "Restored as a new version", PageBody, headers=ETAG),),
        description="No body. The old version passes today's quality gate first: if it fails,"
        " 422 with its issues and nothing changes.",
        params=(SLUG, VERSION, IF_MATCH, IDEMPOTENCY),
        errors=(400, *KEYED, 404, 409, 412, 422, 503),
    ),
    Operation(
        "post",
        f"{PAGES}/{{slug}}/variants",
        "createPageVariant",
        "Content",
        "Add a variant to a page",
        "content",
        (Reply(201, "Created, with the gate's warnings", VariantBody, headers=ETAG),),
        description="Without `id` the first free of b, c, d, ... is taken; an id the page has"
        " answers 409 `variant_exists`, a fifth variant 422 `too_many_variants`." + VARIANTS_NOTE,
        request=VariantInput,
        request_example={"id": "b", "page": {k: v for k, v in PAGE_EXAMPLE.items() if k != "slug"}},
        params=(SLUG, IDEMPOTENCY),
        errors=(400, *KEYED, 404, 408, 409, 413, 415, 422, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}/variants",
        "listPageVariants",
        "Content",
        "List a page's variants",
        "content",
        (Reply(200, "Every variant of the page, by id", VariantListBody),),
        description=VARIANTS_NOTE.strip(),
        params=(SLUG,),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}/variants/{{variant_id}}",
        "getPageVariant",
        "Content",
        "Read one variant",
        "content",
        (Reply(200, "The stored variant", VariantBody, headers=ETAG), NOT_MODIFIED),
        params=(SLUG, VARIANT_ID, IF_NONE_MATCH),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "patch",
        f"{PAGES}/{{slug}}/variants/{{variant_id}}",
        "updatePageVariant",
        "Content",
        "Edit a variant (JSON merge patch)",
        "content",
        (
            Reply(
                200,
                "Updated (a patch that changes nothing writes no version)",
                VariantBody,
                headers=ETAG,
            ),
        ),
        description="RFC 7396 merge of `page` over the variant's stored content; the merged"
        " content must pass the gate. `start_at` sets the variant's start, null clears it;"
        " left out, it stays. `id` may be sent but never changes.",
        request=VariantPatch,
        request_media=("application/merge-patch+json", "application/json"),
        params=(SLUG, VARIANT_ID, VARIANT_IF_MATCH, IDEMPOTENCY),
        errors=(400, *KEYED, 404, 408, 409, 412, 413, 415, 422, 503),
    ),
    Operation(
        "delete",
        f"{PAGES}/{{slug}}/variants/{{variant_id}}",
        "deletePageVariant",
        "Content",
        "Delete a variant",
        "content",
        (Reply(204, "Deleted; its share of the allocation goes to the control"),),
        params=(SLUG, VARIANT_ID, VARIANT_IF_MATCH, IDEMPOTENCY),
        errors=(400, *KEYED, 404, 409, 412, 422, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}/allocation",
        "getPageAllocation",
        "Content",
        "Read how a page's visitors are split",
        "content",
        (
            Reply(
                200,
                "The allocation; version 0 (all to the control) until one is set",
                AllocationBody,
            ),
        ),
        params=(SLUG,),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "put",
        f"{PAGES}/{{slug}}/allocation",
        "setPageAllocation",
        "Content",
        "Split a page's visitors between its control and variants",
        "content",
        (Reply(200, "Set", AllocationBody, headers=ETAG),),
        description="`fixed` shares in percent by arm (`control` and the page's variant ids),"
        " summing to 100; an arm left out gets none. Each visitor keeps one arm"
        " (content-api.md, Variants).",
        request=AllocationInput,
        request_example={"mode": "fixed", "shares": {"control": 50, "b": 50}},
        params=(SLUG, VARIANT_IF_MATCH, IDEMPOTENCY),
        errors=(400, *KEYED, 404, 408, 409, 412, 413, 415, 422, 503),
    ),
    Operation(
        "get",
        f"{PAGES}/{{slug}}/stats",
        "getPageStats",
        "Content",
        "A page's funnel: views, unique visitors, CTA clicks, lead forms, conversion",
        "content",
        (Reply(200, "Totals over the days asked and, with `by`, one row each", PageStatsBody),),
        description="Counted from roll-ups the signal store keeps per page as events are"
        " stored (events on `/p/{slug}`), never from the events at read time. `days` (28 by"
        " default, at most 366) or `since`/`until` (UTC days, both included); `by=day` gives"
        " every day of the range, `by=source|campaign|variant` each value (`(none)` without a"
        " campaign field, `control` without a variant). conversion_rate is lead_forms /"
        " unique_visitors, null when there is no visitor. An unknown parameter or a bad value"
        " is 400 `invalid_query` naming it." + OWN,
        query=PageStatsQueryDoc,
        params=(SLUG,),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "get",
        "/api/public/content/jobs/{id}",
        "getJob",
        "Content",
        "Poll a generation job",
        "content",
        (Reply(200, "queued, running, succeeded (with the page) or failed", JobBody),),
        params=(JOB_ID,),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "get",
        "/api/public/content/brand",
        "getBrandRules",
        "Content",
        "The brand rules the quality gate applies now",
        "content",
        (
            Reply(
                200, "Ruleset, ICP vocabulary, banned wording, allowances, limits", BrandRulesBody
            ),
        ),
        description="One document, built from the same data the gate reads: each rule's `code`"
        " is the code its findings carry, with its severity (`error` refuses a write, `warning`"
        " never does).",
        errors=(400, *KEYED, 503),
    ),
)
