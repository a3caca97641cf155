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
)
from pydantic_core import PydanticCustomError

from schemas.content.pages import SLUG_PATTERN, PageRecord
from schemas.errors import Issue, errors_of, warnings_of

__all__ = [
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
    "JobView",
]

PAGE_SLUG_MAX = 80
ICP_MAX_WORDS = 12
MAX_WRITER_CALLS = 2
STORED = {"stored": True}
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


class JobRecord(BaseModel):
    """A generation job as stored, with the outcome of every finished step."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    partner: str
    brief: GenerationBrief
    key_id: str = Field(default="", description="The key that submitted it (never the secret)")
    admin: bool = Field(
        default=False, description="Submitted with a content_admin key: may write any page"
    )
    status: JobStatus = "queued"
    attempts: int = Field(default=0, description="Deliveries that started work")
    writer_calls: int = Field(default=0, description="Writer calls claimed, at most 2")
    requeues: int = Field(default=0, description="Times a lapsed lease put the job back")
    drafts: list[JobDraft] = Field(default_factory=list)
    hero_image_url: str | None = None
    page_slug: str | None = None
    page_stored: bool = False
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
