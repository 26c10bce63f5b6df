"""Settings cannot quietly switch a gating plugin off.

A required plugin that does not load, a misspelled AGENT_HOOKS_PLUGINS name or an organisation
policy that cannot be had make every gating hook deny, in every path; an untrusted project's
settings cannot weaken a gating plugin; an organisation's policy beats user and project files.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_hooks_core import Runtime

from .loading_support import RM_ROOT, agenthooks, write

READ_ENV = {"tool_name": "read", "path": "/etc/passwd"}


def blocked_in_every_path(cwd: Path, home: Path, why: str, **env: str) -> None:
    """`agenthooks fire`, Runtime.fire and Runtime.afire all block rm -rf / and deny a file read."""
    run = agenthooks("fire", "pre_tool", cwd=cwd, home=home, data=RM_ROOT, **env)
    assert run.json["block"] is True and why in run.json["message"], run
    denied = agenthooks("fire", "pre_file_read", cwd=cwd, home=home, data=READ_ENV, **env).json
    assert denied["denied"] is True and why in denied["reason"]


@pytest.mark.parametrize("mistake", [
    '[plugins.guard]\nmode = "obsrve"\n',                         # a typo: guard fails to configure
    'disabled = ["guard"]\n',                                      # the user's own file disables it
    '[plugins.guard]\nno_such_option = 1\nmode = "enforce"\n',     # an unknown option
])
def test_a_required_plugin_that_does_not_load_makes_gating_hooks_deny(
        home: Path, project: Path, mistake: str) -> None:
    write(home / "settings.toml", 'required = ["guard"]\n' + mistake)
    rt = Runtime.from_settings()
    if "disabled" in mistake:  # required wins over the user's own `disabled`
        assert "guard" in rt.plugins and "required-gate" not in rt.plugins
        return
    assert rt.plugin_info["guard"].status == "failed" and rt.plugin_info["guard"].required
    reason = "required plugin 'guard'"
    for outcome in (rt.fire("pre_tool", RM_ROOT), asyncio.run(rt.afire("pre_tool", RM_ROOT))):
        assert outcome.decision == "blocked" and reason in (outcome.result.message or "")
    harmless = {"tool_name": "bash", "arguments": {"command": "ls"}}
    assert rt.fire("pre_tool", harmless).decision == "blocked"  # nothing gets through
    assert rt.fire("pre_file_write", {"tool_name": "write", "path": "x"}).result.denied is True
    assert rt.fire("turn_start", {}).decision != "blocked"  # observing hooks still run
    blocked_in_every_path(project, home, reason)
    doctor = agenthooks("doctor", cwd=project, home=home)
    assert doctor.code == 1 and "gating hooks deny every call" in doctor.out


def test_a_required_plugin_switched_off_for_one_run_still_gates(home: Path, project: Path) -> None:
    write(home / "settings.toml", 'required = ["agent-hooks-guard"]\n')
    rt = Runtime.from_settings(disabled_extra=["guard"])
    assert rt.plugin_info["guard"].status == "disabled"
    assert rt.fire("pre_tool", RM_ROOT).decision == "blocked"
    assert "required-gate" not in Runtime.from_settings().plugins


def test_a_required_plugin_that_is_not_installed_is_named_with_a_suggestion(home: Path, project: Path) -> None:
    write(home / "settings.toml", 'required = ["gaurd"]\n')
    rt = Runtime.from_settings()
    message = rt.fire("pre_tool", RM_ROOT).result.message or ""
    assert "required plugin 'gaurd'" in message and "did you mean 'guard'?" in message


def test_a_misspelled_agent_hooks_plugins_name_is_an_error_and_gates(home: Path, project: Path) -> None:
    run = agenthooks("plugins", "list", cwd=project, home=home, AGENT_HOOKS_PLUGINS="gaurd")
    assert "AGENT_HOOKS_PLUGINS names 'gaurd', which is not installed (did you mean 'guard'?)" in run.err
    blocked_in_every_path(project, home, "did you mean 'guard'?", AGENT_HOOKS_PLUGINS="gaurd")
    allowed = agenthooks("fire", "pre_tool", cwd=project, home=home, AGENT_HOOKS_PLUGINS="guard",
                         data={"tool_name": "bash", "arguments": {"command": "ls"}})
    assert allowed.code == 0 and not allowed.json.get("block")


@pytest.mark.parametrize("weakening", [
    'disabled = ["guard"]\n',
    '[plugins.guard]\nmode = "observe"\n',
    '[plugins.guard]\nallow_commands = [".*"]\n',
    "[timeouts]\npre_tool = 0\n",
])
def test_an_untrusted_project_cannot_weaken_the_guard(home: Path, project: Path, weakening: str) -> None:
    # the agent writes .agent-hooks/settings.toml, then runs rm -rf
    settings = write(project / ".agent-hooks/settings.toml", weakening)
    run = agenthooks("fire", "pre_tool", cwd=project, home=home, data=RM_ROOT)
    assert run.json["block"] is True and "[guard:" in run.json["message"]
    notice = [line for line in run.err.splitlines() if "ignored" in line]
    assert len(notice) == 1 and str(settings) in notice[0] and "not trusted" in notice[0]
    rt = Runtime.from_settings()
    assert "pre_tool" not in rt.timeouts and rt.fire("pre_tool", RM_ROOT).decision == "blocked"


def test_an_untrusted_project_cannot_switch_the_stop_gate_off_or_raise_its_limit(home: Path, project: Path) -> None:
    write(home / "settings.toml", "stop_gate_limit = 2\n")
    for value in (0, 1000):  # 0 switches quality gates off; a big one lets the agent loop longer
        settings = write(project / ".agent-hooks/settings.toml", f"stop_gate_limit = {value}\n")
        assert Runtime.from_settings().stop_gate_limit == 2
        run = agenthooks("fire", "turn_start", cwd=project, home=home, data={})
        assert any("ignored" in line and str(settings) in line for line in run.err.splitlines())
    assert agenthooks("trust", cwd=project, home=home).code == 0  # the user's decision: it applies
    assert Runtime.from_settings().stop_gate_limit == 1000


def test_a_trusted_projects_policy_applies_until_the_agent_changes_it(home: Path, project: Path) -> None:
    settings = write(project / ".agent-hooks/settings.toml", 'disabled = ["guard"]\n')
    assert str(settings) in agenthooks("doctor", cwd=project, home=home).out
    assert agenthooks("trust", cwd=project, home=home).code == 0  # the user's decision: it applies
    assert not agenthooks("fire", "pre_tool", cwd=project, home=home, data=RM_ROOT).json.get("block")
    settings.write_text('disabled = ["guard", "audit", "otel"]\n')  # the agent edits it after trust: ignored again
    run = agenthooks("fire", "pre_tool", cwd=project, home=home, data=RM_ROOT)
    assert run.json["block"] is True and "changed since the project was trusted" in run.err


# -- the organisation's policy over http ---------------------------------------------------------


class PolicyServer:
    """A real HTTP server on 127.0.0.1 serving one policy file; counts its requests."""

    def __init__(self) -> None:
        self.body = b""
        self.requests = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(outer.body)))
                self.end_headers()
                self.wfile.write(outer.body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/agent-hooks.toml"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def publish(self, text: str) -> str:
        self.body = text.encode()
        return hashlib.sha256(self.body).hexdigest()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def org() -> Iterator[PolicyServer]:
    server = PolicyServer()
    yield server
    server.stop()


ORG_POLICY = """
required = ["guard"]
disabled = ["audit"]
[plugins.guard]
mode = "enforce"
"""


def user_points_at(home: Path, url: str, pin: str, extra: str = "") -> None:
    write(home / "settings.toml", f'organisation = {{ url = "{url}", sha256 = "{pin}" }}\n{extra}')


def test_an_organisation_policy_cannot_be_weakened_by_user_or_project(
        home: Path, project: Path, org: PolicyServer) -> None:
    pin = org.publish(ORG_POLICY)
    user_points_at(home, org.url, pin, extra='enabled = ["audit"]\n[plugins.guard]\nmode = "observe"\n')
    write(project / ".agent-hooks/settings.toml", 'disabled = ["guard"]\n')
    assert agenthooks("trust", cwd=project, home=home).code == 0  # even a trusted project
    listed = {r["name"]: r for r in agenthooks("plugins", "list", "--json", cwd=project, home=home).json}
    assert listed["guard"]["status"] == "loaded"
    assert listed["guard"]["required"] == f"organisation policy {org.url}"
    assert listed["audit"]["status"] == "disabled"
    assert listed["audit"]["reason"] == f"disabled by organisation policy {org.url}"
    run = agenthooks("fire", "pre_tool", cwd=project, home=home, data=RM_ROOT)
    assert run.json["block"] is True  # the user's mode = "observe" is under the organisation's "enforce"
    info = agenthooks("plugins", "info", "guard", "--json", cwd=project, home=home).json
    assert info["settings_files"][-1] == f"organisation policy {org.url}"
    doctor = agenthooks("doctor", cwd=project, home=home).out
    assert f"organisation policy: {org.url}" in doctor and "required: guard (in organisation policy" in doctor
    enable = agenthooks("plugins", "enable", "audit", "--project", cwd=project, home=home)
    assert f"still disabled by organisation policy {org.url}, which user and project settings cannot" in enable.out
    assert org.requests == 1  # fetched once, then cached until the refresh is due


def test_an_organisation_policy_is_cached_verified_and_refreshed(
        home: Path, project: Path, org: PolicyServer) -> None:
    pin = org.publish(ORG_POLICY)
    user_points_at(home, org.url, pin)
    assert agenthooks("fire", "pre_tool", cwd=project, home=home, data=RM_ROOT).json["block"] is True
    org.stop()  # the server goes away: the cached, pinned copy stays in effect
    listed = {r["name"]: r for r in agenthooks("plugins", "list", "--json", cwd=project, home=home).json}
    assert listed["audit"]["status"] == "disabled"

    record = home / "cache" / "organisation" / f"{pin}.json"
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "checked": 0}))  # the refresh is due, the server is down
    run = agenthooks("plugins", "list", "--json", cwd=project, home=home)
    assert run.code == 0 and {r["name"]: r["status"] for r in run.json}["audit"] == "disabled"

    (home / "cache" / "organisation" / f"{pin}.toml").write_text("disabled = []\n")  # tampered cache
    blocked_in_every_path(project, home, f"organisation policy {org.url}: cannot fetch")


def test_a_changed_organisation_file_keeps_the_pinned_copy_and_says_so(
        home: Path, project: Path, org: PolicyServer) -> None:
    pin = org.publish(ORG_POLICY)
    user_points_at(home, org.url, pin)
    agenthooks("plugins", "list", cwd=project, home=home)
    org.publish(ORG_POLICY.replace('disabled = ["audit"]', "disabled = []"))
    record = home / "cache" / "organisation" / f"{pin}.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "checked": 0}))
    run = agenthooks("plugins", "list", "--json", cwd=project, home=home)
    assert {r["name"]: r["status"] for r in run.json}["audit"] == "disabled"
    assert "update organisation.sha256 in your user settings" in run.err


def test_a_wrong_pin_with_nothing_cached_makes_gating_hooks_deny(
        home: Path, project: Path, org: PolicyServer) -> None:
    org.publish(ORG_POLICY)
    user_points_at(home, org.url, "0" * 64)
    blocked_in_every_path(project, home, "not the pinned")
    assert "gating hooks deny until it is fixed" in agenthooks("doctor", cwd=project, home=home).out
