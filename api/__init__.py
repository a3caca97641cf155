"""The HTTP surface: the Flask app factory, one blueprint per surface, and the error model."""
