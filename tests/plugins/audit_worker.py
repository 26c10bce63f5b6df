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
