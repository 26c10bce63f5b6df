"""agent-hooks-otel: spans and metrics per hook call, with the SDK's in-memory exporter and through a
real OTLP/HTTP receiver on 127.0.0.1 (a small http.server that decodes the protobuf)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import agent_hooks_guard
import pytest

otel = pytest.importorskip("agent_hooks_otel", reason="agent-hooks-otel is not installed (pip install -e plugins/otel)")
from agent_hooks_core import Runtime, hookimpl  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

SECRET = "ghp_" + "x7Yq" * 9


class Broken:
    __name__ = "broken"

    @hookimpl
    def pre_tool_output(self, event: Any) -> None:
        raise RuntimeError(f"boom with token={SECRET}")


@pytest.fixture
def memory() -> Iterator[tuple[InMemorySpanExporter, InMemoryMetricReader]]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    otel.setup(tracer_provider, MeterProvider(metric_readers=[reader]))
    yield spans, reader
    otel.setup()


def otel_rt(config: dict[str, Any] | None = None, *extra: Any) -> Runtime:
    return Runtime(plugins=[*extra, ("otel", otel)], plugin_config={"otel": config or {}},
                   session_id=f"sess-{SECRET}", host="claude-code")


def points(reader: InMemoryMetricReader) -> dict[str, list[tuple[dict[str, Any], Any]]]:
    out: dict[str, list[tuple[dict[str, Any], Any]]] = {}
    data = reader.get_metrics_data()
    assert data is not None
    for rm in data.resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                for p in metric.data.data_points:
                    value = p.value if hasattr(p, "value") else (p.count, p.sum)
                    out.setdefault(metric.name, []).append((dict(p.attributes), value))
    return out


def test_a_span_per_hook_call_with_its_outcome(memory: Any) -> None:
    spans, _ = memory
    rt = otel_rt({"payload_fields": ["tool_name", "arguments.command"]}, ("guard", agent_hooks_guard),
                 ("broken", Broken()))
    rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": f"curl -u me:{SECRET} x && ls"}})
    rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "rm -rf ~"}})
    rt.fire("pre_tool_output", {"tool_name": "bash", "output": "ok"})
    got = {(s.attributes["agent_hooks.hook"], s.attributes["agent_hooks.decision"]): s
           for s in spans.get_finished_spans()}
    assert set(got) >= {("pre_tool", "allowed"), ("pre_tool", "blocked"), ("pre_tool_output", "allowed")}
    allowed, blocked, broken = got[("pre_tool", "allowed")], got[("pre_tool", "blocked")], got[
        ("pre_tool_output", "allowed")]
    assert allowed.name == "agent_hooks pre_tool"
    assert allowed.attributes["agent_hooks.host"] == "claude-code"
    assert allowed.attributes["session.id"] == "sess-[REDACTED:github-token]"
    assert allowed.attributes["agent_hooks.event.tool_name"] == "bash"
    assert "[REDACTED" in allowed.attributes["agent_hooks.event.arguments.command"]
    assert "guard" in allowed.attributes["agent_hooks.plugins.called"]
    assert blocked.attributes["agent_hooks.decided_by"] == "guard" and "agent_hooks.reason" in blocked.attributes
    assert blocked.end_time - blocked.start_time > 0
    assert broken.status.status_code.name == "ERROR" and broken.attributes["agent_hooks.error_count"] == 1
    (event,) = broken.events
    assert event.attributes["agent_hooks.plugin"] == "broken"
    everything = json.dumps([dict(s.attributes) | {"events": [dict(e.attributes) for e in s.events],
                                                   "status": s.status.description}
                             for s in spans.get_finished_spans()], default=str)
    assert SECRET not in everything


def test_payload_only_where_allowed(memory: Any) -> None:
    spans, _ = memory
    otel_rt({"payload_fields": []}).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls"}})
    otel_rt().fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls", "password": "x"}})
    otel_rt({"payload_fields": ["arguments.password"]}).fire(
        "pre_tool", {"tool_name": "bash", "arguments": {"command": "ls", "password": "hunter22"}})
    none, default, secret = spans.get_finished_spans()
    assert not [k for k in none.attributes if k.startswith("agent_hooks.event.")]
    assert [k for k in default.attributes if k.startswith("agent_hooks.event.")] == ["agent_hooks.event.tool_name"]
    assert secret.attributes["agent_hooks.event.arguments.password"] == "[REDACTED:key]"


def test_metrics_per_hook_and_plugin(memory: Any) -> None:
    _, reader = memory
    rt = otel_rt(None, ("guard", agent_hooks_guard), ("broken", Broken()))
    for command in ("ls", "rm -rf ~", "sudo ls"):
        rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    rt.fire("pre_tool_output", {"tool_name": "bash", "output": "ok"})
    got = points(reader)
    calls = {(a["agent_hooks.hook"], a["agent_hooks.decision"]): v for a, v in got["agent_hooks.calls"]}
    assert calls[("pre_tool", "allowed")] + calls.get(("pre_tool", "blocked"), 0) + calls.get(
        ("pre_tool", "denied"), 0) == 3
    blocks = {(a["agent_hooks.hook"], a["agent_hooks.plugin"]): v for a, v in got["agent_hooks.blocks"]}
    assert blocks[("pre_tool", "guard")] == 2
    errors = {(a["agent_hooks.hook"], a["agent_hooks.plugin"]): v for a, v in got["agent_hooks.errors"]}
    assert errors == {("pre_tool_output", "broken"): 1}
    latency = {a["agent_hooks.hook"]: v for a, v in got["agent_hooks.duration"]}
    assert latency["pre_tool"][0] == 3 and latency["pre_tool"][1] > 0
    per_plugin = {(a["agent_hooks.hook"], a["agent_hooks.plugin"]): v for a, v in got["agent_hooks.plugin.duration"]}
    assert per_plugin[("pre_tool", "guard")][0] == 3


def test_excluded_hooks_and_the_sdk_switch(memory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    spans, _ = memory
    otel_rt({"exclude_hooks": ["pre_message"]}).fire("pre_message", {"prompt": "hi"})
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    otel_rt().fire("pre_message", {"prompt": "hi"})
    assert spans.get_finished_spans() == ()


def test_inert_without_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in otel.ENDPOINT_VARS:
        monkeypatch.delenv(var, raising=False)
    otel.setup()
    otel_rt().fire("pre_message", {"prompt": "hi"})
    assert "tracer" not in otel._STATE  # no SDK, no exporter, nothing sent to a guessed localhost
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    assert otel.enabled()


def test_declared_as_an_entry_point_and_cheap_to_import() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group="agent_hooks")}
    assert eps.get("otel") == "agent_hooks_otel"
    code = "import sys, agent_hooks_otel\nprint(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'pydantic'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- a real OTLP/HTTP receiver -------------------------------------------------------------------


class Receiver(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.spans: list[Any] = []
        self.metrics: list[Any] = []
        self.got = threading.Condition()


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        encoding = self.headers.get("Content-Encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        with self.server.got:
            if self.path == "/v1/traces":
                req = ExportTraceServiceRequest()
                req.ParseFromString(body)
                self.server.spans += [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
            elif self.path == "/v1/metrics":
                req_m = ExportMetricsServiceRequest()
                req_m.ParseFromString(body)
                self.server.metrics += [m for rm in req_m.resource_metrics for sm in rm.scope_metrics
                                        for m in sm.metrics]
            self.server.got.notify_all()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_exports_to_a_real_otlp_http_receiver(tmp_path: Path) -> None:
    receiver = Receiver()
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    try:
        code = ("import agent_hooks_otel, agent_hooks_guard\n"
                "from agent_hooks_core import Runtime\n"
                "rt = Runtime(plugins=[('guard', agent_hooks_guard), ('otel', agent_hooks_otel)], session_id='s-1',"
                " host='pi')\n"
                "rt.fire('pre_tool', {'tool_name': 'bash', 'arguments': {'command': 'rm -rf ~'}})\n"
                "rt.fire('pre_message', {'prompt': 'hi'})\n")
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_address[1]}",
               "OTEL_SERVICE_NAME": "agent-hooks-test"}
        # the process exits right away: the SDK's exit flush must deliver the batch
        subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, check=True, timeout=60)
        with receiver.got:
            assert receiver.got.wait_for(lambda: receiver.spans and receiver.metrics, timeout=30)
    finally:
        receiver.shutdown()
        receiver.server_close()
    spans = {s.name: {a.key: a.value for a in s.attributes} for s in receiver.spans}
    blocked = spans["agent_hooks pre_tool"]
    assert blocked["agent_hooks.decision"].string_value == "blocked"
    assert blocked["agent_hooks.decided_by"].string_value == "guard"
    assert blocked["session.id"].string_value == "s-1"
    assert "agent_hooks pre_message" in spans
    names = {m.name for m in receiver.metrics}
    assert {"agent_hooks.calls", "agent_hooks.blocks", "agent_hooks.duration"} <= names
