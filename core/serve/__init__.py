"""``agenthooks serve``: the runtime kept warm in one long-lived process per user and environment.

* :mod:`.paths`: where the socket, pid file, lock, token and log live, and the HTTP port;
* :mod:`.pool`: one runtime per (cwd, host, options), rebuilt when what it was built from changes;
  per-request state (UI, session, outbox) kept apart so concurrent requests never share it;
* :mod:`.handler`: the HTTP endpoints (``/hosts/<host>``, ``/hosts/<host>/command``, ``/fire``,
  ``/status``), their security checks and failure answers;
* :mod:`.server`: the servers (HTTP on 127.0.0.1, HTTP over the unix socket), start/stop/status;
* :mod:`.stats`: events served, latency percentiles;
* :mod:`.stdio`: ``serve --stdio``, one warm runtime per agent session over newline-delimited
  JSON-RPC on the child's stdin/stdout (the pi, omp and OpenCode extensions start it).

docs/serve.md describes the protocol, the security model and the failure model.
"""
