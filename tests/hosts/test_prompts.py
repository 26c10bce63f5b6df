"""The prompt-side cells of the matrix, proven on each pinned agent against its fake model: one probe
plugin (:data:`PROBE`) rewrites the user's prompt, injects into the system prompt and patches the
model request, and the fake model's recorded requests must carry each marker; it blocks a prompt
holding :data:`REFUSED`, and then the model must never see that prompt (and the agent shows the
reason where it shows one).

Two agent sessions per host at most (one rewriting, one blocked), so the table grows by hosts,
not by sessions. A host whose pinned binary cannot do a cell has the claim changed in its record
and its docs page, never a test that expects less.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from . import harness
from .pins import PINS

PROMPT_MARK = "prompt-mark-7f3a"
SYSTEM_MARK = "system-mark-9c1e"
CONTEXT_MARK = "context-mark-4b2d"
MESSAGE_MARK = "message-mark-2e6f"
#: the summary of the probe's own compaction, and the context it adds to the agent's
COMPACT_MARK = "compact-mark-8a5c"
COMPACTING_MARK = "compacting-mark-3d9b"
#: pre_api_request's patch: a temperature no agent sends on its own
TEMPERATURE = 0.37
REFUSED = "refuse-me-5d8"
REASON = "this prompt is not allowed here [prompt-probe]"

PROBE = f"""
from pathlib import Path

from agent_hooks_core import hookimpl

@hookimpl
def pre_message(event, ctx):
    if {REFUSED!r} in event.prompt:
        Path(ctx.cwd, "BLOCKED").write_text("the probe blocked it")
        return {{"block": True, "reason": {REASON!r}}}
    return {{"prompt": event.prompt + " {PROMPT_MARK}"}}

@hookimpl
def pre_system_prompt(event):
    return {{"inject": {SYSTEM_MARK!r}}}

@hookimpl
def before_agent_start(event):
    return {{"system_prompt": (event.system_prompt or "") + "\\n{SYSTEM_MARK}",
            "message": {{"custom_type": "prompt-probe", "content": {MESSAGE_MARK!r}, "display": False}}}}

@hookimpl
def pre_llm_context(event):
    messages = list(event.messages)
    return {{"messages": [*messages, {{"role": "user", "content": [{{"type": "text", "text": {CONTEXT_MARK!r}}}],
                                      "timestamp": 0}}]}}

@hookimpl
def pre_compact(event, ctx):
    if event.custom_instructions == "refuse" or Path(ctx.cwd, "REFUSE-COMPACTION").exists():
        Path(ctx.cwd, "COMPACTION-REFUSED").write_text(str(event.trigger))
        return {{"cancel": True}}
    if event.custom_instructions == "summarise":
        return None
    preparation = event.preparation or {{}}
    return {{"compaction": {{"summary": {COMPACT_MARK!r}, "first_kept_entry_id": preparation.get("firstKeptEntryId"),
                            "tokens_before": preparation.get("tokensBefore") or 0}}}}

@hookimpl
def on_compacting(event):
    return {{"context": [{COMPACTING_MARK!r}]}}

@hookimpl
def pre_api_request(event):
    if "messages" in event.request_body:  # Gemini CLI's llm_request: its settings are under config
        return {{"request_body": {{"config": {{"temperature": {TEMPERATURE}}}}}}}
    return {{"request_body": {{"temperature": {TEMPERATURE}}}}}  # OpenCode's chat.params

@hookimpl
def pre_api_tools(event):
    return {{"include": ["run_shell_command"]}}
"""


@dataclass
class Session:
    """One agent run: every request body the fake model received, the agent's exit and output."""

    requests: list[dict[str, Any]]
    returncode: int
    output: str

    @property
    def seen(self) -> str:
        return json.dumps(self.requests)


@dataclass
class Host:
    """How the prompt tests run one agent: ``start(fixtures)`` -> an ``Agent``."""

    name: str
    #: pre_message claims this host's record makes (and the tests prove)
    message: tuple[str, ...]
    #: pre_system_prompt rewrite claimed
    system: bool
    #: the agent shows a blocked prompt's reason in its output
    shows_reason: bool = True
    extra: tuple[str, ...] = field(default=())


def _plugin(tmp_path: Path) -> Path:
    path = tmp_path / "prompt_probe.py"
    path.write_text(PROBE)
    return path


def _user_hook(plugin: Path, cwd: Path) -> None:
    """``plugin`` as the user's hook file, trusted (for hosts wired through the warm server)."""
    home = Path(os.environ["AGENT_HOOKS_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text(f"hooks = [{json.dumps(str(plugin))}]\n")
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "trust"], cwd=cwd, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


# -- the agents -------------------------------------------------------------------------------


class ClaudeCode:
    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        exe = fx.npm_tool("@anthropic-ai/claude-code", PINS["claude-code"], "claude")
        self.exe, self.home = exe, home
        harness.install("claude-code")
        _user_hook(plugin, home)

    def run(self, prompt: str, *flags: str) -> Session:
        from .fake_anthropic import FakeAnthropic

        with FakeAnthropic("echo hi") as fake:
            env = {**os.environ, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k",
                   "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "NO_PROXY": "127.0.0.1,localhost"}
            proc = _run([str(self.exe), "-p", prompt, "--allowedTools", "Bash", *flags], self.home / "project", env)
            return Session(list(fake.requests), proc.returncode, proc.stdout + proc.stderr)


    def compact(self, instructions: str) -> Session:
        """``/compact`` of the session the last run left."""
        return self.run(f"/compact {instructions}", "--continue")


class Codex:
    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from agent_hooks_core.bridges.codex import install as cx

        self.exe, self.home = fx.npm_tool("@openai/codex", PINS["codex"], "codex"), home
        fx.monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
        cx.plan_install("user", argv=harness.hook_argv("codex", plugin)).apply()

    def run(self, prompt: str, steps: list[tuple[str, str]] | None = None, settings: str = "") -> Session:
        from .fake_responses import FakeResponses

        with FakeResponses(steps or [("text", "ok")]) as fake:
            config = self.home / ".codex" / "config.toml"
            config.write_text(
                f'model = "gpt-5-codex"\nmodel_provider = "fake"\n{settings}[model_providers.fake]\nname = "fake"\n'
                f'base_url = "http://127.0.0.1:{fake.port}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n\n'
                + config.read_text())
            env = {**os.environ, "FAKE_KEY": "k", "NO_PROXY": "127.0.0.1,localhost"}
            env.pop("OPENAI_API_KEY", None)
            proc = _run([str(self.exe), "exec", "--skip-git-repo-check",
                         "--dangerously-bypass-approvals-and-sandbox", "-C", str(self.home / "project"), prompt],
                        self.home / "project", env)
            return Session(list(fake.requests), proc.returncode, proc.stdout + proc.stderr)


class Gemini:
    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from agent_hooks_core.bridges.gemini import install as gm

        self.exe, self.home = fx.npm_tool("@google/gemini-cli", PINS["gemini"], "gemini"), home
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
        gm.plan_install("user", None, argv=harness.hook_argv("gemini", plugin)).apply()

    def run(self, prompt: str) -> Session:
        from .fake_gemini import FakeGemini

        with FakeGemini([("text", "ok")]) as fake:
            env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{fake.port}", "GEMINI_API_KEY": "k",
                   "NO_PROXY": "127.0.0.1,localhost", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
            proc = _run([str(self.exe), "-p", prompt, "--approval-mode", "yolo", "-o", "json", "-m",
                         "gemini-2.5-flash"], self.home / "project", env)
            return Session([*fake.requests, *fake.side_requests], proc.returncode, proc.stdout + proc.stderr)


class _NpmSet:
    """Qwen Code, Copilot CLI: the shared npm install, the fake chat model, wired with ``--hook``."""

    host = ""

    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        import importlib

        from .npm_agents import agents

        self.root, self.home = agents(fx.npm_set), home
        installer = importlib.import_module(f"agent_hooks_core.bridges.{self.host}").INSTALLER
        installer.plan_install("user", argv=harness.hook_argv(self.host, plugin)).apply()

    def argv(self, prompt: str, base_url: str) -> tuple[list[str], dict[str, str]]:
        raise NotImplementedError

    def run(self, prompt: str) -> Session:
        from .fakemodel import FakeModel, say
        from .npm_agents import base_env, run

        with FakeModel([say("ok")]) as model:
            argv, extra = self.argv(prompt, model.base_url)
            proc = run(argv, self.home / "project", base_env(self.home, **extra))
            return Session(list(model.requests), proc.returncode, proc.stdout + proc.stderr)


class Qwen(_NpmSet):
    host = "qwen"

    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from .npm_agents import write_json

        super().__init__(fx, home, plugin)
        settings = home / ".qwen" / "settings.json"
        data = json.loads(settings.read_text()) if settings.exists() else {}
        write_json(settings, {**data, "telemetry": {"enabled": False},
                              "privacy": {"usageStatisticsEnabled": False}, "general": {"enableAutoUpdate": False}})

    def argv(self, prompt: str, base_url: str) -> tuple[list[str], dict[str, str]]:
        cli = self.root / "@qwen-code" / "qwen-code" / "cli-entry.js"
        return (["node", str(cli), prompt, "--auth-type", "openai", "--openai-base-url", base_url,
                 "--openai-api-key", "dummy", "-m", "fake-model", "--yolo", "-o", "json"], {})


class Copilot(_NpmSet):
    host = "copilot"

    def argv(self, prompt: str, base_url: str) -> tuple[list[str], dict[str, str]]:
        cli = self.root / "@github" / "copilot-linux-x64" / "copilot"
        env = {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": base_url, "COPILOT_PROVIDER_API_KEY": "dummy",
               "COPILOT_MODEL": "fake-model", "COPILOT_AUTO_UPDATE": "false"}
        return ([str(cli), "-p", prompt, "--allow-all", "--output-format", "json", "--no-auto-update",
                 "--disable-client-telemetry"], env)


class Droid:
    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from agent_hooks_core.bridges import droid

        from .npm_agents import agents

        self.cli, self.home = agents(fx.npm_set) / "@factory" / "cli-linux-x64" / "bin" / "droid", home
        droid.INSTALLER.plan_install("user", argv=harness.hook_argv("droid", plugin)).apply()

    def run(self, prompt: str) -> Session:
        from .fakemodel import say
        from .netns import run_in_netns
        from .npm_agents import base_env

        model = {"model": "fake-model", "displayName": "Fake", "baseUrl": "{BASE}", "apiKey": "dummy",
                 "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}
        env = base_env(self.home, FACTORY_OTEL_ENABLED="false",
                       FACTORY_TELEMETRY_INGEST_BASE_URL="http://127.0.0.1:9")
        out = run_in_netns([str(self.cli), "exec", "-m", "custom:Fake-0", "--auto", "high", "-o", "json", prompt],
                           [say("ok")], env, self.home / "project",
                           files={str(self.home / ".factory" / "settings.json"): {"customModels": [model]}})
        assert not out["errors"], out
        return Session(out["requests"], out["returncode"], out["stdout"] + out["stderr"])


class Kimi:
    CONFIG = ('default_model = "fake"\ntelemetry = false\n\n[providers.fake]\ntype = "openai_legacy"\n'
              'base_url = "{base}"\napi_key = "dummy"\n\n[models.fake]\nprovider = "fake"\nmodel = "fake-model"\n'
              "max_context_size = 100000\n")

    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from agent_hooks_core.bridges.kimi import install as km

        self.exe, self.home = fx.pypi_tool("kimi-cli", PINS["kimi"], "kimi"), home
        (home / ".kimi").mkdir(exist_ok=True)
        fx.monkeypatch.delenv("KIMI_SHARE_DIR", raising=False)
        km.plan_install(argv=harness.hook_argv("kimi", plugin)).apply()

    def run(self, prompt: str) -> Session:
        from .fakemodel import FakeModel, say

        config = self.home / ".kimi" / "config.toml"
        with FakeModel([say("ok")]) as model:
            hooks = config.read_text().split("[[hooks]]", 1)[1] if config.exists() else ""
            config.write_text(self.CONFIG.format(base=model.base_url) + ("\n[[hooks]]" + hooks if hooks else ""))
            proc = _run([str(self.exe), "--print", "-p", prompt, "--output-format", "stream-json"],
                        self.home / "project", harness.local_env(KIMI_DISABLE_TELEMETRY="1"))
            return Session(list(model.requests), proc.returncode, proc.stdout + proc.stderr)


class OpenHands:
    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from agent_hooks_core.bridges.openhands import install as oh

        self.exe = fx.pypi_tool("openhands", PINS["openhands"], "openhands", pythons=("python3.12",))
        self.home = home
        (home / ".openhands").mkdir(exist_ok=True)
        oh.plan_install("user", None, argv=harness.hook_argv("openhands", plugin)).apply()

    def run(self, prompt: str) -> Session:
        from .fakemodel import say
        from .netns import run_in_netns

        env = {**os.environ, "LLM_MODEL": "openai/fake-model", "LLM_API_KEY": "dummy", "LLM_BASE_URL": "{BASE}",
               "OPENHANDS_SUPPRESS_BANNER": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "NO_PROXY": "127.0.0.1,localhost"}
        out = run_in_netns([str(self.exe), "--headless", "--json", "--override-with-envs", "-t", prompt],
                           [say("ok")], env, self.home / "project", required=False)
        return Session(out["requests"], out["returncode"], out["stdout"] + out["stderr"])


class OpenCode:
    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from agent_hooks_core.bridges.opencode import install as oc

        self.exe, self.home = fx.npm_tool("opencode-ai", PINS["opencode"], "opencode"), home
        fx.monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
        oc.plan_install("user").apply()
        _user_hook(plugin, home)

    def run(self, prompt: str) -> Session:
        from .fake_chat import FakeChat
        from .test_opencode import QUIET, write_config

        project = self.home / "project"
        with FakeChat([("text", "ok", None)]) as fake:
            write_config(project, fake.base_url)
            env = {**os.environ, **QUIET, "PWD": str(project), "NO_PROXY": "127.0.0.1,localhost"}
            proc = _run([str(self.exe), "run", "--model", "fake/m1", prompt], project, env)
            return Session(list(fake.all_requests), proc.returncode, proc.stdout + proc.stderr)


@dataclass
class Fixtures:
    npm_tool: Callable[..., Path]
    npm_set: Callable[..., Path]
    pypi_tool: Callable[..., Path]
    monkeypatch: pytest.MonkeyPatch


class Pi:
    """pi or omp with ``agenthooks install`` of this environment, the probe as the user's hook."""

    host = "pi"

    def __init__(self, fx: Fixtures, home: Path, plugin: Path) -> None:
        from .pi_agents import make_agent

        self.agent, self.home, self.agent_dir = make_agent(self.host, fx.npm_tool), home, home / "agent"
        proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "install", self.host], capture_output=True,
                              text=True, timeout=60, env=self.agent.env(home, self.agent_dir))
        assert proc.returncode == 0, proc.stderr
        _user_hook(plugin, home)

    def run(self, prompt: str) -> Session:
        from .fakemodel import FakeModel, say

        with FakeModel([say("ok")]) as model:
            self.agent.configure(self.agent_dir, model.base_url)
            proc = _run(self.agent.command(prompt), self.home / "project", self.agent.env(self.home, self.agent_dir))
            assert not model.errors, model.errors
            return Session(list(model.requests), proc.returncode, proc.stdout + proc.stderr)


    def rpc(self, model: Any) -> Rpc:
        self.agent.configure(self.agent_dir, model.base_url)
        if self.host == "omp":  # omp finds nothing to compact while the session fits its keepRecentTokens
            config = self.agent_dir / "config.yml"  # JSON is YAML
            config.write_text(json.dumps({**json.loads(config.read_text()), "compaction": {"keepRecentTokens": 1}}))
        argv = [str(self.agent.binary), "--mode", "rpc", "--no-session", "--provider", "fake", "--model", "fake-model"]
        return Rpc(argv, self.home / "project", self.agent.env(self.home, self.agent_dir))


class Omp(Pi):
    host = "omp"


class Rpc:
    """pi's or omp's RPC mode: one JSON command a line in, events and responses out."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, text=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.ids = 0

    def __enter__(self) -> Rpc:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def _until(self, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            if done(message):
                return dict(message)
        raise AssertionError(f"the agent ended first: {self.proc.stderr.read()[-3000:] if self.proc.stderr else ''}")

    def send(self, command: dict[str, Any]) -> str:
        assert self.proc.stdin is not None
        self.ids += 1
        self.proc.stdin.write(json.dumps({**command, "id": f"c{self.ids}"}) + "\n")
        self.proc.stdin.flush()
        return f"c{self.ids}"

    def command(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send ``command`` and return its response."""
        sent = self.send(command)
        return self._until(lambda m: m.get("type") == "response" and m.get("id") == sent)

    def prompt(self, message: str) -> None:
        """Send a prompt and wait until the agent's turn ends."""
        self.send({"type": "prompt", "message": message})
        self._until(lambda m: m.get("type") == "agent_end")


AGENTS: dict[str, Callable[[Fixtures, Path, Path], Any]] = {
    "claude-code": ClaudeCode, "codex": Codex, "gemini": Gemini, "qwen": Qwen, "copilot": Copilot,
    "droid": Droid, "kimi": Kimi, "openhands": OpenHands, "opencode": OpenCode, "pi": Pi, "omp": Omp,
}

@dataclass(frozen=True)
class Row:
    """What the prompt tests check on one host."""

    #: pre_message blocks a prompt
    block: bool
    #: markers the rewriting session's model requests must carry (each one a proven rewrite claim):
    #: "prompt" (pre_message), "system" (pre_system_prompt or before_agent_start's system prompt),
    #: "message" (before_agent_start's injected message), "context" (pre_llm_context),
    #: "temperature" (pre_api_request), "tools" (pre_api_tools)
    rewrites: tuple[str, ...]
    #: what the agent prints for a blocked prompt: the reason, what it says instead, or None
    shown: str | None = REASON


TABLE: dict[str, Row] = {
    "claude-code": Row(True, ("prompt", "system")),
    "codex": Row(True, ("prompt", "system"), shown="hook: UserPromptSubmit Blocked"),  # codex exec names no reason
    "gemini": Row(True, ("prompt", "system", "temperature", "tools")),
    "opencode": Row(True, ("prompt", "system", "temperature"), shown=None),  # run says "Unexpected server error"
    "qwen": Row(True, ("prompt", "system"), shown=None),  # qwen -p prints nothing for it
    "copilot": Row(True, ("prompt", "system")),
    "droid": Row(False, ("system",)),  # droid exec sends no UserPromptSubmit
    "kimi": Row(True, ()),
    "openhands": Row(True, ("prompt", "system"), shown=None),  # --headless logs it, wrapped
    "pi": Row(True, ("prompt", "system", "message", "context"), shown=None),
    "omp": Row(False, ("system", "message", "context")),
}
REWRITING = [h for h, row in TABLE.items() if row.rewrites]
BLOCKING = [h for h, row in TABLE.items() if row.block]


@pytest.fixture
def fixtures(npm_tool, npm_set, pypi_tool, monkeypatch) -> Fixtures:
    from .conftest import npm_cache_root, pypi_cache_root

    pytest.importorskip("agent_hooks_guard")
    # the agents are found where they are cached before the test moves HOME
    monkeypatch.setenv("AGENT_HOOKS_NPM_CACHE", str(npm_cache_root()))
    monkeypatch.setenv("AGENT_HOOKS_PYPI_CACHE", str(pypi_cache_root()))
    return Fixtures(npm_tool, npm_set, pypi_tool, monkeypatch)


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch, unset=("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "COPILOT_HOME")) as home:
        yield home


@pytest.mark.parametrize("host", REWRITING)
@pytest.mark.proves("claude-code", "pre_message", "rewrite")
@pytest.mark.proves("claude-code", "pre_system_prompt", "rewrite")
@pytest.mark.proves("codex", "pre_message", "rewrite")
@pytest.mark.proves("codex", "pre_system_prompt", "rewrite")
@pytest.mark.proves("gemini", "pre_message", "rewrite")
@pytest.mark.proves("gemini", "pre_system_prompt", "rewrite")
@pytest.mark.proves("gemini", "pre_api_request", "rewrite")
@pytest.mark.proves("gemini", "pre_api_tools", "rewrite")
@pytest.mark.proves("opencode", "pre_message", "rewrite")
@pytest.mark.proves("opencode", "pre_system_prompt", "rewrite")
@pytest.mark.proves("opencode", "pre_api_request", "rewrite")
@pytest.mark.proves("qwen", "pre_message", "rewrite")
@pytest.mark.proves("qwen", "pre_system_prompt", "rewrite")
@pytest.mark.proves("copilot", "pre_message", "rewrite")
@pytest.mark.proves("copilot", "pre_system_prompt", "rewrite")
@pytest.mark.proves("droid", "pre_system_prompt", "rewrite")
@pytest.mark.proves("openhands", "pre_message", "rewrite")
@pytest.mark.proves("openhands", "pre_system_prompt", "rewrite")
@pytest.mark.proves("pi", "pre_message", "rewrite")
@pytest.mark.proves("pi", "before_agent_start", "rewrite")
@pytest.mark.proves("pi", "pre_llm_context", "rewrite")
@pytest.mark.proves("omp", "before_agent_start", "rewrite")
@pytest.mark.proves("omp", "pre_llm_context", "rewrite")
def test_a_rewritten_prompt_reaches_the_model(fixtures, home, tmp_path, host):
    rewrites = TABLE[host].rewrites
    agent = AGENTS[host](fixtures, home, _plugin(tmp_path))
    session = agent.run("say hello")
    assert session.returncode == 0, session.output[-3000:]
    assert "say hello" in session.seen, session.output[-3000:]
    for claim, mark in (("prompt", PROMPT_MARK), ("system", SYSTEM_MARK), ("message", MESSAGE_MARK),
                        ("context", CONTEXT_MARK)):
        if claim in rewrites:
            assert mark in session.seen, (claim, session.seen[-3000:])
    # the agent's turns: Gemini's streamed requests, OpenCode's with tools (not its title request)
    turns = [r for r in session.requests if "contents" in r or "tools" in r]
    if "temperature" in rewrites:
        assert turns and all(_temperature(r) == TEMPERATURE for r in turns), turns
    if "tools" in rewrites:
        assert turns and all(_gemini_tools(r) == ["run_shell_command"] for r in turns), turns


def _temperature(request: dict[str, Any]) -> object:
    return (request.get("generationConfig") or {}).get("temperature", request.get("temperature"))


@pytest.mark.parametrize("host", ["pi", "omp"])
@pytest.mark.proves("pi", "pre_compact", "block", "rewrite")
@pytest.mark.proves("omp", "pre_compact", "block", "rewrite")
@pytest.mark.proves("omp", "on_compacting", "rewrite")
def test_a_compaction_is_cancelled_or_replaced(fixtures, home, tmp_path, host):
    """The probe cancels a compaction asked with "refuse" (the model is not asked to summarise),
    lets omp's own one run with its context added ("summarise"), and answers any other with a
    summary of its own, which the model then sees in place of the conversation."""
    from .fakemodel import FakeModel

    agent = AGENTS[host](fixtures, home, _plugin(tmp_path))
    with FakeModel([]) as model, agent.rpc(model) as rpc:
        rpc.prompt("say hello")
        rpc.prompt("and again")
        asked = len(model.requests)
        refused = rpc.command({"type": "compact", "customInstructions": "refuse"})
        assert refused.get("success") is False and "cancel" in str(refused.get("error")).lower(), refused
        assert len(model.requests) == asked  # no summary was asked for
        if host == "omp":
            summarised = rpc.command({"type": "compact", "customInstructions": "summarise"})
            assert summarised.get("success") is True, summarised
            assert COMPACTING_MARK in json.dumps(model.requests[asked:]), model.requests[asked:]
            rpc.prompt("go on")
            rpc.prompt("and on")
            asked = len(model.requests)
        replaced = rpc.command({"type": "compact"})
        assert replaced.get("success") is True, replaced
        assert len(model.requests) == asked  # the probe's summary, not the model's
        rpc.prompt("what now")
        assert COMPACT_MARK in json.dumps(model.requests[-1]), model.requests[-1]
        assert not model.errors, model.errors


@pytest.mark.proves("claude-code", "pre_compact", "block")
def test_a_cancelled_compaction_asks_the_model_for_no_summary(fixtures, home, tmp_path):
    """``/compact refuse`` is cancelled by the probe before Claude Code asks the model for a summary;
    ``/compact summarise``, let through, does ask (the control)."""
    agent = ClaudeCode(fixtures, home, _plugin(tmp_path))
    first = agent.run("say hello")
    assert first.returncode == 0, first.output[-2000:]
    refused = agent.compact("refuse")
    assert refused.requests == [], refused.seen[-2000:]
    assert "prompt_probe cancelled the compaction" in refused.output, refused.output[-2000:]
    summarised = agent.compact("summarise")
    assert "summarise" in summarised.seen, summarised.output[-2000:]


@pytest.mark.parametrize("refused", [True, False])
@pytest.mark.proves("codex", "pre_compact", "block")
def test_a_cancelled_auto_compaction_stops_codex_before_it_asks_for_a_summary(fixtures, home, tmp_path, refused):
    """A token limit that the first tool call passes: Codex compacts before its next request. The probe
    cancels (its marker file): Codex stops there, no summary request, the second command never runs;
    without it (the control) the compaction asks the model and the session ends well."""
    agent = Codex(fixtures, home, _plugin(tmp_path))
    project = home / "project"
    if refused:
        (project / "REFUSE-COMPACTION").write_text("")
    session = agent.run("go", [("shell", "echo one"), ("shell", "touch SECOND"), ("text", "ok")],
                        "model_auto_compact_token_limit = 12\n")
    assert (project / "COMPACTION-REFUSED").exists() is refused, session.output[-3000:]
    assert "hook: PreCompact Stopped" in session.output if refused else session.returncode == 0, session.output[-3000:]
    assert len(session.requests) == 1 if refused else len(session.requests) > 2, session.seen[-3000:]
    if refused:
        assert not (project / "SECOND").exists()


def _gemini_tools(request: dict[str, Any]) -> list[str]:
    allowed = ((request.get("toolConfig") or {}).get("functionCallingConfig") or {}).get("allowedFunctionNames")
    if allowed is not None:
        return list(allowed)
    return [d["name"] for t in request.get("tools") or [] for d in t.get("functionDeclarations") or []]


@pytest.mark.parametrize("host", BLOCKING)
@pytest.mark.proves("claude-code", "pre_message", "block")
@pytest.mark.proves("codex", "pre_message", "block")
@pytest.mark.proves("gemini", "pre_message", "block")
@pytest.mark.proves("opencode", "pre_message", "block")
@pytest.mark.proves("qwen", "pre_message", "block")
@pytest.mark.proves("copilot", "pre_message", "block")
@pytest.mark.proves("kimi", "pre_message", "block")
@pytest.mark.proves("openhands", "pre_message", "block")
@pytest.mark.proves("pi", "pre_message", "block")
def test_a_blocked_prompt_never_reaches_the_model(fixtures, home, tmp_path, host):
    shown = TABLE[host].shown
    agent = AGENTS[host](fixtures, home, _plugin(tmp_path))
    session = agent.run(f"please {REFUSED} now")
    assert (home / "project" / "BLOCKED").exists(), session.output[-3000:]  # the probe saw it and said no
    assert REFUSED not in session.seen, session.seen[-3000:]
    if shown is not None:
        assert shown in session.output, session.output[-3000:]
