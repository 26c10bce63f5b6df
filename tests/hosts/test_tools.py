"""The tool-side cells of the hosts matrix on the real agents: a probe plugin blocks a file read, a
file write and a URL fetch, and raises on others (its hook must then fail closed), and replaces or
blocks a tool's output. One agent session per host runs every step that host claims.

The steps are one table (:data:`STEPS`); each host maps the steps it claims to its own tool calls
and runs them with its own fake model. The checks are the same everywhere: a blocked or crashed
read never shows the file to the model, a blocked or crashed write leaves no file, a blocked or
crashed fetch never reaches the server, and the model's next request carries the rewritten output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from . import harness
from .fake_anthropic import FakeAnthropic
from .fakemodel.server import LocalServer
from .pins import PINS

#: what the probe plugin does: deny the ``*-blocked`` targets, raise on the ``*-crash`` ones
PROBE = '''
from agent_hooks_core import hookimpl

def _pick(text, kind):
    if f"{kind}-blocked" in text:
        return {"denied": True, "reason": f"no {kind} of that here [tools-probe]"}
    if f"{kind}-crash" in text:
        raise RuntimeError(f"tools-probe exploded on a {kind}")

@hookimpl
def pre_file_read(event):
    return _pick(event.path, "read")

@hookimpl
def pre_file_write(event):
    return _pick(event.path, "write")

@hookimpl
def pre_fetch_url(event):
    return _pick(event.url or event.summary or "", "fetch")

@hookimpl
def pre_tool_output(event):
    blocks = [b.get("text", "") for b in event.content or [] if isinstance(b, dict)]
    text = event.output or "\\n".join(blocks)
    if "output-to-rewrite" in text:
        new = text.replace("output-to-rewrite", "output-rewritten-by-the-probe")
        return {"output": new} if event.output else {"content": [{"type": "text", "text": new}]}
    if "output-to-block" in text:
        return {"block": True, "message": "the probe withheld this output"}
    if "output-to-crash" in text:
        raise RuntimeError("tools-probe exploded on an output")
    if "output-to-die" in text:  # our process dies mid-event
        import os
        os._exit(70)
'''

#: what a file the model must never see holds
UNSEEN = "content-the-model-must-not-see"


@dataclass(frozen=True)
class Step:
    """One scripted tool call: its kind (read, write, fetch, output) and what happens to it."""

    kind: str
    outcome: str  # blocked, crash, rewrite

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.outcome}"

    @property
    def target(self) -> str:
        """The file name (read, write), URL path (fetch) or echoed text (output) of this step."""
        if self.kind == "output":
            return {"rewrite": "output-to-rewrite", "blocked": "output-to-block", "crash": "output-to-crash",
                    "die": "output-to-die"}[self.outcome]
        return f"{self.name}.txt"


STEPS = {s.name: s for s in (Step(k, o) for k in ("read", "write", "fetch") for o in ("blocked", "crash"))}
STEPS.update({s.name: s for s in (Step("output", o) for o in ("rewrite", "blocked", "crash", "die"))})

#: the hook each step kind exercises
HOOK = {"read": "pre_file_read", "write": "pre_file_write", "fetch": "pre_fetch_url", "output": "pre_tool_output"}


class Hits(LocalServer):
    """A web server the fetch steps point at: a blocked fetch must never reach it."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        hits = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hits.paths.append(self.path)
                body = b"<html><body>fetched page</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)


@dataclass
class World:
    """What a session runs in: the agent's HOME and project, the probe file, the web server."""

    home: Path
    probe: Path
    web: Hits

    @property
    def project(self) -> Path:
        return self.home / "project"

    def url(self, step: Step) -> str:
        return f"{self.web.url}/{step.target}"

    def user_hook(self) -> None:
        """The probe as the user's hook file (for hosts whose install takes no ``--hook``)."""
        ah_home = Path(os.environ["AGENT_HOOKS_HOME"])
        (ah_home / "settings.toml").write_text(f"hooks = [{str(self.probe)!r}]\n")
        # a user hook file loads once a person trusted it
        subprocess.run([sys.executable, "-m", "agent_hooks_core", "trust"], cwd=self.home, check=True,
                       capture_output=True, timeout=60)

    def prepare(self, steps: list[Step]) -> None:
        for step in steps:
            if step.kind == "read":
                (self.project / step.target).write_text(f"{UNSEEN} ({step.name})\n")


def check(world: World, steps: list[Step], results: list[str], requests: Any) -> None:
    """What every host must show for ``steps`` (one result per step, in order)."""
    seen = json.dumps(requests)
    assert len(results) >= len(steps), results
    for step, result in zip(steps, results[:len(steps)], strict=True):
        where = f"{step.name}: {result[:400]!r}"
        if step.kind == "read":
            assert UNSEEN not in seen, f"{step.name}: the model saw the file"
        if step.kind == "write":
            assert not (world.project / step.target).exists(), f"{step.name}: the file was written"
        if step.kind == "fetch":
            assert f"/{step.target}" not in world.web.paths, f"{step.name}: the URL was fetched"
        if step.outcome == "blocked" and step.kind != "output":
            assert f"no {step.kind} of that here [tools-probe]" in result, where
        if step.outcome == "crash":
            assert f"{HOOK[step.kind]} fails closed" in result, where
        if step.name == "output-rewrite":
            assert "output-rewritten-by-the-probe" in result and "output-to-rewrite" not in result, where
        if step.outcome == "die":  # the host withholds the output when our process dies
            assert step.target not in result, where
        if step.name == "output-blocked":
            assert "the probe withheld this output" in result and "output-to-block" not in result, where


@pytest.fixture
def world(tmp_path, monkeypatch):
    probe = tmp_path / "tools_probe.py"
    probe.write_text(PROBE)
    with harness.agent_home(tmp_path, monkeypatch) as home, Hits() as web:
        monkeypatch.setenv("AGENT_HOOKS_PLUGINS", "")  # the probe alone decides
        yield World(home, probe, web)


def steps(*names: str) -> list[Step]:
    return [STEPS[n] for n in names]


# -- Claude Code ---------------------------------------------------------------------------------


class ScriptedAnthropic(FakeAnthropic):
    """The Messages API playing a list of tool calls: the n-th tool call of the conversation is
    ``calls[n]`` (counted from the conversation itself, so a retried request gets the same one)."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__("")
        self.calls = calls

    def reply(self, req: dict[str, Any], n: int) -> dict[str, Any]:
        tools = {t.get("name") for t in req.get("tools") or [] if isinstance(t, dict)}
        done = sum(1 for m in req.get("messages") or [] if m.get("role") == "assistant" and isinstance(
            m.get("content"), list) and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in m["content"]))
        if "Bash" in tools and done < len(self.calls):
            name, arguments = self.calls[done]
            block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": name, "input": arguments}
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": self.final}, "end_turn"
        return {"id": f"msg_{n:04d}", "type": "message", "role": "assistant", "model": req.get("model", "fake"),
                "content": [block], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}


def claude_call(world: World, step: Step) -> tuple[str, dict[str, Any]]:
    path = str(world.project / step.target)
    return {
        "read": ("Read", {"file_path": path}),
        "write": ("Write", {"file_path": path, "content": "written\n"}),
        "fetch": ("WebFetch", {"url": world.url(step), "prompt": "summarise"}),
        "output": ("Bash", {"command": f"echo {step.target}", "description": "scripted"}),
    }[step.kind]


@pytest.fixture(scope="module")
def claude(npm_tool) -> Path:
    return npm_tool("@anthropic-ai/claude-code", PINS["claude-code"], "claude")


def run_claude(claude: Path, world: World, todo: list[Step]) -> tuple[list[str], Any]:
    harness.install("claude-code", "--transport", "command")
    world.user_hook()
    with ScriptedAnthropic([claude_call(world, s) for s in todo]) as fake:
        env = {**harness.local_env(AGENT_HOOKS_PLUGINS=""), "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        proc = subprocess.run([str(claude), "-p", "go", "--allowedTools", "Bash,Read,Write,WebFetch"],
                              cwd=world.project, env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        return fake.tool_results(), fake.requests


ALL_STEPS = ("read-blocked", "read-crash", "write-blocked", "write-crash", "fetch-blocked", "fetch-crash",
                "output-rewrite", "output-blocked")


@pytest.mark.proves("claude-code", "pre_file_read", "block", "closed")
@pytest.mark.proves("claude-code", "pre_file_write", "block", "closed")
@pytest.mark.proves("claude-code", "pre_fetch_url", "block", "closed")
@pytest.mark.proves("claude-code", "pre_tool_output", "block", "rewrite")
def test_claude_code_file_fetch_and_output_hooks(claude, world):
    todo = steps(*ALL_STEPS)
    world.prepare(todo)
    results, requests = run_claude(claude, world, todo)
    check(world, todo, results, requests)




BATCH = """
from agent_hooks_core import hookimpl

@hookimpl
def post_tool_batch(event):
    if any("FIRST" in str(c["arguments"].get("command")) for c in event.tool_calls):
        return {"fallback": "call_user"}
"""


@pytest.mark.proves("claude-code", "post_tool_batch", "block")
def test_claude_code_post_tool_batch_returns_control_to_the_user(claude, world):
    """``fallback: call_user`` after a batch ends the turn: the next tool call is never asked for."""
    world.probe.write_text(BATCH)
    calls = [("Bash", {"command": "touch FIRST", "description": "scripted"}),
             ("Bash", {"command": "touch SECOND", "description": "scripted"})]
    harness.install("claude-code", "--transport", "command")
    world.user_hook()
    with ScriptedAnthropic(calls) as fake:
        env = {**harness.local_env(AGENT_HOOKS_PLUGINS=""), "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        proc = subprocess.run([str(claude), "-p", "go", "--allowedTools", "Bash"], cwd=world.project, env=env,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (world.project / "FIRST").exists() and not (world.project / "SECOND").exists()
    assert not fake.tool_results(), fake.tool_results()  # the model was not asked again


# -- OpenCode ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def opencode(npm_tool) -> Path:
    pytest.importorskip("agent_hooks_core.serve.stdio")
    return npm_tool("opencode-ai", PINS["opencode"], "opencode")


def opencode_call(world: World, step: Step) -> tuple[str, str, dict[str, Any]]:
    path = str(world.project / step.target)
    name, arguments = {
        "read": ("read", {"filePath": path}),
        "write": ("write", {"filePath": path, "content": "written\n"}),
        "fetch": ("webfetch", {"url": world.url(step), "format": "text"}),
        "output": ("bash", {"command": f"echo {step.target}", "description": "scripted"}),
    }[step.kind]
    return "call", name, arguments


def run_opencode(opencode: Path, world: World, todo: list[Step]) -> tuple[list[str], Any]:
    from agent_hooks_core.bridges.opencode import install as oc

    from .fake_chat import FakeChat
    from .test_opencode import QUIET

    oc.plan_install("project", world.project, python=sys.executable, args=["--hook", str(world.probe)]).apply()
    with FakeChat([*(opencode_call(world, s) for s in todo), ("text", "ok", None)]) as fake:
        config = {"$schema": "https://opencode.ai/config.json", "model": "fake/m1",
                  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                                        "options": {"baseURL": fake.base_url, "apiKey": "k"},
                                        "models": {"m1": {"name": "m1", "tool_call": True}}}},
                  "permission": {"bash": "allow", "external_directory": "allow", "edit": "allow",
                                 "webfetch": "allow", "read": "allow"}}
        (world.project / "opencode.json").write_text(json.dumps(config))
        env = {**harness.local_env(AGENT_HOOKS_PLUGINS=""), **QUIET, "PWD": str(world.project)}
        env.pop("XDG_CONFIG_HOME", None)
        proc = subprocess.run([str(opencode), "run", "--model", "fake/m1", "go"], cwd=world.project, env=env,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return fake.tool_results(), fake.requests


@pytest.mark.proves("opencode", "pre_file_read", "block", "closed")
@pytest.mark.proves("opencode", "pre_file_write", "block", "closed")
@pytest.mark.proves("opencode", "pre_fetch_url", "block", "closed")
@pytest.mark.proves("opencode", "pre_tool_output", "block", "rewrite")
def test_opencode_file_fetch_and_output_hooks(opencode, world):
    todo = steps(*ALL_STEPS)
    world.prepare(todo)
    results, requests = run_opencode(opencode, world, todo)
    check(world, todo, results, requests)


# -- pi and omp ----------------------------------------------------------------------------------


def pi_call(world: World, step: Step) -> Any:
    from .fakemodel import tool_call

    path = str(world.project / step.target)
    return {
        "read": lambda: tool_call("read", {"path": path}),
        "write": lambda: tool_call("write", {"path": path, "content": "written\n"}),
        "output": lambda: tool_call("bash", {"command": f"echo {step.target}"}),
    }[step.kind]()


@pytest.fixture(scope="module")
def pi_agents(npm_tool) -> dict[str, Any]:
    from .pi_agents import make_agent

    return {host: make_agent(host, npm_tool) for host in ("pi", "omp")}


PI_STEPS = ("read-blocked", "read-crash", "write-blocked", "write-crash", "output-rewrite", "output-blocked")


@pytest.mark.parametrize("host", ["pi", "omp"])
@pytest.mark.proves("pi", "pre_file_read", "block", "closed")
@pytest.mark.proves("pi", "pre_file_write", "block", "closed")
@pytest.mark.proves("pi", "pre_tool_output", "block", "rewrite")
@pytest.mark.proves("omp", "pre_file_read", "block", "closed")
@pytest.mark.proves("omp", "pre_file_write", "block", "closed")
@pytest.mark.proves("omp", "pre_tool_output", "block", "rewrite")
def test_pi_and_omp_file_and_output_hooks(host, pi_agents, world):
    from .fakemodel import FakeModel, say

    todo = steps(*PI_STEPS)
    world.prepare(todo)
    agent = pi_agents[host]
    agent_dir = world.home / f".{host}" / "agent"
    world.user_hook()
    subprocess.run([sys.executable, "-m", "agent_hooks_core", "install", host], env=agent.env(world.home, agent_dir),
                   check=True, capture_output=True, timeout=60)
    with FakeModel([*(pi_call(world, s) for s in todo), say("done")]) as model:
        agent.configure(agent_dir, model.base_url)
        proc = subprocess.run(agent.command("go"), cwd=world.project, env=agent.env(world.home, agent_dir),
                              capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert model.errors == []
    check(world, todo, model.tool_results(), model.requests)


# -- Gemini CLI ----------------------------------------------------------------------------------


def gemini_call(world: World, step: Step) -> tuple[str, str]:
    path = str(world.project / step.target)
    name, arguments = {
        "read": ("read_file", {"file_path": path}),
        "write": ("write_file", {"file_path": path, "content": "written\n"}),
        "fetch": ("web_fetch", {"prompt": f"summarise {world.url(step)}"}),
        "output": ("run_shell_command", {"command": f"echo {step.target}"}),
    }[step.kind]
    return "call", json.dumps({"name": name, "args": arguments})


@pytest.fixture(scope="module")
def gemini(npm_tool) -> Path:
    return npm_tool("@google/gemini-cli", PINS["gemini"], "gemini")


@pytest.mark.proves("gemini", "pre_file_read", "block", "closed")
@pytest.mark.proves("gemini", "pre_file_write", "block", "closed")
@pytest.mark.proves("gemini", "pre_fetch_url", "block", "closed")
@pytest.mark.proves("gemini", "pre_tool_output", "block", "rewrite")
def test_gemini_file_fetch_and_output_hooks(gemini, world):
    from agent_hooks_core.bridges.gemini import install as gm

    from .fake_gemini import FakeGemini

    todo = steps(*ALL_STEPS)
    world.prepare(todo)
    (world.home / ".gemini").mkdir()
    (world.home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    gm.plan_install("user", None, argv=harness.hook_argv("gemini", world.probe)).apply()
    with FakeGemini([*(gemini_call(world, s) for s in todo), ("text", "done")]) as fake:
        env = {**harness.local_env(AGENT_HOOKS_PLUGINS=""), "GOOGLE_GEMINI_BASE_URL": fake.url, "GEMINI_API_KEY": "k",
               "GEMINI_CLI_TRUST_WORKSPACE": "true"}
        env.pop("GEMINI_CLI_TRUSTED_FOLDERS_PATH", None)
        proc = subprocess.run([str(gemini), "-p", "go", "--approval-mode", "yolo", "-o", "json", "-m",
                               "gemini-2.5-flash"], cwd=world.project, env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        check(world, todo, fake.tool_outputs(), fake.requests)


# -- Mistral Vibe --------------------------------------------------------------------------------


def openai_call(tools: dict[str, tuple[str, str]], world: World, step: Step) -> Any:
    """A chat-completions tool call for ``step``: ``tools`` maps a step kind to (tool, path key)."""
    from .fakemodel import tool_call

    name, key = tools[step.kind]
    if step.kind == "output":
        return tool_call(name, {key: f"echo {step.target}"})
    if step.kind == "fetch":
        return tool_call(name, {key: world.url(step)})
    path = str(world.project / step.target)
    return tool_call(name, {key: path, **({"content": "written\n"} if step.kind == "write" else {})})


VIBE_TOOLS = {"read": ("read_file", "path"), "write": ("write_file", "path"), "output": ("bash", "command")}


@pytest.fixture(scope="module")
def vibe(pypi_tool) -> Path:
    return pypi_tool("mistral-vibe", PINS["vibe"], "vibe")


@pytest.mark.proves("vibe", "pre_file_read", "block", "closed")
@pytest.mark.proves("vibe", "pre_file_write", "block", "closed")
@pytest.mark.proves("vibe", "pre_tool_output", "block", "rewrite", "closed")
def test_vibe_file_fetch_and_output_hooks(vibe, world):
    from agent_hooks_core.bridges.vibe import install as vb

    from .fakemodel import FakeModel, say
    from .test_vibe import CONFIG

    todo = steps(*PI_STEPS, "output-die")
    world.prepare(todo)
    (world.home / ".vibe").mkdir()
    vb.plan_install("user", None, argv=harness.hook_argv("vibe", world.probe)).apply()
    with FakeModel([*(openai_call(VIBE_TOOLS, world, s) for s in todo), say("ok")]) as model:
        (world.home / ".vibe" / "config.toml").write_text(CONFIG.format(base=model.base_url))
        env = {k: v for k, v in harness.local_env(FAKE_API_KEY="dummy", AGENT_HOOKS_PLUGINS="").items()
               if k != "VIBE_HOME"}
        results = harness.run_agent([str(vibe), "-p", "go", "--auto-approve", "--output", "json"], world.home, env,
                                    model)
    check(world, todo, results, model.requests)


# -- Qwen Code -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def npm_agents(npm_set) -> Path:
    from .npm_agents import agents

    return agents(npm_set)


@pytest.mark.proves("qwen", "pre_file_write", "block", "closed")
def test_qwen_file_write_hook(npm_agents, world):
    from agent_hooks_core.bridges import qwen

    from .fakemodel import FakeModel, say
    from .npm_agents import base_env, write_json

    cli = npm_agents / "@qwen-code" / "qwen-code" / "cli-entry.js"
    todo = steps("write-blocked", "write-crash")
    write_json(world.home / ".qwen" / "settings.json", {
        "telemetry": {"enabled": False}, "privacy": {"usageStatisticsEnabled": False},
        "general": {"enableAutoUpdate": False}})
    qwen.INSTALLER.plan_install("user", argv=harness.hook_argv("qwen", world.probe)).apply()
    tools = {"write": ("write_file", "file_path")}
    with FakeModel([*(openai_call(tools, world, s) for s in todo), say("ok")]) as model:
        results = harness.run_agent(
            ["node", str(cli), "go", "--auth-type", "openai", "--openai-base-url", model.base_url,
             "--openai-api-key", "dummy", "-m", "fake-model", "--yolo", "-o", "json"], world.home,
            base_env(world.home, AGENT_HOOKS_PLUGINS=""), model)
    check(world, todo, results, model.requests)


# -- Kimi CLI ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kimi(pypi_tool) -> Path:
    return pypi_tool("kimi-cli", PINS["kimi"], "kimi")


KIMI_TOOLS = {"read": ("ReadFile", "path"), "write": ("WriteFile", "path"), "fetch": ("FetchURL", "url")}


@pytest.mark.proves("kimi", "pre_file_read", "block")
@pytest.mark.proves("kimi", "pre_file_write", "block")
@pytest.mark.proves("kimi", "pre_fetch_url", "block")
def test_kimi_file_and_fetch_hooks(kimi, world):
    """Kimi fails open when a hook cannot start, so only the block is claimed; a plugin that raises is
    still a deny of ours."""
    from agent_hooks_core.bridges.kimi import install as km

    from .fakemodel import FakeModel, say
    from .test_kimi import CONFIG

    todo = steps("read-blocked", "read-crash", "write-blocked", "write-crash", "fetch-blocked", "fetch-crash")
    world.prepare(todo)
    (world.home / ".kimi").mkdir()
    km.plan_install(argv=harness.hook_argv("kimi", world.probe)).apply()
    config = world.home / ".kimi" / "config.toml"
    with FakeModel([*(openai_call(KIMI_TOOLS, world, s) for s in todo), say("ok")]) as model:
        config.write_text(CONFIG.format(base=model.base_url) + "\n[[hooks]]" + config.read_text().split("[[hooks]]", 1)[1])
        env = {k: v for k, v in harness.local_env(KIMI_DISABLE_TELEMETRY="1", AGENT_HOOKS_PLUGINS="").items()
               if k != "KIMI_SHARE_DIR"}
        results = harness.run_agent([str(kimi), "--print", "-p", "go", "--output-format", "stream-json"], world.home,
                                    env, model)
    check(world, todo, results, model.requests)


# -- OpenHands -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openhands(pypi_tool) -> Path:
    return pypi_tool("openhands", PINS["openhands"], "openhands", pythons=("python3.12",))


@pytest.mark.proves("openhands", "pre_file_read", "block")
@pytest.mark.proves("openhands", "pre_file_write", "block")
def test_openhands_file_hooks(openhands, world):
    """OpenHands fails open when a hook cannot start, so only the block is claimed."""
    from agent_hooks_core.bridges.openhands import install as oh

    from .fakemodel import say, tool_call
    from .netns import run_in_netns

    todo = steps("read-blocked", "read-crash", "write-blocked", "write-crash")
    world.prepare(todo)
    (world.home / ".openhands").mkdir()
    oh.plan_install("user", None, argv=harness.hook_argv("openhands", world.probe)).apply()

    def call(step: Step) -> Any:
        path = str(world.project / step.target)
        extra = {"command": "create", "file_text": "written\n"} if step.kind == "write" else {"command": "view"}
        return tool_call("file_editor", {"path": path, **extra, "security_risk": "LOW"})

    env = {**harness.local_env(AGENT_HOOKS_PLUGINS=""), "LLM_MODEL": "openai/fake-model", "LLM_API_KEY": "dummy",
           "LLM_BASE_URL": "{BASE}", "OPENHANDS_SUPPRESS_BANNER": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    out = run_in_netns([str(openhands), "--headless", "--json", "--override-with-envs", "-t", "go"],
                       [*(call(s) for s in todo), say("ok")], env, world.project, required=False)
    assert out["returncode"] == 0 and not out["errors"], out["stdout"][-2000:] + out["stderr"][-2000:]
    check(world, todo, out["tool_results"], out["requests"])


# -- Factory Droid -------------------------------------------------------------------------------


@pytest.mark.proves("droid", "pre_file_write", "block")
def test_droid_file_write_hook(npm_agents, world):
    """Droid lets the tool run when a hook fails, so only the block is claimed."""
    from agent_hooks_core.bridges import droid

    from .fakemodel import say, tool_call
    from .netns import run_in_netns
    from .npm_agents import base_env

    cli = npm_agents / "@factory" / "cli-linux-x64" / "bin" / "droid"
    todo = steps("write-blocked", "write-crash")
    droid.INSTALLER.plan_install("user", argv=harness.hook_argv("droid", world.probe)).apply()
    model = {"model": "fake-model", "displayName": "Fake", "baseUrl": "{BASE}", "apiKey": "dummy",
             "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}
    turns = [tool_call("Create", {"file_path": str(world.project / s.target), "content": "written\n"}) for s in todo]
    env = base_env(world.home, FACTORY_OTEL_ENABLED="false", FACTORY_TELEMETRY_INGEST_BASE_URL="http://127.0.0.1:9",
                   AGENT_HOOKS_PLUGINS="")
    out = run_in_netns([str(cli), "exec", "-m", "custom:Fake-0", "--auto", "high", "-o", "json", "go"],
                       [*turns, say("ok")], env, world.project,
                       files={str(world.home / ".factory" / "settings.json"): {"customModels": [model]}})
    assert out["returncode"] == 0 and not out["errors"], out
    check(world, todo, list(out["tool_results"]), out["tool_results"])


# -- Codex ---------------------------------------------------------------------------------------


def _patch(name: str) -> str:
    return f"*** Begin Patch\n*** Add File: {name}\n+written\n*** End Patch\n"


@pytest.fixture(scope="module")
def codex(npm_tool) -> Path:
    return npm_tool("@openai/codex", PINS["codex"], "codex")


@pytest.mark.proves("codex", "pre_file_write", "block", "closed")
@pytest.mark.proves("codex", "pre_tool_output", "block", "rewrite")
def test_codex_file_write_and_output_hooks(codex, world, monkeypatch):
    from agent_hooks_core.bridges.codex import install as cx

    from .fake_responses import FakeResponses

    class Patching(FakeResponses):
        """Also plays ("patch", file name): an apply_patch call in the form the request offers."""

        def events(self, req: dict[str, Any], step: tuple[str, str], n: int) -> list[dict[str, Any]]:
            kind, value = step
            if kind != "patch":
                return super().events(req, step, n)
            tool = next((t for t in req.get("tools") or [] if t.get("name") == "apply_patch"), None)
            assert tool is not None, [t.get("name") for t in req.get("tools") or []]
            if tool.get("type") == "custom":
                item = {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}", "name": "apply_patch",
                        "input": _patch(value), "status": "completed"}
            else:
                item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "apply_patch",
                        "arguments": json.dumps({"input": _patch(value)}), "status": "completed"}
            events = super().events(req, ("text", ""), n)
            events[1]["item"] = item
            events[2]["response"]["output"] = [item]
            return events

        def tool_outputs(self) -> list[str]:
            return [out if isinstance(out, str) else json.dumps(out)
                    for item in (self.requests[-1].get("input") or []) if isinstance(item, dict)
                    and item.get("type") in ("function_call_output", "custom_tool_call_output")
                    for out in [item.get("output")]]

    # each write twice: as an apply_patch call, and as a patch handed to apply_patch in a shell
    # command (which Codex applies itself)
    todo = steps("write-blocked", "write-crash", "write-blocked", "write-crash", "output-rewrite", "output-blocked")
    monkeypatch.setenv("CODEX_HOME", str(world.home / ".codex"))
    cx.plan_install("user", argv=harness.hook_argv("codex", world.probe)).apply()
    script = [("patch", s.target) if i < 2 else ("shell", f"apply_patch <<'EOF'\n{_patch(s.target)}EOF\n")
              if s.kind == "write" else ("shell", f"echo {s.target}") for i, s in enumerate(todo)]
    with Patching([*script, ("text", "ok")]) as fake:
        config = world.home / ".codex" / "config.toml"
        config.write_text(
            f'model = "gpt-5.5"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "http://127.0.0.1:{fake.port}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n\n'
            + config.read_text())
        env = {**harness.local_env(AGENT_HOOKS_PLUGINS=""), "FAKE_KEY": "k"}
        env.pop("OPENAI_API_KEY", None)
        proc = subprocess.run([str(codex), "exec", "--skip-git-repo-check", "--json",
                               "--dangerously-bypass-approvals-and-sandbox", "-C", str(world.project), "go"],
                              capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-3000:]
        check(world, todo, fake.tool_outputs(), fake.requests)


def test_vibes_background_processes_go_through_the_shell_gate(vibe, world):
    """run_typescript's ``tools.process.start`` runs a command with no ``bash`` call: the shell gate
    still decides."""
    from agent_hooks_core.bridges.vibe import install as vb

    from .fakemodel import FakeModel, say, tool_call
    from .probes import FORBIDDEN, hook_file
    from .test_vibe import CONFIG

    (world.home / ".vibe").mkdir()
    vb.plan_install("user", None, argv=harness.hook_argv("vibe", hook_file(world.home.parent))).apply()
    start = f"tools.process.start({{command: {json.dumps(FORBIDDEN)}}})"
    code = (f"async function main() {{\n  try {{ return await {start}; }}\n"
            "  catch (e) { return String(e && e.message || e); }\n}\n")
    with FakeModel([tool_call("run_typescript", {"code": code}), say("ok")]) as model:
        (world.home / ".vibe" / "config.toml").write_text(CONFIG.format(base=model.base_url))
        env = {k: v for k, v in harness.local_env(FAKE_API_KEY="dummy", AGENT_HOOKS_PLUGINS="").items()
               if k != "VIBE_HOME"}
        results = harness.run_agent([str(vibe), "-p", "go", "--auto-approve", "--output", "json"], world.home, env,
                                    model)
    assert not (world.project / "ran.txt").exists(), results
    assert "processId" not in results[0], results
