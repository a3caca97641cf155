"""Pydantic models: the single source of truth for request and response shapes and the OpenAPI document."""
