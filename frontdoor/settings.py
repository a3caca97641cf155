"""Settings: the only reader of the environment; defaults are embedded mode."""

import ipaddress
from pathlib import Path
from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PLACEHOLDER_KEYS = frozenset({"changeme", "change-me", "secret", "test", "xxx", "key", "apikey"})


class Settings(BaseSettings):
    """Every knob of the service, read once from the environment."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    port: int = Field(default=8080, ge=1, le=65535)
    host: str = "127.0.0.1"
    workers: int = Field(default=1, ge=1, le=32)
    backend: Literal["embedded", "gcp"] = "embedded"
    data_dir: Path = Path(".data")
    content_dir: Path = Path(__file__).resolve().parent.parent / "content"
    public_base_url: str = ""
    google_cloud_project: str | None = None
    content_api_key: SecretStr | None = None
    signals_api_key: SecretStr | None = None
    ingest_api_key: SecretStr | None = None
    # Signs draft preview links (/p/{slug}?preview=...); unset: kept in DATA_DIR (embedded).
    preview_secret: SecretStr | None = None
    # Keys the suppression list's hashes of erased addresses (frontdoor/suppression_key.py);
    # unset: kept in DATA_DIR (embedded) or derived from INTERNAL_TOKEN (gcp).
    suppression_key: SecretStr | None = None
    author_model: Literal["template", "gemini", "anthropic", "openai"] = "template"
    image_model: Literal["procedural", "imagen"] = "procedural"
    oauth_issuer: str | None = None
    # External IdP: its JWKS (discovered from the issuer when unset) and the `aud` of its tokens
    # (default: the /mcp URL). Built-in AS: access token lifetime in seconds; http loopback
    # Client ID Metadata Documents only for local runs and tests.
    oauth_jwks_url: str | None = None
    oauth_audience: str | None = None
    oauth_access_token_ttl: int = Field(default=3600, ge=1, le=86400)
    oauth_allow_http_cimd: bool = False
    # Built-in AS (mcp.md "Tokens", "Sign-in limits"): seconds a replaced refresh token still
    # answers the same client's retry of the same exchange with the same successor; sign-in
    # codes an hour to one email from one client address, to one email in all, from one client
    # address, and per pending sign-in.
    oauth_refresh_retry_seconds: int = Field(default=10, ge=0, le=60)
    oauth_signin_codes_per_email_and_address: int = Field(default=5, ge=1)
    oauth_signin_codes_per_email: int = Field(default=30, ge=1)
    oauth_signin_codes_per_address: int = Field(default=20, ge=1)
    oauth_signin_codes_per_signin: int = Field(default=3, ge=1)
    # Who is staff, and so may grant an agent the staff toolsets on /mcp (mcp.md "Staff
    # toolsets"): email domains and addresses (JSON lists); with an external IdP, also a
    # claim `name=value` its tokens carry (a string equal to value, or a list holding it).
    staff_email_domains: list[str] = Field(default_factory=list)
    staff_emails: list[str] = Field(default_factory=list)
    oauth_staff_claim: str | None = None
    # The partner a page drafted by staff through /mcp belongs to (mcp.md "Staff toolsets").
    staff_pages_partner: str = Field(default="ops", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    log_level: str = "INFO"
    # Seconds a request body may take to arrive, from the request reaching the service; later
    # is 408 (frontdoor/rsgi_front.py; content-api.md and signals-api.md "Limits").
    body_read_timeout: float = Field(default=10.0, gt=0, le=300)
    allowed_hosts: list[str] = Field(default_factory=list)
    # gcp mode: how many X-Forwarded-For entries, from the end, our own proxies append; the
    # client address (the per-address rate limits) is that entry. 2 behind the Google external
    # Application Load Balancer (`<client>,<load balancer>`, terraform/storage.tf); 1 for a
    # bare Cloud Run URL; 0 ignores the header. Embedded mode uses the socket peer.
    forwarded_for_hops: int = Field(default=2, ge=0, le=10)
    # Browser origins /mcp accepts besides its own (the Origin check against DNS rebinding).
    mcp_allowed_origins: list[str] = Field(default_factory=list)
    # The page-view beacon (content/docs/signals-api.md "Page views"): "required" makes it
    # wait for the visitor's yes on a small notice of ours; "none" (default) counts at once,
    # but never when the browser sends Global Privacy Control or Do Not Track.
    beacon_consent: Literal["none", "required"] = "none"
    # The company's other sites whose pages may post beacons and forms to /collect.
    collect_allowed_origins: list[str] = Field(default_factory=list)
    firestore_database: str = "(default)"
    # gcp mode: seconds one call to Firestore, Pub/Sub, Cloud Tasks or Cloud Storage may take,
    # the client's own retries included, before it is a 503 (backends/gcp/deadline.py).
    google_cloud_deadline: float = Field(default=10.0, ge=0.1, le=300)
    signals_topic: str = "signal-events"  # Pub/Sub topic the ingest worker is pushed from
    # Webhook deliveries (signals-api). Cloud Tasks queue; the emulator host is our own convention
    # (the client has no variable for it). INTERNAL_BASE_URL is where the queue reaches this
    # service (default: the public URL); INTERNAL_TOKEN authenticates it (unset: kept in
    # DATA_DIR in embedded mode; required in gcp mode). Loopback webhook targets (http too):
    # only with WEBHOOK_ALLOW_LOOPBACK on a loopback HOST (refused at start otherwise), for
    # development. Retry delays in seconds override DESIGN's schedule (tests).
    cloud_tasks_emulator_host: str | None = None
    cloud_tasks_location: str = "us-central1"
    cloud_tasks_queue: str = "deliveries"
    cloud_tasks_service_account: str | None = None
    internal_base_url: str = ""
    internal_token: SecretStr | None = None
    webhook_allow_loopback: bool = False
    # Seals webhook signing secrets at rest (any string of 16+ characters; a key is derived
    # from it). Unset: kept in DATA_DIR (embedded, emulated); required on Google Cloud.
    webhook_secrets_key: SecretStr | None = None
    webhook_retry_delays: list[float] | None = None
    # Alerts (Slack endpoints, stage alerts) fire only for touches that happened within this many
    # hours of being stored, and never for an ingest batch marked as an import.
    signal_fresh_hours: float = Field(default=24.0, gt=0, le=8760)
    # Generation (briefs to pages). AUTHOR_BASE_URL points a model adapter at another server (an
    # OpenAI-compatible one, a proxy, or a test's wire server); AUTHOR_MODEL_NAME names the
    # provider's model. VERTEX_LOCATION is Gemini's and Imagen's region. POST generate waits
    # GENERATE_WAIT_SECONDS before answering 202; a worker leases a job for JOB_LEASE_SECONDS
    # and renews the lease every third of that while it works (the README's "Leases").
    author_base_url: str | None = None
    author_api_key: SecretStr | None = None
    author_model_name: str | None = None
    author_timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    image_model_name: str = "imagen-4.0-generate-001"
    image_base_url: str | None = None
    image_api_key: SecretStr | None = None  # Vertex AI express mode for Imagen; unset: ADC
    vertex_location: str = "us-central1"
    generate_wait_seconds: float = Field(default=25.0, ge=0, le=120)
    job_lease_seconds: float = Field(default=30.0, gt=0, le=3600)
    generation_topic: str = "generation-jobs"
    generation_threads: int = Field(default=2, ge=1, le=16)
    # Durable embedded queues (lose nothing): a claimed message is leased for QUEUE_LEASE_SECONDS
    # (ingest and tasks; generation messages JOB_LEASE_SECONDS), renewed while its worker runs;
    # it comes back to any worker once its lease lapses, and at once to the next start on the
    # same host when the process that held it is gone. Every
    # JOB_RECOVERY_SECONDS (and at start) a queued or running job whose lease lapsed is queued
    # again; after JOB_MAX_REQUEUES of those it fails with error code `abandoned`.
    queue_lease_seconds: float = Field(default=10.0, gt=0, le=3600)
    job_recovery_seconds: float = Field(default=60.0, gt=0, le=3600)
    job_max_requeues: int = Field(default=3, ge=0, le=100)
    # Pub/Sub push OIDC check of the worker targets (frontdoor/push_auth.py): required in gcp
    # mode unless PUBSUB_EMULATOR_HOST says the push comes from the emulator, which signs nothing.
    push_oidc_audience: str | None = None
    push_service_account: str | None = None
    push_oidc_jwks_url: str = "https://www.googleapis.com/oauth2/v3/certs"
    pubsub_emulator_host: str | None = None
    # Read by the Firestore and storage clients themselves; here so that a gcp start knows
    # whether it runs on the emulators, which need no credentials (frontdoor/gcp_credentials.py).
    firestore_emulator_host: str | None = None
    storage_emulator_host: str | None = None
    # Google Cloud only: the operators' mailer topic and the CDN's URL map.
    mail_topic: str = "mail"
    cdn_url_map: str | None = None
    blobs_bucket: str | None = None  # gcp mode: the hero image bucket
    blobs_public_base_url: str = ""  # gcp mode: the CDN origin of that bucket (else GCS URLs)
    # Rate limits (fair use): requests per RATE_LIMIT_WINDOW_SECONDS per key of each scope, and
    # per client address on the public read API; 0 turns one off. Counted per process: on
    # Cloud Run each instance counts its own (content-api.md "Rate limits").
    rate_limit_window_seconds: int = Field(default=60, ge=1, le=3600)
    rate_limit_content: int = Field(default=3000, ge=0)
    rate_limit_content_admin: int = Field(default=6000, ge=0)
    rate_limit_signals: int = Field(default=6000, ge=0)
    rate_limit_ingest: int = Field(default=3000, ge=0)
    # 100 a second per address, sustained for a minute: far above a person or an agent
    # reading the API, below a scraper; Cloud Armor's rule at the edge (terraform/storage.tf)
    # counts across instances.
    rate_limit_public: int = Field(default=6000, ge=0)
    # Requests per client address to /authorize and the sign-in pages (built-in AS): a
    # person's sign-in takes about seven, a page reload or two more.
    rate_limit_signin: int = Field(default=30, ge=0)
    # /collect's page views (beacons with a visitor id) per minute per visitor id and per client
    # address (signals-api.md "Collect"); at least 1: the limiter always counts.
    collect_limit_visitor: int = Field(default=60, ge=1)
    collect_limit_address: int = Field(default=1200, ge=1)
    # Page history: how many versions of each page to keep (the newest); 0 keeps every one.
    page_history_limit: int = Field(default=20, ge=0)
    # The bytes of page input (JSON, UTF-8) one partner's kept versions may hold, in MiB; a
    # write past it answers 507 `storage_quota_exceeded`. 0 turns the quota off.
    page_storage_quota_mib: int = Field(default=256, ge=0)
    # Pages stored before ownership existed belong to this partner when first opened.
    existing_pages_owner: str = Field(default="bootstrap", min_length=1)
    # Page experiments with `allocation: adaptive` (content-api.md "Experiments"): each arm keeps
    # EXPERIMENT_MIN_SHARE of new visitors while it runs (5 arms at most, so 0.2 at most); the
    # shares are recomputed from the stats at most every EXPERIMENT_RECOMPUTE_SECONDS. The stop
    # rule (off unless EXPERIMENT_AUTO_STOP) ends an experiment when one arm's probability of
    # being best reaches EXPERIMENT_STOP_PROBABILITY and every arm has
    # EXPERIMENT_STOP_MIN_CONVERSIONS conversions; tests/domain/test_allocation.py's simulation
    # vouches for these defaults.
    experiment_min_share: float = Field(default=0.1, ge=0, le=0.2)
    experiment_recompute_seconds: int = Field(default=3600, ge=60, le=86400)
    experiment_auto_stop: bool = False
    experiment_stop_probability: float = Field(default=0.999, gt=0.5, lt=1)
    experiment_stop_min_conversions: int = Field(default=100, ge=1)

    @property
    def page_storage_quota_bytes(self) -> int:
        """PAGE_STORAGE_QUOTA_MIB in bytes (0: no quota)."""
        return self.page_storage_quota_mib * 1024 * 1024

    @field_validator("public_base_url")
    @classmethod
    def _strip_trailing_slash(cls, value: str) -> str:
        # Issuer and resource URLs are compared as exact strings by OAuth clients.
        return value.rstrip("/")

    @field_validator("mcp_allowed_origins", "collect_allowed_origins")
    @classmethod
    def _origins_only(cls, values: list[str]) -> list[str]:
        # Browsers send `Origin: scheme://host[:port]`; anything else could never match.
        origins = [value.rstrip("/") for value in values]
        for origin in origins:
            parts = urlsplit(origin)
            if (
                parts.scheme not in ("http", "https")
                or not parts.hostname
                or "@" in parts.netloc
                or parts.path
                or parts.query
                or parts.fragment
            ):
                raise ValueError(f"{origin!r} is not an origin like https://app.example.com")
        return origins

    @field_validator("content_api_key", "signals_api_key", "ingest_api_key")
    @classmethod
    def _refuse_placeholder_keys(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        raw = value.get_secret_value()
        if raw == "":
            return None
        if raw.lower() in PLACEHOLDER_KEYS or len(raw) < 16:
            raise ValueError("must be a real key of at least 16 characters, not a placeholder")
        return value

    @model_validator(mode="after")
    def _refuse_http_cimd_outside_embedded(self) -> Self:
        if self.oauth_allow_http_cimd and self.backend != "embedded":
            raise ValueError("OAUTH_ALLOW_HTTP_CIMD is for embedded runs only")
        return self

    @model_validator(mode="after")
    def _refuse_loopback_webhooks_in_the_cloud(self) -> Self:
        if (
            self.webhook_allow_loopback
            and self.backend == "gcp"
            and not self.cloud_tasks_emulator_host
        ):
            raise ValueError("WEBHOOK_ALLOW_LOOPBACK is for embedded and emulated runs only")
        if self.webhook_allow_loopback and not self.listens_on_loopback:
            # On a public bind a signals key could aim deliveries at this host's own services.
            raise ValueError(
                "WEBHOOK_ALLOW_LOOPBACK needs HOST to be a loopback address (127.0.0.1, ::1)"
            )
        return self

    @model_validator(mode="after")
    def _require_push_auth_in_the_cloud(self) -> Self:
        cloud = self.backend == "gcp" and self.google_cloud_project  # no project: refused below
        if cloud and not self.pubsub_emulator_host and not self.push_oidc_audience:
            raise ValueError(
                "BACKEND=gcp needs PUSH_OIDC_AUDIENCE (off only with PUBSUB_EMULATOR_HOST)"
            )
        return self

    @model_validator(mode="after")
    def _require_project_for_gcp(self) -> Self:
        if self.backend == "gcp" and not self.google_cloud_project:
            raise ValueError("BACKEND=gcp needs GOOGLE_CLOUD_PROJECT")
        return self

    @property
    def listens_on_loopback(self) -> bool:
        """True when HOST is a loopback address or name: no other machine can connect."""
        host = self.host.strip("[]").lower()
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    @property
    def base_url(self) -> str:
        """The public origin, defaulting to the local listen address."""
        return self.public_base_url or f"http://{self.host}:{self.port}"
