"""agent-hooks-sandbox with the real bubblewrap: real files, real commands, real namespaces."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.plugins.sandbox_support import needs_bwrap, run_tool, runtime, scratch, world

pytestmark = needs_bwrap
__all__ = ["scratch", "world"]  # fixtures


def test_what_the_guard_lets_through_changes_nothing_outside_the_project(world: dict[str, Path]) -> None:
    home, settings, project = world["home"], world["settings"], world["project"]
    (project / ".agent-hooks" / "settings.toml").write_text("# project\n")
    before = (settings / "settings.toml").read_text()
    res = run_tool(project, "make")
    assert (home / "important" / "thesis.txt").read_text() == "years of work\n"
    assert "PRIVATE KEY" not in res.stdout + res.stderr
    assert (settings / "settings.toml").read_text() == before
    assert (project / ".agent-hooks" / "settings.toml").read_text() == "# project\n"
    assert (project / "build.txt").read_text() == "built\n"  # the build in the project works
    assert res.returncode == 0, res.stderr
    assert "Read-only file system" in res.stderr  # what the model reads and adapts to


def test_the_project_is_writable_and_outside_it_is_read_only(world: dict[str, Path]) -> None:
    project, scratch = world["project"], world["scratch"]
    res = run_tool(project, f"mkdir -p src && echo ok > src/new.txt && touch {scratch}/outside.txt")
    assert (project / "src" / "new.txt").read_text() == "ok\n"
    assert not (scratch / "outside.txt").exists()
    assert res.returncode != 0 and "Read-only file system" in res.stderr


def test_tmp_is_private_and_writable(world: dict[str, Path], tmp_path: Path) -> None:
    marker = tmp_path / "host-file"
    marker.write_text("host\n")
    res = run_tool(world["project"], f"echo scratch > /tmp/x && cat /tmp/x && ls {marker} 2>&1 || true")
    assert res.stdout.startswith("scratch\n") and "No such file" in res.stdout
    assert marker.read_text() == "host\n"


def test_the_agent_hooks_settings_and_project_settings_are_hidden(world: dict[str, Path]) -> None:
    settings, project = world["settings"], world["project"]
    (project / ".agent-hooks" / "settings.toml").write_text("# project\n")
    res = run_tool(project, f"ls -A {settings} | wc -l; ls -A .agent-hooks | wc -l")
    assert res.stdout.split() == ["0", "0"], res.stderr


def test_no_network_and_no_secrets_in_the_environment(world: dict[str, Path]) -> None:
    res = run_tool(world["project"], "cat /proc/net/dev; echo token=${MY_API_TOKEN:-unset} path=${PATH:+set}",
                   env={"MY_API_TOKEN": "s3cr3t"})
    interfaces = [line.split(":")[0].strip() for line in res.stdout.splitlines()[2:] if ":" in line]
    assert interfaces == ["lo"]
    assert "token=unset" in res.stdout and "path=set" in res.stdout and "s3cr3t" not in res.stdout


def test_network_on_keeps_the_hosts_interfaces(world: dict[str, Path]) -> None:
    host = Path("/proc/net/dev").read_text().splitlines()[2:]
    res = run_tool(world["project"], "cat /proc/net/dev", config={"network": "on"})
    assert len(res.stdout.splitlines()[2:]) == len(host)


def test_host_processes_are_invisible(world: dict[str, Path]) -> None:
    res = run_tool(world["project"], f"test -e /proc/{os.getpid()} && echo visible || echo invisible")
    assert res.stdout.strip() == "invisible"


def test_the_command_dies_with_the_host(world: dict[str, Path]) -> None:
    """The host's shell is killed (a tool timeout): the sandboxed command goes with it."""
    project = world["project"]
    from tests.plugins.sandbox_support import runtime

    out = runtime(project).fire("pre_tool", {"tool_name": "Bash", "arguments": {
        "command": "sleep 30; echo survived > late.txt"}})
    shell = subprocess.Popen(["/bin/bash", "-c", out.data["arguments"]["command"]], cwd=project,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        shell.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        os.killpg(shell.pid, 9)
        shell.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # waiting for the kernel to deliver the kill, not ordering
        left = subprocess.run(["pgrep", "-f", "sleep 30; echo survived"], capture_output=True, text=True).stdout
        if not left.strip():
            break
        time.sleep(0.05)
    assert not left.strip(), f"still running: {left}"
    assert not (project / "late.txt").exists()


def test_sandbox_test_self_check_passes(world: dict[str, Path]) -> None:
    res = subprocess.run([sys.executable, "-m", "agent_hooks_core", "sandbox", "test"], cwd=world["project"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ok    the project is writable" in res.stdout
    assert "ok    a write outside the project changes nothing" in res.stdout
    assert f"ok    hidden: {world['home'] / '.ssh'} shows nothing in the sandbox" in res.stdout


@pytest.mark.parametrize("fallback, blocked", [("deny", True), ("unsandboxed", False)])
def test_namespaces_refused_denies_unless_fallback(world: dict[str, Path], fallback: str, blocked: bool) -> None:
    """A bwrap that cannot create namespaces (as with user namespaces off) is found by the probe."""
    fake = world["scratch"] / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    from tests.plugins.sandbox_support import runtime

    out = runtime(world["project"], {"bwrap": str(fake), "fallback": fallback}).fire(
        "pre_tool", {"tool_name": "Bash", "arguments": {"command": "make"}})
    assert (out.decision == "blocked") is blocked
    if blocked:
        assert "setting up uid map: Permission denied" in out.reason


def test_a_hidden_file_cannot_be_read(world: dict[str, Path]) -> None:
    (world["home"] / ".netrc").write_text("machine example.com password hunter2\n")
    res = run_tool(world["project"], "cat ~/.netrc; cp ~/.netrc leaked.txt; echo done", guard=False)
    assert "hunter2" not in res.stdout + res.stderr
    assert "hunter2" not in ((world["project"] / "leaked.txt").read_text()
                             if (world["project"] / "leaked.txt").exists() else "")
    assert "Permission denied" in res.stderr and res.stdout.strip() == "done"


def _tree(root: Path) -> dict[str, tuple[int, int, bytes | str | None]]:
    """Every entry under ``root``, byte for byte: its type, mode and content (a link's target)."""
    out: dict[str, tuple[int, int, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            st = path.lstat()
            content = (os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None)
            out[str(path.relative_to(root))] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), content)
    return out


HOST_CONFIGS = (".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json", ".codex/hooks.json",
                ".cursor/hooks.json", ".github/hooks/hooks.json")


@pytest.mark.parametrize("where", [".", "src"])
def test_the_project_is_left_as_it_was_and_no_host_configuration_can_be_made(world: dict[str, Path],
                                                                              where: str) -> None:
    """The host configurations are sealed by mounts; their mount points are removed once the command
    is done (post_tool), so the project is byte for byte what it was (no empty .claude, .codex, ...),
    from the project's top and from a directory below it (which stays writable)."""
    project = world["project"]
    (project / "src").mkdir()
    (project / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    cwd = project / where
    before = _tree(project)
    attempts = "; ".join(f"mkdir -p {os.path.dirname(c)} 2>&1; echo '{{\"hooks\": {{}}}}' > {c} && echo made {c}"
                         for c in HOST_CONFIGS)
    rt = runtime(cwd, guard=False)
    call = {"tool_name": "Bash", "arguments": {"command": f"{attempts}; echo built > built.txt; cat built.txt; "
                                                          "rm built.txt"}}
    out = rt.fire("pre_tool", call)
    res = subprocess.run(["/bin/bash", "-c", out.data["arguments"]["command"]], cwd=cwd, capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    rt.fire("post_tool", call)  # removes the mount points bubblewrap made
    assert "made" not in res.stdout, res.stdout
    assert "Permission denied" in res.stderr + res.stdout
    assert res.stdout.strip().endswith("built"), res.stderr  # the directory it runs in is writable
    assert _tree(project) == before
