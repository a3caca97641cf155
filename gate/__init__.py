"""The brand quality gate: pure functions from a raw page (and optionally its brief) to issues."""
