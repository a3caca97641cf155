"""The use cases: keyword-only functions over ports, called by views, workers and the CLI."""
