"""The agent cannot switch the guard off through the shell: every command form the guard parses
that writes, moves, deletes, truncates or chmods a path of agent-hooks' control plane is denied,
and so is running agent-hooks' own CLI, in any spelling, with a subcommand that weakens policy.

The protected set is the runtime's own (``agent_hooks_core.controlplane``): this test names its
paths through ``$AGENT_HOOKS_HOME`` (every test has its own), the project's ``.agent-hooks/``, the
environment's site-packages and the interpreter that runs the tests.
"""

from __future__ import annotations

import shlex
import site
import sys
import sysconfig
from pathlib import Path

import agent_hooks_guard
import pytest
from agent_hooks_core import Runtime

SITE = sysconfig.get_paths()["purelib"]
PY = sys.executable
AGENTHOOKS = str(Path(sysconfig.get_path("scripts")) / "agenthooks")

#: {u} is the user directory ($AGENT_HOOKS_HOME), quoted for the shell
WRITES = [
    "echo x > {u}/hooks/zz.py",
    "mkdir -p {u}/hooks && cp /tmp/zz.py {u}/hooks/",
    "sed -i s/enforce/observe/ {u}/settings.toml",
    "sed -ie s/enforce/observe/ {u}/settings.toml",
    "perl -pi -e 's/enforce/observe/' {u}/settings.toml",
    "perl -i -pe 's/x/y/' {u}/settings.toml",
    "ed {u}/settings.toml <<< $'1d\\nw\\nq'",
    "vim -es -c '%d' -c wq {u}/settings.toml",
    "echo '' | sponge {u}/settings.toml",
    "echo '{{}}' | tee {u}/trust.json",
    "tee -a {u}/settings.toml < /tmp/x",
    "cp /tmp/s.toml {u}/settings.toml",
    "cp -t {u} /tmp/settings.toml",
    "mv /tmp/s.toml {u}/settings.toml",
    "mv {u}/settings.toml /tmp/",
    "rsync /tmp/s.toml {u}/settings.toml",
    "tar -xf /tmp/evil.tar -C {u}",
    "unzip -o /tmp/evil.zip -d {u}/hooks",
    "cat /dev/null > {u}/settings.toml",
    ": > {u}/trust.json",
    "truncate -s 0 {u}/settings.toml",
    "rm {u}/trust.json",
    "rm -rf {u}",
    "chmod 666 {u}/settings.toml",
    "ln -sf /tmp/evil.toml {u}/settings.toml",
    "touch {u}/hooks/zz.py",
    "dd if=/tmp/x of={u}/settings.toml",
    "sed -i s/a/b/ {u}/*.toml",
    "cd {u} && sed -i s/enforce/observe/ settings.toml",
    "cd {u}/hooks; echo x > zz.py",
    "python3 -c \"open('{uq}/settings.toml','w').write('')\"",
    "python3 -c \"import shutil; shutil.rmtree('{uq}')\"",
    "node -e \"require('fs').writeFileSync('{uq}/settings.toml', '')\"",
    "node -e \"require('fs').renameSync('/tmp/s.toml', '{uq}/settings.toml')\"",
    "perl -e \"rename '/tmp/s.toml', '{uq}/settings.toml'\"",
    "ruby -e \"FileUtils.cp('/tmp/t.json', '{uq}/trust.json')\"",
    "python3 -c \"import os; os.chmod('{uq}/settings.toml', 0o666)\"",
    "python3 -c \"from pathlib import Path; Path('{uq}/trust.json').chmod(0)\"",
    "echo 'echo x > {u}/settings.toml' > /tmp/w.sh; sh /tmp/w.sh",
    "bash -c 'echo x >> {u}/settings.toml'",
    "echo x > $AGENT_HOOKS_HOME/settings.toml",
    "echo x > \"${{AGENT_HOOKS_HOME}}/hooks/zz.py\"",
    "echo x > .agent-hooks/settings.toml",
    "mkdir -p .agent-hooks/hooks && echo x > .agent-hooks/hooks/a.py",
    "echo 'import os' > {site}/zz.pth",
    "echo x > {site}/usercustomize.py",
    "sed -i 's/return/pass/' {guard}/policy.py",
    "ln -s {u}/settings.toml /tmp/s.toml && echo x > /tmp/s.toml",
    "ln -sf {u}/hooks l; echo x > l/zz.py",
    "mkdir d && ln -s {u} d/u && cd d && echo x > u/settings.toml",
]
CLI = [
    "agenthooks plugins disable guard",
    "agenthooks plugins uninstall agent-hooks-guard",
    "agenthooks trust",
    "agenthooks uninstall claude-code",
    "python3 -m agent_hooks_core plugins disable guard",
    "python -m agent_hooks_core trust --yes",
    f"{PY} -m agent_hooks_core plugins disable guard",
    f"{AGENTHOOKS} plugins disable guard",
    "env AGENT_X=1 agenthooks plugins disable guard",
    "bash -c 'agenthooks plugins disable guard'",
]
#: agent-hooks' own variables, set or cleared for what a command starts (a nested agent's hooks)
ENVIRONMENT = [
    "AGENT_HOOKS_PLUGINS=audit claude -p hi",
    "env AGENT_HOOKS_HOME=/tmp/evil codex exec hi",
    "export AGENT_HOOKS_HOME=/tmp/evil",
    "AGENT_HOOKS_PLUGINS=audit; export AGENT_HOOKS_PLUGINS; claude -p hi",
    "declare -x AGENT_HOOKS_PLUGINS=audit",
    "unset AGENT_HOOKS_HOME",
    "env -u AGENT_HOOKS_HOME claude -p hi",
    "bash -c 'AGENT_HOOKS_PLUGINS=audit gemini -p hi'",
]
#: installs into (or out of) the environment agent-hooks runs from: a new distribution is a new plugin
INSTALLS = [
    f"{PY} -m pip install evil-plugin",
    f"{PY} -m pip uninstall -y agent-hooks-guard",
    f"{Path(PY).parent}/pip install -e /tmp/evil",
    f"uv pip install --python {PY} evil-plugin",
    f"pip install --target {SITE} evil",
    f"pip install --prefix={Path(SITE).parents[2]} evil",
]
ALLOWED = [
    "cat {u}/settings.toml",
    "ls {u}/hooks",
    "agenthooks plugins list",
    "agenthooks doctor",
    "python3 -m agent_hooks_core plugins list",
    "agenthooks trust --show",
    "grep guard {u}/settings.toml",
    "echo x > notes.txt",
    "rm -rf build",
    "ln -s {u}/settings.toml my-settings.toml",
    "find . -name '*.pyc' -delete",
    "find . -type d -name __pycache__ -exec rm -rf {{}} +",
    "find {u} -name '*.toml' -exec grep -l guard {{}} +",
    "pip install --target ./vendor requests",
    "echo 'set AGENT_HOOKS_HOME=... to move the settings'",
    "env FOO=1 make test",
]


def _rt(project: Path) -> Runtime:
    return Runtime(plugins=[("guard", agent_hooks_guard)], cwd=str(project))


def _fill(template: str, home: Path) -> str:
    return template.format(u=shlex.quote(str(home)), uq=str(home), site=shlex.quote(SITE),
                           guard=shlex.quote(str(Path(agent_hooks_guard.__file__).parent)))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".agent-hooks").mkdir(parents=True)
    return p


@pytest.mark.parametrize("template", WRITES)
def test_a_write_to_the_control_plane_is_denied(template: str, project: Path, _isolated_home: Path) -> None:
    command = _fill(template, _isolated_home)
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    assert out.decision == "blocked", command
    assert "[guard:control-plane]" in out.reason, (command, out.reason)


@pytest.mark.parametrize("command", CLI)
def test_our_cli_weakening_policy_is_denied_in_any_spelling(command: str, project: Path) -> None:
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    assert out.decision == "blocked" and "[guard:control-plane]" in out.reason, (command, out.reason)


@pytest.mark.parametrize("command", ENVIRONMENT + INSTALLS)
def test_our_variables_and_our_environment_are_the_control_plane_too(command: str, project: Path) -> None:
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    assert out.decision == "blocked" and "[guard:control-plane]" in out.reason, (command, out.reason)


@pytest.mark.parametrize("command", [
    "find {u}/.. -name settings.toml -delete",
    "find {u}/.. -name '*.toml' -delete",
    "find {u}/.. -path '*hooks*' -exec rm {{}} +",
    "find {u}/.. -name '*.py' -exec sed -i s/a/b/ {{}} +",
    "find {u}/.. -newer /tmp -delete",
])
def test_a_find_that_can_reach_the_control_plane_is_denied(command: str, project: Path,
                                                          _isolated_home: Path) -> None:
    (_isolated_home / "hooks").mkdir(exist_ok=True)
    (_isolated_home / "settings.toml").write_text("")
    (_isolated_home / "hooks" / "zz.py").write_text("")
    command = _fill(command, _isolated_home)
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    assert out.decision == "blocked" and "[guard:control-plane]" in out.reason, (command, out.reason)


def test_a_find_whose_names_cannot_reach_the_control_plane_passes(project: Path, _isolated_home: Path) -> None:
    (_isolated_home / "settings.toml").write_text("")
    command = _fill("find {u}/.. -name '*.pyc' -delete", _isolated_home)
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    assert out.decision == "allowed", out.reason


@pytest.mark.parametrize("template", ALLOWED)
def test_reading_and_ordinary_work_pass(template: str, project: Path, _isolated_home: Path) -> None:
    command = _fill(template, _isolated_home)
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    assert out.decision == "allowed", (command, out.reason)


@pytest.mark.parametrize("name", ["settings.toml", "trust.json", "hooks/zz.py"])
def test_a_write_tool_on_the_control_plane_is_denied(name: str, project: Path, _isolated_home: Path) -> None:
    out = _rt(project).fire("pre_file_write", {"path": str(_isolated_home / name)})
    assert out.decision == "denied" and "[guard:control-plane]" in out.reason


def test_a_patch_onto_the_control_plane_is_denied(project: Path, _isolated_home: Path) -> None:
    patch = f"*** Begin Patch\n*** Add File: {_isolated_home}/hooks/zz.py\n+import os\n*** End Patch\n"
    out = _rt(project).fire("pre_tool", {"tool_name": "apply_patch", "arguments": {"input": patch}})
    assert out.decision == "blocked" and "[guard:control-plane]" in out.reason


def test_a_write_through_an_existing_symlink_is_denied(project: Path, _isolated_home: Path) -> None:
    (project / "innocent.toml").symlink_to(_isolated_home / "settings.toml")
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "echo x > innocent.toml"}})
    assert out.decision == "blocked" and "[guard:control-plane]" in out.reason


def test_the_user_site_packages_is_protected_too(project: Path) -> None:
    user_site = site.getusersitepackages()
    out = _rt(project).fire("pre_tool", {"tool_name": "bash", "arguments": {
        "command": f"mkdir -p {user_site} && echo 'import x' > {user_site}/usercustomize.py"}})
    assert out.decision == "blocked" and "[guard:control-plane]" in out.reason
