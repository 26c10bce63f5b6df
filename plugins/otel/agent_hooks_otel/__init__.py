"""agent-hooks-otel: every hook call as an OpenTelemetry span, plus metrics, over OTLP.

Through the runtime's ``hook_called`` meta hook it emits one span per hook call
(``agent_hooks <hook>``: hook, host, session, decision, the plugins called and those that
answered, the plugin that stopped the call, errors, duration) and records metrics: calls, blocks,
errors (counters) and latency (a histogram), each per hook and plugin. Payload fields become span
attributes only where ``payload_fields`` allows, always redacted.

Configuration is OpenTelemetry's own: ``OTEL_EXPORTER_OTLP_ENDPOINT`` (and ``..._TRACES_...``,
``..._METRICS_...``, headers, timeouts), ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_SDK_DISABLED``. Without an endpoint the plugin does nothing (no guessing at a local
collector); an export waits at most ``OTEL_EXPORTER_OTLP_TIMEOUT``, 2 s by default. Spans leave through a ``BatchSpanProcessor`` and metrics through a
``PeriodicExportingMetricReader``: both export from their own threads, so the hook call only
appends to a buffer. The SDK flushes at exit. A host that set up OpenTelemetry itself can pass
its providers to :func:`setup`.

Importing this module is cheap: the SDK loads on the first hook call.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from agent_hooks_core import HookContext, Outcome, hookimpl

__all__ = ["hook_called", "plugin_config_model", "setup", "shutdown"]

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {}


def setup(tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Use these providers (tests: the SDK's in-memory exporter; hosts with their own set-up)
    instead of the ones built from the ``OTEL_*`` environment. ``setup()`` resets to the default."""
    with _LOCK:
        _STATE.clear()
        if tracer_provider is not None or meter_provider is not None:
            _STATE["providers"] = (tracer_provider, meter_provider)


def shutdown() -> None:
    """Flush and stop the providers this plugin built (the SDK also does it at exit)."""
    with _LOCK:
        owned = _STATE.pop("owned", ())
        _STATE.clear()
    for provider in owned:
        provider.shutdown()


#: any of these set means "export"; with none, the plugin stays inert rather than send to a default
#: localhost collector that is usually not there (each exit would wait for it)
ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
#: seconds an export may take when OTEL_EXPORTER_OTLP_TIMEOUT does not say (the SDK's 10 s would
#: hold every short-lived bridge process at exit while a collector is away)
DEFAULT_TIMEOUT = 2.0


def enabled() -> bool:
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return "providers" in _STATE or any(os.environ.get(v) for v in ENDPOINT_VARS)


def _instruments() -> dict[str, Any]:
    with _LOCK:
        if "tracer" in _STATE:
            return _STATE
        tracer_provider, meter_provider = _STATE.get("providers") or _default_providers()
        from . import __name__ as scope

        tracer = tracer_provider.get_tracer(scope, _version())
        meter = meter_provider.get_meter(scope, _version())
        _STATE.update(
            tracer=tracer,
            calls=meter.create_counter("agent_hooks.calls", unit="{call}", description="hook calls"),
            blocks=meter.create_counter("agent_hooks.blocks", unit="{call}",
                                        description="hook calls blocked or denied"),
            errors=meter.create_counter("agent_hooks.errors", unit="{error}", description="plugin errors"),
            latency=meter.create_histogram("agent_hooks.duration", unit="ms", description="hook call latency"),
            plugin_latency=meter.create_histogram("agent_hooks.plugin.duration", unit="ms",
                                                  description="latency of the hook calls each plugin took part in"),
        )
        return _STATE


def _default_providers() -> tuple[Any, Any]:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over this default
    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "agent-hooks"})
    said = any(os.environ.get(f"OTEL_EXPORTER_OTLP{s}_TIMEOUT") for s in ("", "_TRACES", "_METRICS"))
    timeout = None if said else DEFAULT_TIMEOUT  # None: the SDK reads the environment
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(timeout=timeout)))
    meter_provider = MeterProvider(resource=resource, metric_readers=[PeriodicExportingMetricReader(
        OTLPMetricExporter(timeout=timeout))])
    _STATE["owned"] = (tracer_provider, meter_provider)
    return tracer_provider, meter_provider


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("agent-hooks-otel")
    except Exception:  # an uninstalled checkout
        return "0"


_CONFIGS: dict[int, tuple[Any, Any]] = {}


def _config(ctx: HookContext) -> Any:
    raw = ctx.config
    hit = _CONFIGS.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    from .options import OtelOptions

    opts = OtelOptions.from_raw(raw)
    if len(_CONFIGS) > 64:
        _CONFIGS.clear()
    _CONFIGS[id(raw)] = (raw, opts)
    return opts


@hookimpl
def hook_called(outcome: Outcome, ctx: HookContext) -> None:
    opts = _config(ctx)
    if outcome.hook in opts.exclude_hooks or not enabled():
        return
    inst = _instruments()
    redact = opts.redactor.text
    decision = outcome.decision
    answered = list(outcome.answered)
    handlers = list(outcome.handlers)
    stopped_by = getattr(outcome, "stopped_by", None) or (
        answered[-1] if decision in ("blocked", "denied") and answered else None)
    end = time.time_ns()
    start = end - int(outcome.duration * 1e9)
    attrs: dict[str, Any] = {
        "agent_hooks.hook": outcome.hook,
        "agent_hooks.host": redact(str(ctx.host or "")),
        "agent_hooks.decision": decision,
        "agent_hooks.plugins.called": handlers,
        "agent_hooks.plugins.answered": answered,
        "agent_hooks.error_count": len(outcome.errors),
    }
    if ctx.session_id:
        attrs["session.id"] = redact(str(ctx.session_id))
    if stopped_by:
        attrs["agent_hooks.decided_by"] = stopped_by
    reason = getattr(outcome, "reason", None)
    if reason:
        attrs["agent_hooks.reason"] = redact(str(reason))
    for name, value in opts.payload(dict(outcome.event)).items():
        attrs[f"agent_hooks.event.{name}"] = value
    span = inst["tracer"].start_span(f"agent_hooks {outcome.hook}", start_time=start, attributes=attrs)
    from opentelemetry.trace import Status, StatusCode

    for err in outcome.errors:
        span.add_event("agent_hooks.error", {"agent_hooks.plugin": str(err.plugin),
                                             "message": redact(str(err.message)), "kind": str(err.kind)})
    if outcome.errors:
        span.set_status(Status(StatusCode.ERROR, redact(str(outcome.errors[0].message))[:256]))
    span.end(end_time=end)

    ms = outcome.duration * 1000
    host = attrs["agent_hooks.host"]
    base = {"agent_hooks.hook": outcome.hook, "agent_hooks.host": host}
    inst["calls"].add(1, {**base, "agent_hooks.decision": decision})
    inst["latency"].record(ms, base)
    for plugin in handlers:  # per plugin: the calls it took part in (the runtime times calls, not handlers)
        inst["plugin_latency"].record(ms, {**base, "agent_hooks.plugin": plugin})
    if decision in ("blocked", "denied"):
        inst["blocks"].add(1, {**base, "agent_hooks.plugin": stopped_by or "(none)", "agent_hooks.decision": decision})
    for err in outcome.errors:
        inst["errors"].add(1, {**base, "agent_hooks.plugin": str(err.plugin)})


@hookimpl
def plugin_config_model() -> Any:
    from .config import OtelConfig

    return OtelConfig
