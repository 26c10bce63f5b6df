"""A third-party distribution adds an agent host without touching core: one ``register_hosts``
module named in the ``agent_hooks.hosts`` entry-point group. Built as a real wheel, installed into a
fresh venv next to agent-hooks-core, and driven end to end: ``agenthooks hosts`` lists it,
``agenthooks install`` writes its configuration, the command written there answers an event
(a block from a user plugin, an allow otherwise), ``doctor`` checks its wiring and ``uninstall``
leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.support import environ
from tests.support.venvs import Venv, Wheelhouse

PACKAGE = {
    "__init__.py": '''
        """Toy Agent: a host that runs a command per event from ~/.toyagent/hooks.json."""

        from agent_hooks_core import hookimpl
        from agent_hooks_core.bridges.record import Cap, Config, Host

        HOST = Host(
            name="toyagent",
            title="Toy Agent",
            aliases=("toy",),
            adapter="agent_hooks_toyagent.adapter:ADAPTER",
            installer="agent_hooks_toyagent.install:INSTALLER",
            command="agent_hooks_toyagent.adapter:main",
            executable="toyagent",
            transport="command hook per event (hooks.json)",
            transports=("command", "http", "socket"),
            config=Config("json", ("user", "project"), "~/.toyagent/hooks.json, or .toyagent/hooks.json"),
            events=("BeforeTool", "AfterTool", "Notice"),
            capabilities={"pre_tool": Cap("BeforeTool", block=True, closed=True), "post_tool": Cap("AfterTool")},
            failure="exit 2 blocks BeforeTool; other events go on",
            docs="toyagent.md",
        )


        @hookimpl
        def register_hosts():
            return [HOST]
    ''',
    "adapter.py": '''
        from agent_hooks_core.bridges.base import HostAnswer
        from agent_hooks_core.bridges.hostkit import gate as g
        from agent_hooks_core.bridges.hostkit.adapter import Adapter, fail_reason


        class ToyAdapter(Adapter):
            name = "toyagent"
            TITLE = "Toy Agent"
            GATING = frozenset({"BeforeTool"})

            def on_BeforeTool(self, turn):
                tool, args = turn.tool()
                verdict = g.gate(turn.rt, tool, args, None, lambda a: [])
                turn.errors.extend(verdict.errors)
                if verdict.blocked:
                    return HostAnswer(body={"decision": "deny", "reason": verdict.reason}, blocked=True)
                return HostAnswer(body={"decision": "allow"})

            def on_AfterTool(self, turn):
                tool, args = turn.tool()
                turn.fire("post_tool", {"tool_name": tool, "arguments": args, "result": turn.event.get("result")})
                return HostAnswer()

            def failure(self, event_name, problem):
                if event_name in self.GATING or event_name is None:
                    reason = fail_reason(problem)
                    return HostAnswer(body={"decision": "deny", "reason": reason}, stderr=[reason], exit_code=2,
                                      blocked=True)
                return HostAnswer(stderr=[f"agenthooks toyagent: {problem}"], exit_code=1)


        ADAPTER = ToyAdapter()


        def main(argv):
            from agent_hooks_core.bridges.hostkit.command import main as command_main

            return command_main(ADAPTER, argv, "Toy Agent")
    ''',
    "install.py": '''
        import os
        from pathlib import Path

        from agent_hooks_core.bridges.hostkit.installer import HooksFile
        from agent_hooks_core.bridges.hostkit.jsonconfig import InstallError


        class ToyInstaller(HooksFile):
            host = "toyagent"
            title = "Toy Agent"
            events = ("BeforeTool", "AfterTool")
            gating = frozenset({"BeforeTool"})

            def path(self, scope, project_dir=None, environ=None):
                env = os.environ if environ is None else environ
                if scope == "user":
                    return Path(env.get("HOME") or Path.home()) / ".toyagent" / "hooks.json"
                if scope == "project":
                    return Path(os.path.abspath(project_dir or os.getcwd())) / ".toyagent" / "hooks.json"
                raise InstallError(f"unknown scope {scope!r}: use user or project")


        INSTALLER = ToyInstaller()
    ''',
}

PYPROJECT = """
    [build-system]
    requires = ["setuptools>=61"]
    build-backend = "setuptools.build_meta"

    [project]
    name = "agent-hooks-toyagent"
    version = "1.0"
    dependencies = ["agent-hooks-core"]

    [project.entry-points."agent_hooks.hosts"]
    toyagent = "agent_hooks_toyagent"

    [tool.setuptools]
    packages = ["agent_hooks_toyagent"]
"""

#: a user plugin (a hook file in AGENT_HOOKS_HOME/hooks) that blocks one command
BLOCKER = """
from agent_hooks_core import hookimpl


@hookimpl
def pre_tool(event):
    if "rm -rf" in str(event.arguments.get("command", "")):
        return {"block": True, "reason": "no rm -rf here"}
"""


def make_host_project(root: Path) -> Path:
    project = root / "agent-hooks-toyagent"
    package = project / "agent_hooks_toyagent"
    package.mkdir(parents=True)
    for name, source in PACKAGE.items():
        (package / name).write_text(textwrap.dedent(source).lstrip())
    (project / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    return project


def agenthooks(venv: Venv, *args: str | Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = venv.run(venv.bin("agenthooks"), *args, env=env, cwd=Path(env["HOME"]))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def run_hook(command: str, event: dict, env: dict[str, str], venv: Venv) -> tuple[int, object, str]:
    """Run the hook command exactly as the host would: through the shell, the event on stdin;
    (exit code, the JSON answer or None, stderr)."""
    full = environ.without(drop=("PYTHONPATH",))
    full.update(env)
    full["PATH"] = f"{venv.path / 'bin'}:{os.environ.get('PATH', '')}"
    proc = subprocess.run(command, shell=True, input=json.dumps(event), capture_output=True, text=True,
                          env=full, timeout=120, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None, proc.stderr


@pytest.mark.slow
def test_a_host_from_a_wheel_is_listed_installed_and_answers(fresh_venv, wheelhouse: Wheelhouse, tmp_path: Path):
    wheel = wheelhouse.build(make_host_project(tmp_path / "src"))
    assert wheel.name.startswith("agent_hooks_toyagent-1.0-")
    venv = fresh_venv("agent-hooks-core", wheel)
    home, ah_home = tmp_path / "home", tmp_path / "ah"
    (ah_home / "hooks").mkdir(parents=True)
    (ah_home / "hooks" / "blocker.py").write_text(BLOCKER)
    home.mkdir()
    env = {"HOME": str(home), "AGENT_HOOKS_HOME": str(ah_home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    (tmp_path / "run").mkdir(mode=0o700)
    try:
        drive(venv, env, home, tmp_path)
    finally:  # the installed command starts the warm server for the next event
        agenthooks(venv, "serve", "stop", env=env)


def drive(venv: Venv, env: dict[str, str], home: Path, tmp_path: Path) -> None:
    code, out, err = agenthooks(venv, "trust", env=env)  # user hook files load once pinned
    assert code == 0, out + err
    # listed, with what the record declares, next to the first-party hosts
    code, out, err = agenthooks(venv, "hosts", "--json", env=env)
    assert code == 0, err
    rows = {row["host"]: row for row in json.loads(out)["hosts"]}
    assert {"claude-code", "codex", "toyagent"} <= set(rows)
    toy = rows["toyagent"]
    assert toy["title"] == "Toy Agent" and toy["capabilities"]["pre_tool"]["block"] is True
    assert toy["capabilities"]["pre_tool"]["fail_closed"] is True and toy["capabilities"]["on_start"]["fire"] is False

    # installed: a dry run writes nothing, the install writes the two events' handlers
    config = home / ".toyagent" / "hooks.json"
    code, out, err = agenthooks(venv, "install", "toyagent", "--dry-run", env=env)
    assert code == 0 and "BeforeTool" in out and not config.exists(), out + err
    code, out, err = agenthooks(venv, "install", "toyagent", env=env)
    assert code == 0 and "Toy Agent (user) wired to agent-hooks" in out, out + err
    hooks = json.loads(config.read_text())["hooks"]
    assert set(hooks) == {"BeforeTool", "AfterTool"}
    before = hooks["BeforeTool"][0]["hooks"][0]["command"]
    assert "toyagent" in before and "--event BeforeTool" in before

    # the command install wrote answers the host's events
    event = {"hook_event_name": "BeforeTool", "cwd": str(tmp_path), "tool_name": "shell",
             "tool_input": {"command": "rm -rf build"}}
    for _ in range(2):  # a process of its own, then (started by the first) the warm server
        assert run_hook(before, event, env, venv)[:2] == (0, {"decision": "deny", "reason": "no rm -rf here"})
        assert run_hook(before, {**event, "tool_input": {"command": "ls"}}, env, venv)[:2] == \
            (0, {"decision": "allow"})
    code, answer, err = run_hook(before, {"hook_event_name": "BeforeTool"}, env, venv)  # no tool: fail closed
    assert code == 2 and "fail-closed" in err, (answer, err)

    # doctor checks its wiring; the alias reaches it; uninstall leaves nothing of ours
    code, out, err = agenthooks(venv, "doctor", env=env)
    assert "Toy Agent user hooks" in out, out + err
    code, out, err = agenthooks(venv, "uninstall", "toy", env=env)
    assert code == 0 and not config.exists(), out + err


@pytest.mark.slow
def test_a_host_taking_a_first_party_name_is_refused_and_doctor_says_so(fresh_venv, wheelhouse: Wheelhouse,
                                                                         tmp_path: Path):
    project = make_host_project(tmp_path / "src")
    init = project / "agent_hooks_toyagent" / "__init__.py"
    init.write_text(init.read_text().replace('aliases=("toy",)', 'aliases=("codex",)'))
    venv = fresh_venv("agent-hooks-core", wheelhouse.build(project))
    env = {"HOME": str(tmp_path), "AGENT_HOOKS_HOME": str(tmp_path / "ah")}
    code, out, err = agenthooks(venv, "hosts", "--json", env=env)
    hosts = [row["host"] for row in json.loads(out)["hosts"]]
    assert code == 0 and "toyagent" not in hosts and "codex" in hosts, err
    code, out, err = agenthooks(venv, "doctor", env=env)
    assert "the name 'codex' is taken by agent_hooks_core" in out, out + err
