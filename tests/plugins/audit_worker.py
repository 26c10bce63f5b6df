"""A process that fires hooks into an audit database (test_audit's concurrency test spawns four)."""

from __future__ import annotations

from typing import Any


def fire_events(db: str, worker: int, count: int, barrier: Any, errors: Any) -> None:
    import agent_hooks_audit
    from agent_hooks_core import Runtime

    rt = Runtime(plugins=[("audit", agent_hooks_audit)], plugin_config={"audit": {"db": db}},
                 session_id=f"worker-{worker}", host="test")
    barrier.wait(timeout=60)
    failed = 0
    for i in range(count):
        out = rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": f"echo {worker}-{i}"}})
        failed += len(out.errors)
    errors.put((worker, failed))


def main(argv: list[str]) -> int:
    """``python audit_worker.py URL WORKER COUNT``: wait for a line on stdin, then fire COUNT events
    into the audit at URL and exit as a bridge process does (the writer's atexit drain included)."""
    import sys

    import agent_hooks_audit
    from agent_hooks_core import Runtime

    url, worker, count = argv[0], int(argv[1]), int(argv[2])
    rt = Runtime(plugins=[("audit", agent_hooks_audit)], plugin_config={"audit": {"url": url}},
                 session_id=f"worker-{worker}", host="test")
    sys.stdin.readline()
    failed = 0
    for i in range(count):
        out = rt.fire("pre_tool", {"tool_name": "bash", "arguments": {
            "command": f"echo {worker}-{i}", "password": f"pw-{worker}-{i}-hunter2"}})
        failed += len(out.errors)
    print(failed)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
