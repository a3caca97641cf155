"""Ports (backends/ports.py) and their adapters: embedded/ on SQLite, threads and folders; gcp/ on Google Cloud."""
