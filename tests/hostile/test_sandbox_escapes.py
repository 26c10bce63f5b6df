"""A command that tries to get out of agent-hooks-sandbox, one test per class of escape.

Every command here is one the sandbox wraps (the sandbox alone: what a guard would have caught
is not the point); each must leave the world as it was and show nothing hidden.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import agent_hooks_sandbox
import pytest
from agent_hooks_core import Runtime

from tests.plugins.sandbox_support import needs_bwrap, scratch, world

pytestmark = needs_bwrap
__all__ = ["scratch", "world"]  # fixtures

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----"


def sandboxed(project: Path, command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    rt = Runtime(plugins=[("sandbox", agent_hooks_sandbox)], cwd=str(project))
    out = rt.fire("pre_tool", {"tool_name": "Bash", "arguments": {"command": command}})
    assert out.decision != "blocked", out.reason
    return subprocess.run(["/bin/bash", "-c", out.data["arguments"]["command"]], cwd=project, capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def test_undoing_the_mounts_fails_even_as_root(world: dict[str, Path]) -> None:
    """umount of what hides a credential store, remounting / writable, a nested user namespace."""
    home = world["home"]
    res = sandboxed(world["project"], f"umount {home}/.ssh; mount -o remount,rw /; "
                                      f"unshare -Urm sh -c 'umount {home}/.ssh; cat {home}/.ssh/id_rsa'; "
                                      f"cat {home}/.ssh/id_rsa; touch {world['scratch']}/escaped; "
                                      "grep CapEff /proc/self/status")
    assert KEY not in res.stdout + res.stderr
    assert not (world["scratch"] / "escaped").exists()
    assert "CapEff:\t0000000000000000" in res.stdout


def test_symlinks_lead_nowhere_new(world: dict[str, Path]) -> None:
    """A link in the writable project to a credential store or to outside does not open either."""
    project, home, scratch = world["project"], world["home"], world["scratch"]
    res = sandboxed(project, f"ln -s {home}/.ssh keys && cat keys/id_rsa; ln -s {scratch} out && "
                             "echo x > out/escaped; ls -A keys/")
    assert KEY not in res.stdout + res.stderr
    assert not (scratch / "escaped").exists()
    assert "Read-only file system" in res.stderr


@pytest.mark.parametrize("reader", ["cat /proc/1/environ", "cat /proc/$$/environ", "cat /proc/$PPID/environ",
                                    "env", "for p in /proc/[0-9]*; do cat $p/environ; done"])
def test_secrets_in_the_hosts_environment_are_nowhere_inside(world: dict[str, Path], reader: str) -> None:
    """Set in the host's shell only (the hook never sees it), and read back every way there is."""
    res = sandboxed(world["project"], f"{reader} | tr '\\0' '\\n'", env={"DEPLOY_TOKEN": "tok-123",
                                                                      "STRIPE_SECRET": "sk-456"})
    assert "tok-123" not in res.stdout and "sk-456" not in res.stdout


def test_the_host_processes_cannot_be_seen_or_signalled(world: dict[str, Path]) -> None:
    victim = subprocess.Popen(["sleep", "30"])
    try:
        res = sandboxed(world["project"], f"kill -9 {victim.pid}; ls /proc | grep -cx '[0-9]*'")
        assert victim.poll() is None
        assert int(res.stdout.split()[-1]) <= 4  # the sandbox's own few processes
    finally:
        victim.kill()
        victim.wait()


@pytest.mark.parametrize("spelling", [
    "/usr/bin/bwrap --bind / / -- sh -c 'touch {scratch}/escaped'",
    "-- touch {scratch}/escaped",
    "exec touch {scratch}/escaped",
    "'; touch {scratch}/escaped; '",
    "\"; touch {scratch}/escaped; \"",
    "$(touch {scratch}/escaped)",
])
def test_no_spelling_of_the_command_runs_it_outside(world: dict[str, Path], spelling: str) -> None:
    """Quotes, options and a bwrap line of its own are all text inside the sandbox."""
    sandboxed(world["project"], spelling.format(scratch=shlex.quote(str(world["scratch"]))))
    assert not (world["scratch"] / "escaped").exists()


def test_the_control_plane_is_out_of_reach(world: dict[str, Path]) -> None:
    settings, project = world["settings"], world["project"]
    before = (settings / "settings.toml").read_text()
    res = sandboxed(project, f"rm -rf {settings}; echo 'disabled = [\"sandbox\"]' > {settings}/settings.toml; "
                             "rm -rf .agent-hooks; mkdir -p .agent-hooks; echo 'hooks = [\"x.py\"]' > "
                             ".agent-hooks/settings.toml")
    assert (settings / "settings.toml").read_text() == before
    assert (project / ".agent-hooks").is_dir() and not (project / ".agent-hooks" / "settings.toml").exists()
    assert "Read-only file system" in res.stderr or "Device or resource busy" in res.stderr


def test_nothing_is_left_behind_that_runs_outside_later(world: dict[str, Path]) -> None:
    """A host's project hook configuration, git hooks and git config: code the user's own tools run
    later, unsandboxed. Commits still work."""
    project = world["project"]
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run(["git", "init", "-q", str(project)], check=True, env={**os.environ, **env})
    res = sandboxed(project, "mkdir -p .claude .gemini; echo '{\"hooks\": {}}' > .claude/settings.json; "
                             "echo '{}' > .gemini/settings.json; echo 'exit 0' > .git/hooks/pre-commit; "
                             "git config core.hooksPath /tmp; git add Makefile && git commit -qm built && "
                             "echo committed", env=env)
    assert "committed" in res.stdout, res.stderr
    for path in (".claude/settings.json", ".gemini/settings.json", ".git/hooks/pre-commit"):
        assert not (project / path).exists(), path
    assert "hooksPath" not in (project / ".git" / "config").read_text()


def test_a_hidden_socket_cannot_be_reached(world: dict[str, Path]) -> None:
    """A Unix socket needs no network: the container engines' and the session bus's are hidden (an
    /dev/null over a socket, an empty directory over a runtime directory)."""
    import socket

    from agent_hooks_sandbox.defaults import HIDDEN

    assert {"/run/docker.sock", "/var/run/docker.sock", "/run/user"} <= set(HIDDEN)
    path = world["scratch"] / "engine.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    try:
        rt = Runtime(plugins=[("sandbox", agent_hooks_sandbox)], cwd=str(world["project"]),
                     plugin_config={"sandbox": {"hidden": [*HIDDEN, str(path)]}})
        out = rt.fire("pre_tool", {"tool_name": "Bash", "arguments": {"command": (
            "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
            f"print('connected')\" {shlex.quote(str(path))}")}})
        res = subprocess.run(["/bin/bash", "-c", out.data["arguments"]["command"]], capture_output=True, text=True,
                             timeout=60, cwd=world["project"], stdin=subprocess.DEVNULL)
        assert "connected" not in res.stdout and "ConnectionRefusedError" in res.stderr, res.stderr
    finally:
        server.close()


def _wrap(rt: Runtime, command: str) -> str:
    out = rt.fire("pre_tool", {"tool_name": "Bash", "arguments": {"command": command}})
    assert out.decision != "blocked", out.reason
    return str(out.data["arguments"]["command"])


def test_one_sandbox_ending_does_not_uncover_what_another_seals(world: dict[str, Path]) -> None:
    """Removing a directory detaches every mount on it, in every namespace: the mount points one
    sandbox made are removed only once no other sandboxed command runs, or a second one, still
    running, could then create .claude/settings.json through the hole."""
    project = world["project"]
    rt = Runtime(plugins=[("sandbox", agent_hooks_sandbox)], cwd=str(project))
    done = {"tool_name": "Bash", "arguments": {"command": "x"}}
    ready, go = project / "ready", project / "go"
    os.mkfifo(ready)
    os.mkfifo(go)
    second = subprocess.Popen(["/bin/bash", "-c", _wrap(rt, "echo up > ready; read x < go; mkdir .claude; "
                                                            "echo '{}' > .claude/settings.json; echo ran")],
                              cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL)
    try:
        assert ready.read_text() == "up\n"  # its mounts are up
        first = subprocess.run(["/bin/bash", "-c", _wrap(rt, "echo first")], cwd=project, capture_output=True,
                               text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert first.stdout == "first\n", first.stderr
        rt.fire("post_tool", done)
        assert (project / ".claude").is_dir()  # still there: the second sandbox stands on it
        go.write_text("go\n")
        out, err = second.communicate(timeout=60)
    finally:
        if second.poll() is None:
            second.kill()
            second.wait()
    assert "ran" in out and "Permission denied" in err
    assert not (project / ".claude" / "settings.json").exists()
    ready.unlink()
    go.unlink()
    rt.fire("post_tool", done)  # the last one out removes what was made
    assert sorted(p.name for p in project.iterdir()) == [".agent-hooks", "Makefile"]


def test_the_lock_that_keeps_mount_points_is_out_of_the_commands_reach(world: dict[str, Path]) -> None:
    """Inside, the lock is neither an open descriptor (to drop it) nor a file (to hold it for ever)."""
    from agent_hooks_sandbox.policy import build, resolve

    plan = build(resolve(None), str(world["project"]), "true")
    assert plan.lock is not None
    lock = plan.lock[0]
    res = sandboxed(world["project"], f"ls /proc/self/fd; ls -A {shlex.quote(os.path.dirname(lock))}; "
                                      f"echo x >> {shlex.quote(lock)}")
    assert res.stdout.split() == ["0", "1", "2", "3"], res.stdout  # ls's own directory is 3
    assert "Permission denied" in res.stderr or "Read-only file system" in res.stderr


@pytest.mark.parametrize("entry", ["link", "dangling link", "file"])
def test_a_host_configuration_entry_the_command_could_repoint_is_no_way_out(world: dict[str, Path],
                                                                           entry: str) -> None:
    """.claude as a link (made by an earlier command) could be pointed at a directory the command
    writes: the command is refused. As a file, it is pinned: not replaced by a directory."""
    project = world["project"]
    (project / "elsewhere").mkdir()
    if entry == "file":
        (project / ".claude").write_text("not a directory\n")
    else:
        (project / ".claude").symlink_to(project / ("elsewhere" if entry == "link" else "later"))
    rt = Runtime(plugins=[("sandbox", agent_hooks_sandbox)], cwd=str(project))
    command = ("rm -rf .claude; mkdir -p later .claude; echo '{}' > later/settings.json; "
               "echo '{}' > elsewhere/settings.json; echo '{}' > .claude/settings.json; echo done")
    out = rt.fire("pre_tool", {"tool_name": "Bash", "arguments": {"command": command}})
    if entry != "file":
        assert out.decision == "blocked" and ".claude is a symbolic link in a writable directory" in out.reason
        return
    res = subprocess.run(["/bin/bash", "-c", out.data["arguments"]["command"]], cwd=project, capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert "done" in res.stdout, res.stderr
    assert (project / ".claude").read_text() == "not a directory\n"


def test_values_that_look_like_shell_cannot_keep_a_secret_or_run(world: dict[str, Path]) -> None:
    """The prelude reads the environment back through the shell's own quoting: a value with quotes,
    newlines, `export` lines or substitutions is one value, kept byte for byte, and runs nothing."""
    marker = world["project"] / "ran"
    env = {"A_TOKEN": "t0k'\nexport B_SAFE=1\n'", "PLAIN": "it's \"fine\"\nexport X_SECRET=", "C_SECRET": "s3c",
           "D": f"$(touch {marker})`touch {marker}`", "E_PASSWORD": "'; C_SECRET=kept; '"}
    res = sandboxed(world["project"], "env | tr '\\0' '\\n'; printf '%s|' \"$PLAIN\" \"$D\"", env=env)
    assert "t0k" not in res.stdout and "s3c" not in res.stdout and "kept" not in res.stdout
    assert res.stdout.endswith(f"{env['PLAIN']}|{env['D']}|"), res.stdout
    assert not marker.exists()
