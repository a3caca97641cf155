"""Embedded adapters: SQLite (WAL) in DATA_DIR, in-process queues and threads, local folders."""
