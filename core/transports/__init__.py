"""Transports: how host events reach the adapters in :mod:`agent_hooks_core.bridges`.

A transport owns the I/O around an adapter (reading and bounding input, building or reusing the
runtime, timeouts) and turns its own failures into the adapter's ``failure`` answer. One module
per transport; ``stdio`` is the newline-delimited JSON-RPC pipe that in-process hosts (pi, omp,
OpenCode) use through a small extension that starts ``agenthooks serve --stdio``.
"""
