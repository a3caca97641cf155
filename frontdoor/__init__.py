"""The composition root: settings, logging, backend wiring and every entry point."""
