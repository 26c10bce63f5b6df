"""``agenthooks audit report --html FILE``: one self-contained page (no network, no external
script) with charts of calls, blocks and latency per hook and plugin over time.

The numbers come from :func:`agent_hooks_audit.cli.compute_stats`, the function behind
``audit stats``, so the page and the command always agree. The data travels as JSON inside the
page and a small inline script draws the charts as SVG (one ``<rect>`` per bar), so a browser test
can tell that they rendered.
"""

from __future__ import annotations

import html
import json
import math
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from .cli import compute_stats


def _bucket_seconds(span: float) -> int:
    for size in (60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400):
        if span / size <= 48:
            return size
    return 30 * 86400


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, math.ceil(q * len(ordered)) - 1)
    return round(ordered[k], 3)


def report_data(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Everything the page shows: the ``stats`` numbers and the series of the charts."""
    rows = list(rows)
    stats = compute_stats(rows)
    if not rows:
        return {"stats": stats, "buckets": [], "calls": {}, "blocks": {}, "latency_hook": [], "latency_plugin": []}
    first, last = min(r["ts"] for r in rows), max(r["ts"] for r in rows)
    size = _bucket_seconds(max(last - first, 1.0))
    start = math.floor(first / size) * size
    count = int((last - start) // size) + 1
    calls: dict[str, list[int]] = defaultdict(lambda: [0] * count)
    blocks: dict[str, list[int]] = defaultdict(lambda: [0] * count)
    by_hook: dict[str, list[float]] = defaultdict(list)
    by_plugin: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        i = int((r["ts"] - start) // size)
        calls[r["hook"]][i] += 1
        if r.get("decision") in ("blocked", "denied"):
            blocks[r.get("decided_by") or "(no handler)"][i] += 1
        ms = float(r.get("duration_ms") or 0.0)
        by_hook[r["hook"]].append(ms)
        for plugin in r.get("handlers") or []:
            by_plugin[str(plugin)].append(ms)
    fmt = "%H:%M" if size < 86400 else "%m-%d"
    buckets = [datetime.fromtimestamp(start + i * size).strftime(fmt) for i in range(count)]

    def latency(groups: dict[str, list[float]]) -> list[dict[str, Any]]:
        return sorted(({"name": k, "calls": len(v), "p50": _percentile(v, 0.5), "p95": _percentile(v, 0.95),
                        "max": round(max(v), 3)} for k, v in groups.items()), key=lambda d: -d["p95"])

    return {"stats": stats, "bucket_seconds": size, "buckets": buckets, "calls": dict(calls),
            "blocks": dict(blocks), "latency_hook": latency(by_hook), "latency_plugin": latency(by_plugin)}


def render(data: dict[str, Any], source: str) -> str:
    stats = data["stats"]
    d = stats["decisions"]
    cards = [("total", "calls", stats["total"]), ("sessions", "sessions", stats["sessions"]),
             *((f"decision-{k}", k, d[k]) for k in ("blocked", "denied", "modified", "allowed", "observed")),
             ("errors", "errors", stats["errors"])]
    card_html = "".join(f'<div class="card"><b data-stat="{k}">{v}</b><span>{html.escape(label)}</span></div>'
                        for k, label, v in cards)
    cols = ("calls", "answered", "blocked", "denied", "modified", "errors", "would_block")
    head = "".join(f"<th>{c.replace('_', ' ')}</th>" for c in ("plugin", "hook", *cols))
    body = "".join(
        f'<tr data-plugin="{html.escape(r["plugin"])}" data-hook="{html.escape(r["hook"])}">'
        f"<td>{html.escape(r['plugin'])}</td><td>{html.escape(r['hook'])}</td>"
        + "".join(f'<td data-col="{c}">{r[c]}</td>' for c in cols) + "</tr>"
        for r in stats["by_plugin"])
    payload = json.dumps(data, ensure_ascii=False, default=str).replace("<", "\\u003c")
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return _PAGE.format(source=html.escape(source), made=made, cards=card_html, head=head, body=body,
                        payload=payload)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>agent-hooks audit report</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }}
h1 {{ font-size: 20px; margin: 0 0 4px; }} h2 {{ font-size: 16px; margin: 28px 0 8px; }}
.meta {{ color: #666; }}
.cards {{ display: flex; flex-wrap: wrap; gap: 8px; margin-top: 12px; }}
.card {{ border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; min-width: 80px; }}
.card b {{ display: block; font-size: 20px; }} .card span {{ color: #666; }}
table {{ border-collapse: collapse; }} td, th {{ border-bottom: 1px solid #eee; padding: 3px 8px; text-align: right; }}
td:nth-child(-n+2), th:nth-child(-n+2) {{ text-align: left; }}
.chart svg {{ border: 1px solid #eee; background: #fff; }}
.legend span {{ margin-right: 12px; white-space: nowrap; }} .legend i {{ display: inline-block; width: 10px;
  height: 10px; margin-right: 4px; }}
</style></head><body>
<h1>agent-hooks audit report</h1>
<div class="meta">{source} &middot; made {made}</div>
<div class="cards">{cards}</div>
<h2>Calls per hook over time</h2><div class="chart" id="chart-calls"></div>
<h2>Blocks and denials per plugin over time</h2><div class="chart" id="chart-blocks"></div>
<h2>Latency per hook (ms: p50, p95)</h2><div class="chart" id="chart-latency-hook"></div>
<h2>Latency per plugin (ms, the calls it took part in: p50, p95)</h2><div class="chart" id="chart-latency-plugin"></div>
<h2>Per plugin and hook (as <code>agenthooks audit stats</code>)</h2>
<table id="by-plugin"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>
<script type="application/json" id="report-data">{payload}</script>
<script>
(function () {{
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                "#9c755f", "#bab0ac"];
  function el(name, attrs, parent) {{
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }}
  function legend(host, names) {{
    var div = document.createElement("div"); div.className = "legend";
    names.forEach(function (n, i) {{
      var s = document.createElement("span"), sw = document.createElement("i");
      sw.style.background = COLORS[i % COLORS.length]; s.appendChild(sw); s.appendChild(document.createTextNode(n));
      div.appendChild(s);
    }});
    host.appendChild(div);
  }}
  function empty(host) {{ host.setAttribute("data-bars", "0"); host.appendChild(document.createTextNode("no data")); }}
  function stacked(id, buckets, series) {{
    var host = document.getElementById(id), names = Object.keys(series);
    if (!names.length || !buckets.length) return empty(host);
    var W = 760, H = 220, L = 40, B = 24, n = buckets.length, totals = buckets.map(function (_, i) {{
      return names.reduce(function (a, k) {{ return a + series[k][i]; }}, 0); }});
    var max = Math.max.apply(null, totals.concat([1])), bw = (W - L - 10) / n, bars = 0;
    var svg = el("svg", {{width: W, height: H, viewBox: "0 0 " + W + " " + H}}, host);
    el("line", {{x1: L, y1: H - B, x2: W - 5, y2: H - B, stroke: "#999"}}, svg);
    el("text", {{x: 4, y: 14, "font-size": 11}}, svg).textContent = String(max);
    buckets.forEach(function (label, i) {{
      var y = H - B;
      names.forEach(function (k, j) {{
        var v = series[k][i]; if (!v) return;
        var h = (H - B - 20) * v / max; y -= h; bars++;
        var r = el("rect", {{x: L + i * bw + 1, y: y, width: Math.max(bw - 2, 1), height: h,
                            fill: COLORS[j % COLORS.length], "data-series": k, "data-value": v}}, svg);
        el("title", {{}}, r).textContent = k + " " + label + ": " + v;
      }});
      if (n <= 12 || i % Math.ceil(n / 12) === 0)
        el("text", {{x: L + i * bw, y: H - 8, "font-size": 10}}, svg).textContent = label;
    }});
    host.setAttribute("data-bars", String(bars));
    legend(host, names);
  }}
  function latency(id, rows) {{
    var host = document.getElementById(id);
    if (!rows.length) return empty(host);
    var W = 760, row = 22, L = 200, H = rows.length * row + 10, bars = 0;
    var max = Math.max.apply(null, rows.map(function (r) {{ return r.p95; }}).concat([0.001]));
    var svg = el("svg", {{width: W, height: H, viewBox: "0 0 " + W + " " + H}}, host);
    rows.forEach(function (r, i) {{
      var y = 5 + i * row, scale = (W - L - 80) / max;
      el("text", {{x: 4, y: y + 14, "font-size": 11}}, svg).textContent = r.name;
      var p95 = el("rect", {{x: L, y: y + 2, width: Math.max(r.p95 * scale, 1), height: row - 6, fill: "#f28e2b",
                            "data-series": "p95", "data-value": r.p95}}, svg);
      el("title", {{}}, p95).textContent = r.name + " p95 " + r.p95 + " ms (" + r.calls + " calls)";
      var p50 = el("rect", {{x: L, y: y + 6, width: Math.max(r.p50 * scale, 1), height: row - 14, fill: "#4e79a7",
                            "data-series": "p50", "data-value": r.p50}}, svg);
      el("title", {{}}, p50).textContent = r.name + " p50 " + r.p50 + " ms";
      el("text", {{x: L + r.p95 * scale + 6, y: y + 14, "font-size": 11}}, svg).textContent = r.p95 + " ms";
      bars += 2;
    }});
    host.setAttribute("data-bars", String(bars));
  }}
  stacked("chart-calls", data.buckets, data.calls);
  stacked("chart-blocks", data.buckets, data.blocks);
  latency("chart-latency-hook", data.latency_hook);
  latency("chart-latency-plugin", data.latency_plugin);
  document.body.setAttribute("data-rendered", "yes");
}})();
</script>
</body></html>
"""
