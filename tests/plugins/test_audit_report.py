"""`agenthooks audit report --html` (checked in real headless Chromium) and `agenthooks audit browse`
(datasette with the audit's metadata)."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import agent_hooks_audit
import agent_hooks_guard
import pytest
from agent_hooks_audit.report import report_data
from agent_hooks_audit.store import Query, store_for
from agent_hooks_core import Runtime, hookimpl
from agent_hooks_core.cli.app import run


class Broken:
    __name__ = "broken"

    @hookimpl
    def pre_tool_output(self, event: Any) -> None:
        raise RuntimeError("boom")


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    db = tmp_path / "audit.db"
    rt = Runtime(plugins=[("guard", agent_hooks_guard), ("broken", Broken()), ("audit", agent_hooks_audit)],
                 plugin_config={"audit": {"db": str(db)}}, session_id="alpha")
    for command in ("ls", "sudo ls", "git push -f origin main", "rm -rf ~", "pwd"):
        rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    rt.fire("pre_file_write", {"path": ".env"})
    for _ in range(2):
        rt.fire("pre_tool_output", {"tool_name": "bash", "output": "ok"})
    rt.fire("pre_message", {"prompt": "hi"})
    conn = sqlite3.connect(db)
    # the rest over two hours, so the charts have several buckets; blocks stay now ("blocked today")
    conn.execute("UPDATE events SET ts = ts - (10 - id) * 900 WHERE decision NOT IN ('blocked', 'denied')")
    conn.commit()
    conn.close()
    return db


def stats_json(db: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert run(["audit", "stats", "--json", "--db", str(db)]) == 0
    return json.loads(capsys.readouterr().out)


def write_report(db: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert run(["audit", "report", "--html", str(out), "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}")
    return out.read_text(encoding="utf-8")


def test_the_page_is_self_contained_and_its_numbers_are_the_stats(
        filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = stats_json(filled, capsys)
    page = write_report(filled, tmp_path / "report.html", capsys)
    assert not re.search(r"<(?:script|img|iframe)[^>]+src=|<link\b|@import|url\(", page)
    shown = dict(re.findall(r'data-stat="([\w-]+)">(\d+)<', page))
    assert int(shown["total"]) == stats["total"] == 9 and int(shown["errors"]) == stats["errors"] == 2
    for decision, n in stats["decisions"].items():
        assert int(shown[f"decision-{decision}"]) == n
    embedded = json.loads(re.search(r'id="report-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    assert embedded["stats"]["by_plugin"] == stats["by_plugin"]


def test_the_chart_series_add_up(filled: Path) -> None:
    data = report_data(store_for(filled).rows(Query()))
    assert sum(map(sum, data["calls"].values())) == data["stats"]["total"]
    blocks = data["stats"]["decisions"]["blocked"] + data["stats"]["decisions"]["denied"]
    assert sum(map(sum, data["blocks"].values())) == blocks
    assert {r["name"] for r in data["latency_plugin"]} == {"guard", "broken"}
    assert len(data["buckets"]) >= 3
    assert all(r["p50"] <= r["p95"] <= r["max"] for r in data["latency_hook"])


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _png_colours(path: Path) -> int:
    """How many different byte values the decoded image rows hold (a blank page has very few)."""
    raw = path.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(raw):
        length, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        if kind == b"IDAT":
            idat += raw[pos + 8:pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat)))


@pytest.mark.slow
def test_the_charts_render_in_headless_chromium(filled: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium to render the page (apt-get install chromium)")
    page = tmp_path / "report.html"
    write_report(filled, page, capsys)
    stats = stats_json(filled, capsys)
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,1800"]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    assert 'data-rendered="yes"' in dom
    bars = dict(re.findall(r'id="(chart-[\w-]+)" data-bars="(\d+)"', dom))
    data = report_data(store_for(filled).rows(Query()))
    assert int(bars["chart-calls"]) == sum(1 for s in data["calls"].values() for v in s if v)
    assert int(bars["chart-blocks"]) == sum(1 for s in data["blocks"].values() for v in s if v) > 0
    assert int(bars["chart-latency-hook"]) == 2 * len(data["latency_hook"])
    assert int(bars["chart-latency-plugin"]) == 2 * len(data["latency_plugin"])
    rendered = dict(re.findall(r'data-stat="([\w-]+)">(\d+)<', dom))
    assert int(rendered["total"]) == stats["total"] and int(rendered["decision-blocked"]) == stats["decisions"]["blocked"]
    shot = tmp_path / "report.png"
    subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 10_000 and _png_colours(shot) > 50
    print(f"screenshot: {shot}", file=sys.stderr)


# -- browse ------------------------------------------------------------------------------------

needs_datasette = pytest.mark.skipif(importlib.util.find_spec("datasette") is None,
                                     reason="datasette is not installed (agent-hooks-audit[browse])")


def browse_get(db: Path, path: str) -> Any:
    out = subprocess.run([sys.executable, "-m", "agent_hooks_core", "audit", "browse", "--db", str(db), "--get", path],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.slow
@needs_datasette
def test_browse_serves_the_log_with_facets_and_canned_queries(filled: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    stats = stats_json(filled, capsys)
    meta = browse_get(filled, "/-/metadata.json")
    tables = meta["databases"]["audit"]["tables"]
    assert tables["events"]["title"] == "Hook calls"
    assert {"hook", "decision", "decided_by"} <= {f for f in tables["events"]["facets"] if isinstance(f, str)}
    page = browse_get(filled, "/audit/events.json?_size=100")
    assert len(page["rows"]) == stats["total"]
    facets = page["facet_results"]
    facets = facets.get("results", facets)
    decisions = {v["value"]: v["count"] for v in facets["decision"]["results"]}
    assert {k: v for k, v in stats["decisions"].items() if v} == decisions
    blocked = browse_get(filled, "/audit/blocked_today.json?_shape=array")
    assert len(blocked) == stats["decisions"]["blocked"] + stats["decisions"]["denied"]
    assert {r["plugin"] for r in blocked} == {"guard"}
    errors = browse_get(filled, "/audit/errors_by_plugin.json?_shape=array")
    assert [(r["plugin"], r["hook"], r["errors"]) for r in errors] == [("broken", "pre_tool_output", 2)]
    slowest = browse_get(filled, "/audit/slowest_plugins.json?_shape=array")
    assert {r["plugin"] for r in slowest} >= {"guard", "broken"}


def test_browse_without_datasette_or_on_postgresql_says_so(filled: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(["audit", "browse", "--db", "postgresql://u@127.0.0.1:9/x", "--no-open"]) == 2
    assert "reads the SQLite store" in capsys.readouterr().err
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert run(["audit", "browse", "--db", str(filled), "--no-open"]) == 2
    assert "agent-hooks-audit[browse]" in capsys.readouterr().err


@pytest.mark.slow
@needs_datasette
def test_browse_serves_on_127_0_0_1_and_stops_with_its_process(filled: Path, tmp_path: Path) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "agent_hooks_core", "audit", "browse", "--db", str(filled),
                             "--no-open", "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline, body = time.monotonic() + 60, None
        while body is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/audit/errors_by_plugin.json?_shape=array",
                                            timeout=5) as r:
                    body = json.loads(r.read())
            except OSError:
                time.sleep(0.2)  # polling for the server to listen, not synchronising on a guess
        assert body is not None, proc.stderr.read().decode() if proc.poll() is not None else "no answer"
        assert body[0]["plugin"] == "broken"
    finally:
        proc.terminate()  # the command became datasette (exec): this stops the server itself
        proc.wait(timeout=30)
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
