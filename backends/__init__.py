"""Ports (backends/ports.py) and their adapters.

embedded/ runs on SQLite, threads and folders; gcp/ on Google Cloud.
"""
