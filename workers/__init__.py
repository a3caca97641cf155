"""Handlers of queued work: generation, signal ingest and webhook deliveries."""
