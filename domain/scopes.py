"""The scopes an API key may have, and which of them a key may have from the environment."""

from __future__ import annotations

from typing import Literal

Scope = Literal["content", "signals", "ingest", "content_admin"]
SCOPES: tuple[Scope, ...] = ("content", "signals", "ingest", "content_admin")
# Scopes a key may have from the environment (CONTENT_API_KEY, ...) or a `make run` start;
# `content_admin` (every partner's pages, so an operator's key) is issued by the operator CLI only.
BootstrapScope = Literal["content", "signals", "ingest"]
BOOTSTRAP_SCOPES: tuple[BootstrapScope, ...] = ("content", "signals", "ingest")
