"""The OpenAPI 3.1 document: its operation table (one module per surface), the assembly from
the pydantic models, real examples and the stand-ins for hand-parsed shapes."""
