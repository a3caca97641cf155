"""The REST surfaces: one module per blueprint (public, content, jobs, signals, collect,
files, pages, webhooks) and the helpers they share."""
