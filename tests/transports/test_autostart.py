"""The per-event command starts the warm server in the background when none runs, and the next
event is relayed to it; an autostarted server idles out unless someone relies on it.

Real processes: the per-event command as hosts run it (``python -I -m agent_hooks_core
claude-code``), the server it spawns, ``serve run --autostarted``; every server a test starts is
stopped in a finalizer. The suite runs with ``AGENT_HOOKS_SERVE_AUTOSTART=0`` (tests/conftest.py);
these tests turn it on for their own processes only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_hooks_core import runpaths
from agent_hooks_core.serve import server as serve
from agent_hooks_core.transports import autostart

from ..bridges.payloads import event

#: seconds a background server gets to come up or go away (a loaded 2-core machine)
WAIT = 60.0

HOOK = """\
import os
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event):
    return {"block": True, "reason": "denied by the hook in pid %d" % os.getpid()}
"""


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's AGENT_HOOKS_HOME (tests/conftest.py), autostart on, and whatever server runs
    there at the end stopped."""
    monkeypatch.setenv("AGENT_HOOKS_SERVE_AUTOSTART", "1")
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("AGENT_HOOKS_SERVE_PORT", "0")
    try:
        yield Path(os.environ["AGENT_HOOKS_HOME"])
    finally:
        serve.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    (tmp_path / "deny.py").write_text(HOOK)
    return path


def per_event(project: Path, env: dict[str, str] | None = None, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    body = json.dumps(event("PreToolUse", str(project))).encode()
    return subprocess.run([sys.executable, "-I", "-m", "agent_hooks_core", "claude-code", "--event", "PreToolUse",
                           "--hook", str(project.parent / "deny.py")], input=body, capture_output=True,
                          cwd=project, env=env if env is not None else dict(os.environ), timeout=120, **kwargs)  # type: ignore[call-overload]


def denied_by(proc: subprocess.CompletedProcess[bytes]) -> int:
    """The pid of the process whose hook denied the event."""
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    return int(out["permissionDecisionReason"].rsplit(" ", 1)[1])


def wait_for_server() -> dict[str, object]:
    """The autostarted server's status once it answers (bounded by WAIT)."""
    until = time.monotonic() + WAIT
    while time.monotonic() < until:
        st = serve.status(timeout=2.0)
        if st is not None:
            return st
        time.sleep(0.05)  # polling another process's start-up, bounded by WAIT
    raise AssertionError("no server came up: " + _log())


def _log() -> str:
    try:
        return (Path(os.environ["AGENT_HOOKS_HOME"]) / "log" / "serve.log").read_text()[-2000:]
    except OSError:
        return "(no log)"


def stamp() -> Path:
    return runpaths.runtime_dir() / f"autostart-{runpaths.identity()}.stamp"


def test_the_second_event_is_relayed_to_the_server_the_first_started(home: Path, project: Path) -> None:
    first = per_event(project)
    assert denied_by(first) != 0  # answered in its own process, exactly as without autostart
    st = wait_for_server()
    assert st["autostarted"] is True and st["idle_exit"] == autostart.IDLE_SECONDS
    assert st["http"] is None, "an autostarted server listens on the unix socket only"
    before = int(str(st["events"]))
    second = per_event(project)
    pid = denied_by(second)
    after = serve.status()
    assert after is not None and int(str(after["events"])) == before + 1, "the second event was not relayed"
    assert pid in {int(w) for w in after["workers"]}, "answered by one of the server's workers"


def test_the_spawned_server_holds_no_descriptor_of_the_host(home: Path, project: Path) -> None:
    """A host waits for EOF on the pipes it gave the hook: the background server must hold none,
    including a descriptor the host leaked to the hook beyond stdio."""
    r, w = os.pipe()
    try:
        proc = per_event(project, pass_fds=(w,))
        os.close(w)
        w = -1
        denied_by(proc)
        wait_for_server()
        os.set_blocking(r, False)
        assert os.read(r, 1) == b"", "the leaked pipe is still open in the background server"
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def _user_settings(text: str) -> None:
    (Path(os.environ["AGENT_HOOKS_HOME"]) / "settings.toml").write_text(text)


# (case, AGENT_HOOKS_SERVE_AUTOSTART or None for unset, user settings): no server is started
OFF = [
    ("variable", "0", ""),
    ("variable, false", "false", "[serve]\nautostart = true\n"),
    ("user settings", None, "[serve]\nautostart = false\n"),
]


@pytest.mark.parametrize(("case", "variable", "settings"), OFF, ids=[c for c, _, _ in OFF])
def test_turned_off_nothing_is_started(home: Path, project: Path, case: str, variable: str | None, settings: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if variable is None:
        monkeypatch.delenv("AGENT_HOOKS_SERVE_AUTOSTART")
    else:
        monkeypatch.setenv("AGENT_HOOKS_SERVE_AUTOSTART", variable)
    _user_settings(settings)
    denied_by(per_event(project))
    assert not stamp().exists(), case
    assert serve.status() is None, case


def test_project_settings_cannot_turn_it_on(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_HOOKS_SERVE_AUTOSTART")
    _user_settings("[serve]\nautostart = false\n")
    (project / ".agent-hooks").mkdir()
    (project / ".agent-hooks" / "settings.toml").write_text("[serve]\nautostart = true\n")
    denied_by(per_event(project))
    assert not stamp().exists()


def test_a_bad_autostart_setting_is_one_line(home: Path) -> None:
    _user_settings("[serve]\nautostart = \"yes\"\n")
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "doctor"], capture_output=True, text=True,
                          timeout=120)
    assert "serve.autostart: expected true or false" in proc.stdout + proc.stderr


def test_one_attempt_per_interval(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that cannot start costs one spawn per RETRY_SECONDS, not one per event."""
    spawned: list[list[str]] = []
    monkeypatch.setattr(autostart, "spawn", lambda argv: spawned.append(argv) or 4242)
    monkeypatch.chdir(home)
    assert autostart.after_answer() == 4242
    assert autostart.after_answer() is None, "a second attempt within the interval"
    old = time.time() - autostart.RETRY_SECONDS - 1
    os.utime(stamp(), (old, old))
    assert autostart.after_answer() == 4242
    assert len(spawned) == 2
    assert spawned[0][-4:] == ["serve", "run", "--autostarted", "--after-parent"]


def test_the_server_is_started_with_this_interpreter_and_its_flags() -> None:
    argv = autostart.command()
    assert argv[0] == str(Path(sys.executable).absolute())
    assert argv[1:-2 - len(autostart.SERVE_ARGS)] == autostart.interpreter_flags()
    out = subprocess.run([sys.executable, "-I", "-c", "from agent_hooks_core.transports import autostart; "
                          "print(autostart.interpreter_flags())"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['-I']"


def test_no_autostart_where_the_relay_would_not_look(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run directory an agent could choose (an XDG_RUNTIME_DIR other than /run/user/<uid>, a
    TMPDIR) is never where a server is started."""
    monkeypatch.delenv("AGENT_HOOKS_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    chosen = tmp_path / "chosen"
    chosen.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(chosen))
    assert runpaths.autostart_dir() is None
    assert not (chosen / "agent-hooks").exists()
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setenv("TMPDIR", str(chosen))
    base = runpaths.autostart_dir()
    assert base is None or not str(base).startswith(str(chosen))


# -- the autostarted server's lifetime ------------------------------------------------------------


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "agent_hooks_core", "serve", "run", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env or dict(os.environ), cwd="/")
    return proc


@pytest.fixture
def started(home: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_an_idle_server_exits(started: list[subprocess.Popen[bytes]]) -> None:
    started.append(start("--autostarted", "--idle-exit", "1"))
    wait_for_server()
    assert started[0].wait(timeout=WAIT) == 0
    assert serve.status() is None


def keeps_running(proc: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return True
    return False


def test_an_ensure_server_check_keeps_it_and_turns_http_on(started: list[subprocess.Popen[bytes]]) -> None:
    """The http transport's SessionStart check (the fast client's --ensure-server): its session
    relies on the server, which must neither idle out under it nor stay off HTTP."""
    from agent_hooks_core.transports.client import ensure_server_command

    started.append(start("--autostarted", "--idle-exit", "1"))
    wait_for_server()
    check = subprocess.run(ensure_server_command(30, native=False), capture_output=True, timeout=120)
    assert check.returncode == 0, check.stderr
    st = serve.status()
    assert st is not None and st["idle_exit"] is None and st["http"], st
    assert keeps_running(started[0], 3.0), "a kept server idled out"


def test_serve_start_keeps_an_autostarted_server(started: list[subprocess.Popen[bytes]]) -> None:
    started.append(start("--autostarted", "--idle-exit", "1"))
    wait_for_server()
    out = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "start"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "already running" in out.stdout, out.stderr
    st = serve.status()
    assert st is not None and st["idle_exit"] is None
    assert keeps_running(started[0], 3.0)


@pytest.mark.parametrize("method, path", [
    ("GET", "/status"),  # answered by the threaded handler
    ("POST", "/hosts/claude-code"),  # an http hook's event: answered through the loop and a worker
])
def test_a_tcp_request_keeps_it(started: list[subprocess.Popen[bytes]], home: Path, project: Path,
                                method: str, path: str) -> None:
    import http.client

    started.append(start("--idle-exit", "2"))
    st = wait_for_server()
    host, port = str(st["http"]).rsplit("/", 1)[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    body = json.dumps(event("PreToolUse", cwd=str(project))).encode() if method == "POST" else None
    conn.request(method, path, body=body,
                 headers={"X-Agent-Hooks-Token": (home / "serve-token").read_text().strip()})
    assert conn.getresponse().status == 200
    conn.close()
    after = serve.status()
    assert after is not None and after["idle_exit"] is None
    assert keeps_running(started[0], 4.0)


def test_a_server_started_for_good_has_no_idle_exit(started: list[subprocess.Popen[bytes]]) -> None:
    started.append(start())
    st = wait_for_server()
    assert st["idle_exit"] is None and st["autostarted"] is False


def test_a_spawned_server_whose_home_went_away_meanwhile_starts_nothing(tmp_path: Path) -> None:
    """The command's home removed between the spawn and the server's start (a temporary home)."""
    gone = tmp_path / "gone-home"
    env = {**os.environ, "HOME": str(gone), "AGENT_HOOKS_HOME": str(gone / "ah")}
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", *autostart.SERVE_ARGS],
                          env=env, cwd="/", capture_output=True, timeout=WAIT)
    assert proc.returncode == 0, proc.stderr
    assert not gone.exists()


@pytest.mark.parametrize("gone", ["home", "run directory"])
def test_an_autostarted_server_exits_when_its_home_is_gone(started: list[subprocess.Popen[bytes]], tmp_path: Path,
                                                           gone: str) -> None:
    import shutil

    user_home = tmp_path / "user-home"
    user_home.mkdir()
    started.append(start("--autostarted", env={**os.environ, "HOME": str(user_home)}))
    st = wait_for_server()
    shutil.rmtree(user_home if gone == "home" else Path(str(st["socket"])).parent)
    assert started[0].wait(timeout=WAIT) == 0


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_bad_idle_exit_is_one_line(value: str) -> None:
    out = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "start", "--idle-exit", value],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--idle-exit" in out.stderr


@pytest.fixture(scope="module")
def native_executable(tmp_path_factory: pytest.TempPathFactory) -> str:
    import shutil

    from .test_native_client import _built_client

    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler (cc): the native client cannot be built here")
    return _built_client(tmp_path_factory.mktemp("native"))


@pytest.mark.parametrize("native", [False, True], ids=["python client", "native client"])
@pytest.mark.parametrize("variable", ["1", "0"])
def test_the_fast_clients_start_an_autostarted_server_unless_off(home: Path, project: Path, native: bool,
                                                                  variable: str, monkeypatch: pytest.MonkeyPatch,
                                                                  request: pytest.FixtureRequest) -> None:
    """``--autostart`` (the installed fast clients) starts ``serve start --autostarted``: a server
    that idles out; AGENT_HOOKS_SERVE_AUTOSTART=0 starts nothing."""
    from agent_hooks_core.transports import client

    exe: str | bool = False
    if native:
        exe = request.getfixturevalue("native_executable")
    monkeypatch.setenv("AGENT_HOOKS_SERVE_AUTOSTART", variable)
    argv = client.command_for("claude-code", ["--event", "PreToolUse", "--hook", str(project.parent / "deny.py")],
                              gating=True, native=exe)
    body = json.dumps(event("PreToolUse", str(project))).encode()
    proc = subprocess.run(argv, input=body, capture_output=True, cwd=project, timeout=120)
    denied_by(proc)
    if variable == "0":
        assert serve.status() is None
        return
    st = wait_for_server()
    assert st["autostarted"] is True and st["idle_exit"] == autostart.IDLE_SECONDS


def test_an_autostarted_server_does_not_run_when_the_user_turned_autostart_off(home: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_HOOKS_SERVE_AUTOSTART")
    _user_settings("[serve]\nautostart = false\n")
    out = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "run", "--autostarted"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and serve.status() is None, out.stderr


def test_a_server_of_another_environment_is_not_a_missing_one(started: list[subprocess.Popen[bytes]],
                                                               project: Path) -> None:
    """A server that answers 409 (another environment key) runs: the command answers itself and
    starts nothing (a second server could not take the lock anyway)."""
    started.append(start(env={**os.environ, "AGENT_HOOKS_TEST_OPTION": "other"}))
    before = int(str(wait_for_server()["events"]))
    pid = denied_by(per_event(project))
    st = serve.status()
    assert st is not None and int(str(st["events"])) == before and pid not in {int(w) for w in st["workers"]}
    assert not stamp().exists()


def test_install_with_the_command_transport_says_it_starts_a_server(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}
    out = subprocess.run([sys.executable, "-m", "agent_hooks_core", "install", "claude-code", "--transport", "command"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "starts the warm server in the background" in text
    assert "[serve] autostart = false" in text and "AGENT_HOOKS_SERVE_AUTOSTART=0" in text


SLOW_HOOK = """\
import os, time
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event):
    time.sleep(3)
    return {"block": True, "reason": "denied by the hook in pid %d" % os.getpid()}
"""


def test_a_request_longer_than_the_idle_exit_is_answered(started: list[subprocess.Popen[bytes]],
                                                         project: Path) -> None:
    """Idle means no request in flight: a server never exits under a request it is answering."""
    (project.parent / "deny.py").write_text(SLOW_HOOK)
    started.append(start("--autostarted", "--idle-exit", "1"))
    wait_for_server()
    pid = denied_by(per_event(project))
    st = serve.status()
    assert st is not None and pid in {int(w) for w in st["workers"]}, "answered by the server"
