"""The built-in OAuth authorization server (clients, sign-in, codes and tokens) and the
verifier of an external issuer's JWTs."""
