"""The Signal API's shapes and pure rules: events, roll-ups and their fold, scores, identity,
webhooks, and the response bodies."""
