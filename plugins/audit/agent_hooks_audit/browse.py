"""``agenthooks audit browse``: the audit store in datasette (the optional extra
``agent-hooks-audit[browse]``), with the metadata that makes it readable: titles, facets on hook,
decision and plugin, and canned queries ("blocked today", "slowest plugins", "errors by plugin").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BLOCKED_TODAY = """select id, datetime(ts, 'unixepoch', 'localtime') as time, session, hook, decision,
  decided_by as plugin, reason
from events
where decision in ('blocked', 'denied')
  and ts >= cast(strftime('%s', 'now', 'localtime', 'start of day', 'utc') as real)
order by id desc"""

SLOWEST_PLUGINS = """select j.value as plugin, count(*) as calls, round(avg(e.duration_ms), 3) as avg_ms,
  round(max(e.duration_ms), 3) as max_ms
from events e, json_each(e.handlers) j
where json_valid(e.handlers)
group by j.value
order by avg_ms desc"""

ERRORS_BY_PLUGIN = """select json_extract(j.value, '$.plugin') as plugin, e.hook, count(*) as errors,
  max(datetime(e.ts, 'unixepoch', 'localtime')) as last_seen
from events e, json_each(e.errors) j
where e.error_count > 0 and json_valid(e.errors)
group by 1, 2
order by errors desc"""


def metadata(db: Path) -> dict[str, Any]:
    """datasette's metadata for the audit database ``db`` (datasette names a database by its stem)."""
    return {
        "title": "agent-hooks audit",
        "description": "Every hook call of every agent: what it decided, which plugin decided, errors, timing.",
        "databases": {db.stem: {
            "title": "Audit log",
            "tables": {
                "events": {
                    "title": "Hook calls",
                    "description": "One row per hook call or host event; secrets were redacted before storing.",
                    "sort_desc": "id",
                    "facets": ["hook", "decision", "decided_by", {"array": "handlers"}],
                    "label_column": "hook",
                    "columns": {"ts": "unix time", "decided_by": "the plugin whose answer blocked or denied",
                                "handlers": "plugins called (JSON list)", "answered": "plugins whose answer counted",
                                "duration_ms": "time the hook call took"},
                },
                "meta": {"hidden": True},
            },
            "queries": {
                "blocked_today": {"title": "Blocked today", "sql": BLOCKED_TODAY,
                                  "description": "Calls blocked or denied since local midnight"},
                "slowest_plugins": {"title": "Slowest plugins", "sql": SLOWEST_PLUGINS,
                                    "description": "Average and worst latency of the calls each plugin took part in"},
                "errors_by_plugin": {"title": "Errors by plugin", "sql": ERRORS_BY_PLUGIN,
                                     "description": "Plugin errors per plugin and hook"},
            },
        }},
    }


def command(db: Path, metadata_file: Path, host: str, port: int, open_browser: bool, get: str | None) -> list[str]:
    """The ``datasette serve`` command line (``get``: answer that one path and exit, for scripts)."""
    import sys

    metadata_file.write_text(json.dumps(metadata(db), indent=2), encoding="utf-8")
    args = [sys.executable, "-m", "datasette", "serve", str(db), "--metadata", str(metadata_file)]
    if get:
        return [*args, "--get", get]
    args += ["--host", host, "--port", str(port)]
    if open_browser:
        args.append("--open")
    return args
