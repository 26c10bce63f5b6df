"""``serve --stdio`` reads its input in linear time with a size cap: a 32 MiB event is answered, a
line past the cap is refused (an error for its id, which the extensions turn into a block on
gating events) without being kept in memory, and the next event is answered normally."""

from __future__ import annotations

import json
from pathlib import Path

from ..bridges.stdio_client import Session

PLUGIN = """\
@hookimpl
def pre_tool(event):
    if event.arguments.get("command", "").startswith("rm"):
        return {"block": True, "reason": "no rm"}
"""


def _tool_call(command: str) -> dict:
    return {"type": "tool_call", "toolName": "bash", "toolCallId": "c1", "input": {"command": command}}


def test_a_32_mib_event_is_answered_and_an_oversized_line_is_refused_then_service_goes_on(tmp_path: Path):
    from agent_hooks_core.serve.stdio import MAX_LINE

    s = Session(tmp_path, PLUGIN)
    try:
        s.initialize()
        big = s.event("tool_call", _tool_call("rm " + "x" * (32 << 20)))
        assert big["answer"]["block"] is True
        s._id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": s._id, "method": "event",
                           "params": {"name": "tool_call", "payload": _tool_call("ls")}})
        s.send_raw(line[:-2].encode() + b" " * (MAX_LINE + 10) + line[-2:].encode())
        refused = s.read()
        assert refused["id"] == s._id and "larger than" in refused["error"]["message"]
        assert s.event("tool_call", _tool_call("rm -rf ~"))["answer"] == {"block": True, "reason": "no rm"}
        assert s.event("tool_call", _tool_call("ls"))["answer"] is None
    finally:
        assert s.close() == 0


def test_lines_split_across_reads_and_many_lines_in_one_read_are_each_answered(tmp_path: Path):
    s = Session(tmp_path, PLUGIN)
    try:
        s.initialize()
        lines = [json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "event",
                             "params": {"name": "tool_call", "payload": _tool_call("rm" if i % 2 else "ls")}})
                 for i in range(50)]
        s.send_raw("\n".join(lines).encode())
        replies = {}
        while len(replies) < 50:
            msg = s.read()
            replies[msg["id"]] = msg["result"]["answer"]
        assert [replies[100 + i] is not None for i in range(50)] == [bool(i % 2) for i in range(50)]
    finally:
        assert s.close() == 0
