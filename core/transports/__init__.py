"""Transports: how host events reach host adapters (``agent_hooks_core.bridges``) and answers go back.

* :mod:`.dispatch`: what every transport shares: bounded, depth-safe decoding of an event and the
  one place that turns any failure of ours into the adapter's ``failure`` answer;
* :mod:`.process`: the per-event command (``agenthooks claude-code`` and every command host);
* :mod:`.relay`: the same command handing its event to a running warm server for the same environment;
* :mod:`.client`: the fast client command for command-only hosts, and ``command_for(host)``.

The server side (HTTP, the unix socket, and ``serve --stdio`` for the pi, omp and OpenCode
extensions) lives in ``agent_hooks_core.serve``, which builds on this package, never the reverse. Standard library only
at import time: the per-event process imports this before anything else.
"""
