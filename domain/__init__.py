"""The domain: records, their states and the data every layer shares, with no I/O.

`schemas/`, the ports, the adapters and the renderers import from here, never the other way
(architecture.toml). Nothing here imports another package of ours.
"""
