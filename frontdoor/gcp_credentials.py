"""Whether a BACKEND=gcp start has the Google credentials its clients will ask for.

Checked in granian's parent (frontdoor/serve.py `check_start`), so a start without them stops
with one line saying what to set instead of a worker dying with a traceback. The emulators
need none: with every client pointed at one (`make run-emulated`), nothing is checked.
"""

from __future__ import annotations

from frontdoor.settings import Settings

MISSING = (
    "BACKEND=gcp found no Google Cloud credentials: set GOOGLE_APPLICATION_CREDENTIALS to a"
    " service account key file, or run `gcloud auth application-default login`"
)

# One a client: Firestore, Pub/Sub, Cloud Storage, Cloud Tasks.
EMULATOR_VARIABLES = (
    "FIRESTORE_EMULATOR_HOST",
    "PUBSUB_EMULATOR_HOST",
    "STORAGE_EMULATOR_HOST",
    "CLOUD_TASKS_EMULATOR_HOST",
)


def missing_emulators(settings: Settings) -> list[str]:
    """The emulator variables not set, of those that spare each client its credentials."""
    return [name for name in EMULATOR_VARIABLES if not getattr(settings, name.lower())]


def credentials_problem(settings: Settings) -> str | None:
    """Why this gcp start could not reach Google Cloud, or None (embedded mode, every client
    on an emulator, or Application Default Credentials found)."""
    if settings.backend != "gcp":
        return None
    missing = missing_emulators(settings)
    if not missing and not settings.cdn_url_map:  # Cloud CDN has no emulator
        return None
    # Here, not at the top: an embedded start never loads google-auth.
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        google.auth.default()
    except DefaultCredentialsError as err:
        if not missing:
            instead = " (CDN_URL_MAP: Cloud CDN has no emulator)"
        elif len(missing) == len(EMULATOR_VARIABLES):
            instead = " (or run on the emulators: `make run-emulated`)"
        else:
            instead = f" (or, on the emulators, also set {', '.join(missing)})"
        return f"{MISSING}{instead}\n  google-auth: {err}"
    return None
