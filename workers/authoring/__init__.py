"""Authoring: the Author port, the built-in template writer and the model adapters."""
