"""Transports: how host events reach host adapters (``agent_hooks_core.bridges``) and answers go back.

* :mod:`.dispatch`: what every transport shares: bounded, depth-safe decoding of an event and the
  one place that turns any failure of ours into the adapter's ``failure`` answer;
* :mod:`.process`: the per-event command (``agenthooks claude-code`` and every command host);
* :mod:`.client`: the fast client command for command-only hosts, and ``command_for(host)``;
* :mod:`.stdio`: ``agenthooks serve --stdio``, one warm runtime per agent session over newline-delimited
  JSON-RPC on the child's stdin/stdout (the pi, omp and OpenCode extensions start it).

The server side (HTTP, the unix socket) lives in ``agent_hooks_core.serve``. Standard library only
at import time: the per-event process imports this before anything else.
"""
