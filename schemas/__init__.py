"""Pydantic models: the one source of request and response shapes and of the OpenAPI document."""
