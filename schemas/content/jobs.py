"""Generation: the brief (SPEC "Generation brief"), the job record and the job responses.

The brief's limits are SPEC.md's; DESIGN adds that a brief slug over 80 characters is refused
at once (a page slug is at most 80) and that `callback_url` is https. The job record keeps
every finished step so a redelivered message never runs one twice. No I/O and no clock here.
"""

import re
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from domain.editors import Editor
from schemas.content.pages import SLUG_PATTERN, PageRecord
from schemas.errors import Issue, errors_of, warnings_of

__all__ = [
    "ANGLE_NAMES",
    "MAX_VERSIONS",
    "MAX_WRITER_CALLS",
    "PAGE_SLUG_MAX",
    "BriefNote",
    "GeneratedPage",
    "GenerationBrief",
    "JobAccepted",
    "JobBody",
    "JobDraft",
    "JobError",
    "JobRecord",
    "JobStatus",
    "JobVariant",
    "JobVariantView",
    "JobView",
]

PAGE_SLUG_MAX = 80
# A brief's `variants` counts every version of the page in the experiment, the control
# included: 2 is an A/B test; 4 is the control and the three angles the writer has.
MIN_VERSIONS, MAX_VERSIONS = 2, 4
ICP_MAX_WORDS = 12
MAX_WRITER_CALLS = 2
STORED = {"stored": True}
# The fields a job kept its editor in before the editor was kept whole (`editor`).
_EDITOR_FIELDS = ("partner", "key_id", "admin")
_LOOPBACK = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(/|$)")

ProofItem = Annotated[str, Field(min_length=1, max_length=300)]
SectionName = Annotated[str, Field(min_length=1, max_length=80)]


class GenerationBrief(BaseModel):
    """The body of POST /api/public/content/pages/generate."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    slug: str = Field(max_length=120, pattern=SLUG_PATTERN, examples=["revops-audit"])
    topic: str = Field(min_length=1, max_length=300, description="What the page is about")
    icp: str = Field(
        min_length=1, max_length=160, description="Who the page is for, at most 12 words"
    )
    goal: str | None = Field(default=None, max_length=300)
    offer: str | None = Field(default=None, max_length=600)
    proof: list[ProofItem] = Field(
        default_factory=list,
        max_length=8,
        description="The only facts the writer may state; none means no stats or quotes",
    )
    cta_label: str | None = Field(default=None, max_length=40)
    cta_href: str | None = Field(default=None, max_length=500)
    tone: str | None = Field(default=None, max_length=200)
    sections: list[SectionName] = Field(default_factory=list, max_length=10)
    generate_image: bool = True
    publish: bool = False
    variants: int | None = Field(
        default=None,
        strict=True,
        json_schema_extra={"minimum": MIN_VERSIONS, "maximum": MAX_VERSIONS},
        description="How many versions of the page to write for an experiment, 2 to 4 in all: "
        "the page itself (the control) and, besides it, variants `b`, `c`, `d` from other "
        "angles (another headline, another proof first, another voice), each gated on its "
        "own; left out, the page alone",
    )
    callback_url: str | None = Field(
        default=None,
        max_length=500,
        description="https URL that receives the finished job, signed (Standard Webhooks)",
    )

    @field_validator("slug")
    @classmethod
    def _slug_fits_a_page(cls, slug: str) -> str:
        if len(slug) > PAGE_SLUG_MAX:
            raise PydanticCustomError(
                "string_too_long",
                "at most {max_chars} characters: the page slug limit",
                {"max_chars": PAGE_SLUG_MAX},
            )
        return slug

    @field_validator("icp")
    @classmethod
    def _icp_is_short(cls, icp: str) -> str:
        if len(icp.split()) > ICP_MAX_WORDS:
            raise PydanticCustomError(
                "string_too_long",
                "at most {max_words} words",
                {"max_words": ICP_MAX_WORDS},
            )
        return icp

    @field_validator("variants")
    @classmethod
    def _versions_in_range(cls, versions: int | None) -> int | None:
        if versions is not None and not MIN_VERSIONS <= versions <= MAX_VERSIONS:
            raise PydanticCustomError(
                "out_of_range",
                "{low} to {high} versions in all: the page and 1 to {most} variants of it",
                {"low": MIN_VERSIONS, "high": MAX_VERSIONS, "most": MAX_VERSIONS - 1},
            )
        return versions

    @field_validator("callback_url")
    @classmethod
    def _callback_is_https(cls, url: str | None, info: ValidationInfo) -> str | None:
        if url is None:
            return None
        context: dict[str, Any] = info.context or {}
        if url.startswith("https://") and len(url) > len("https://"):
            return url
        if context.get("allow_loopback_http") and _LOOPBACK.match(url):
            return url
        if context.get("stored"):  # checked when the job was created; read back as it was
            return url
        raise PydanticCustomError("unsafe_url", "must be an absolute https URL")


JobStatus = Literal["queued", "running", "succeeded", "failed"]
NoteCode = Literal["dropped", "shortened", "merged", "not_used"]


class BriefNote(BaseModel):
    """One element of the brief the page does not carry whole, and why."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    field: str = Field(description="The brief field, dotted with an index: `offer`, `proof.2`")
    code: NoteCode = Field(
        description="`dropped` (could not be printed), `shortened`, `merged` (a repeated "
        "section) or `not_used` (the writer found no place for it)"
    )
    message: str = Field(examples=["not printed: off-brand word 'revolutionary'"])


class JobError(BaseModel):
    """Why a job failed: `model_failed` (retryable), `invalid_payload`, `worker_failed`,
    `abandoned` (its worker died or it never started, too often: post it again)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    code: str
    message: str
    retryable: bool = False


class JobDraft(BaseModel):
    """One writer call's page payload and, once gated, its issues (empty = passed)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    payload: dict[str, Any]
    issues: list[Issue] | None = None
    notes: list[BriefNote] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Gated, and no finding is an error (warnings never refuse a page)."""
        return self.issues is not None and not errors_of(self.issues)

    @property
    def warnings(self) -> list[Issue]:
        """The gate's warnings on this draft."""
        return warnings_of(self.issues or [])


VariantStatus = Literal["pending", "written", "refused", "failed"]


class JobVariant(BaseModel):
    """One variant a job writes besides the page: its drafts and how it ended."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    angle: int
    status: VariantStatus = "pending"
    writer_calls: int = 0
    drafts: list[JobDraft] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)
    error: JobError | None = None

    @property
    def finished(self) -> bool:
        return self.status != "pending"


class JobRecord(BaseModel):
    """A generation job as stored, with the outcome of every finished step."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    editor: Editor = Field(
        description="Who submitted it: the partner, the key (its id, never the secret) and "
        "whether it was a content_admin key (may write any page); the job's page is written "
        "as this editor"
    )
    brief: GenerationBrief
    status: JobStatus = "queued"
    attempts: int = Field(default=0, description="Deliveries that started work")
    writer_calls: int = Field(default=0, description="Writer calls claimed, at most 2")
    requeues: int = Field(default=0, description="Times a lapsed lease put the job back")
    drafts: list[JobDraft] = Field(default_factory=list)
    hero_image_url: str | None = None
    page_slug: str | None = None
    page_stored: bool = False
    variants: list[JobVariant] = Field(
        default_factory=list, description="The variants the brief asked for, as they stand"
    )
    error: JobError | None = None
    issues: list[Issue] = Field(default_factory=list)
    notes: list[BriefNote] = Field(
        default_factory=list, description="What of the brief the latest draft left out, and why"
    )
    callback_secret: str | None = Field(default=None, repr=False)
    lease_owner: str | None = None
    lease_until: datetime | None = None
    lease_seconds: float = 0.0
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("succeeded", "failed")

    @model_validator(mode="before")
    @classmethod
    def _editor_kept_apart(cls, data: Any, info: ValidationInfo) -> Any:
        """A job stored before the editor was kept whole has `partner`, `key_id` and `admin`
        beside its other fields: read as its editor, so a job queued before an upgrade runs
        after it as who submitted it."""
        stored = bool((info.context or {}).get("stored"))
        if not stored or not isinstance(data, dict) or "editor" in data or "partner" not in data:
            return data
        kept = {name: value for name, value in data.items() if name not in _EDITOR_FIELDS}
        editor = {name: data[name] for name in _EDITOR_FIELDS if name in data}
        return {**kept, "editor": {"key_id": "", **editor}}

    @property
    def warnings(self) -> list[Issue]:
        """The gate's warnings on the draft that became the page (none before it passed)."""
        passed = [draft for draft in self.drafts if draft.passed]
        return passed[-1].warnings if passed else []

    @classmethod
    def read_stored(cls, data: str | dict[str, Any]) -> Self:
        """A job as a store kept it (its brief was checked once, when it was created)."""
        if isinstance(data, str):
            return cls.model_validate_json(data, context=STORED)
        return cls.model_validate(data, context=STORED)


AngleName = Literal["headline", "proof", "voice"]
# The writer's angles (workers/authoring/desk.py) by number: variant b is angle 1, c 2, d 3.
ANGLE_NAMES: dict[int, AngleName] = {1: "headline", 2: "proof", 3: "voice"}


class JobVariantView(BaseModel):
    """A variant the job wrote (or the gate refused) besides the page."""

    model_config = ConfigDict(defer_build=True)

    id: str = Field(description="The variant's id on the page (`b`, `c`, `d`)", examples=["b"])
    angle: AngleName = Field(
        description="What it changes: another headline, another proof first, another voice"
    )
    status: VariantStatus = Field(
        description="`written` (stored as a variant of the page), `refused` (failed the "
        "quality gate twice; `issues` says why), `failed` (the writer failed; `error`), "
        "`pending` while the job runs"
    )
    issues: list[Issue] = Field(default_factory=list)
    warnings: list[Issue] = Field(default_factory=list)
    error: JobError | None = None
    notes: list[BriefNote] = Field(default_factory=list)

    @classmethod
    def of(cls, variant: JobVariant) -> Self:
        """The public view of one of a job's variants."""
        last = variant.drafts[-1] if variant.drafts else None
        return cls(
            id=variant.id,
            angle=ANGLE_NAMES[variant.angle],
            status=variant.status,
            issues=variant.issues,
            warnings=last.warnings if last is not None and last.passed else [],
            error=variant.error,
            notes=last.notes if last is not None else [],
        )


class JobView(BaseModel):
    """A job as partners see it (GET /api/public/content/jobs/{id})."""

    model_config = ConfigDict(defer_build=True)

    id: str
    status: JobStatus
    slug: str
    attempts: int
    writer_calls: int
    page_slug: str | None
    hero_image_url: str | None
    error: JobError | None
    issues: list[Issue]
    warnings: list[Issue] = Field(
        default_factory=list,
        description="The quality gate's warnings on the page it passed (judgement calls, such "
        "as a universal word in a promise); they never block and are never sent back to the "
        "writer",
    )
    notes: list[BriefNote] = Field(
        description="What of the brief the page left out and why (`offer` dropped: off-brand "
        "word; a section merged); empty when every element was used"
    )
    variants: list[JobVariantView] = Field(
        default_factory=list,
        description="The variants the brief's `variants` asked for besides the page, each "
        "with its id on the page and how it ended",
    )
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    url: str = Field(description="Where to poll this job")
    callback_secret: str | None = Field(
        default=None,
        description="`whsec_` secret that signs this job's callback; in the POST answer only",
    )

    @classmethod
    def of(cls, job: JobRecord, *, url: str, base_url: str = "") -> Self:
        """The public view of a stored job; a site-path hero image made absolute on `base_url`."""
        hero = job.hero_image_url
        if base_url and hero and hero.startswith("/") and not hero.startswith("//"):
            hero = base_url + hero
        return cls(
            id=job.id,
            status=job.status,
            slug=job.brief.slug,
            attempts=job.attempts,
            writer_calls=job.writer_calls,
            page_slug=job.page_slug,
            hero_image_url=hero,
            error=job.error,
            issues=job.issues,
            warnings=job.warnings,
            notes=job.notes,
            variants=[JobVariantView.of(v) for v in job.variants],
            created_at=job.created_at,
            updated_at=job.updated_at,
            finished_at=job.finished_at,
            url=url,
        )


class JobAccepted(BaseModel):
    """202: the job is queued or running; poll `job.url`."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    job: JobView


class JobBody(BaseModel):
    """GET jobs/{id}: the job, and its page once it succeeded."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    job: JobView
    page: PageRecord | None = None
    warnings: list[Issue] = Field(
        default_factory=list,
        description="The quality gate's warnings on the page (never blocking); as job.warnings",
    )
    notes: list[BriefNote] = Field(
        default_factory=list, description="What of the brief the page left out, and why"
    )


class GeneratedPage(BaseModel):
    """201: the page authored, gated and stored, and the job that made it."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    page: PageRecord
    job: JobView
    warnings: list[Issue] = Field(
        default_factory=list,
        description="The quality gate's warnings on the page (never blocking); as job.warnings",
    )
    notes: list[BriefNote] = Field(
        default_factory=list, description="What of the brief the page left out, and why"
    )
