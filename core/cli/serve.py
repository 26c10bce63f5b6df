"""``agenthooks serve start|stop|status|run`` (and ``serve --stdio``): the warm server's command line.

The work is in ``agent_hooks_core.serve``; docs/serve.md describes the server.
"""

from __future__ import annotations

import os
import time
from typing import Any

import typer

from . import common


def _fail(message: str) -> typer.Exit:
    typer.echo(f"agenthooks: error: {message}", err=True)
    return typer.Exit(2)


def check_port(port: int | None) -> None:
    """A port from ``--port``, ``$AGENT_HOOKS_SERVE_PORT`` or ``[serve] port``, checked before anything
    starts: a bad one is the user's mistake (exit 2), not a server that dies in the background."""
    from ..serve.paths import ENV_PORT

    if port is not None:
        if not 0 <= port <= 65535:
            common.fail(f"--port {port}: expected a TCP port number (1-65535)")
        return
    env = os.environ.get(ENV_PORT)
    if env is not None and env.strip():
        try:
            value = int(env)
        except ValueError:
            value = -1
        if not 0 <= value <= 65535:
            common.fail(f"{ENV_PORT}={env!r}: expected a TCP port number (1-65535)")
    common.settings()  # a bad [serve] port is a settings error: one line, exit 2


def check_idle(seconds: float | None) -> None:
    if seconds is not None and not (seconds > 0 and seconds != float("inf")):
        common.fail(f"--idle-exit {seconds:g}: expected a number of seconds > 0")


def _describe(st: dict[str, Any]) -> list[str]:
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - float(st.get("uptime_s") or 0)))
    reload = st.get("last_reload")
    lines = [
        f"pid:         {st.get('pid')} (agent-hooks {st.get('version')}, {st.get('python')})",
        f"uptime:      {st.get('uptime_s')} s (since {started})",
        f"unix socket: {st.get('socket')}",
        f"http:        {st.get('http') or 'off'}" + (f" ({st['http_problem']})" if st.get("http_problem") else ""),
        "lifetime:    " + (f"exits after {st['idle_exit']:g} s without a request" if st.get("idle_exit")
                            else "until stopped") + (" (started by a per-event command)" if st.get("autostarted")
                                                     else ""),
        f"events:      {st.get('events')} served, {st.get('blocked')} blocked, {st.get('failures')} failed, "
        f"{st.get('rejected')} requests refused",
        "latency:     " + (f"p50 {st['p50_ms']} ms, p99 {st.get('p99_ms')} ms" if st.get("p50_ms") is not None
                            else "no events yet"),
        f"workers:     {len(st.get('workers') or [])} processes ({st.get('workers_replaced', 0)} replaced)",
        f"runtimes:    {st.get('runtimes')} warm, {st.get('builds')} built",
        f"plugins:     {', '.join(st.get('plugins') or []) or '(none loaded yet)'}",
        "last reload: " + (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(reload)) if reload else "never"),
    ]
    from ..serve.report import policy_lines

    lines += [f"policy:      {line}" for line in policy_lines(st)]
    return lines


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the typer app."""
    serve_app = typer.Typer(help="Keep the plugins loaded in one warm server that hosts talk to (docs/serve.md).",
                            invoke_without_command=True, no_args_is_help=False)

    @serve_app.callback()
    def serve_main(ctx: typer.Context, stdio: bool = typer.Option(
            False, "--stdio", help="serve one client over stdin/stdout (JSON-RPC lines; for host extensions)")) -> None:
        if stdio:
            import importlib

            try:  # written by the stdio work (docs/serve.md); absent in builds without it
                stdio_transport = importlib.import_module("agent_hooks_core.serve.stdio")
            except ImportError:
                raise _fail("this build has no stdio transport") from None
            raise typer.Exit(stdio_transport.main(list(ctx.args)))
        if ctx.invoked_subcommand is None:
            typer.echo(ctx.get_help())
            raise typer.Exit(0)

    idle_help = ("exit after SECONDS without a request; a request over HTTP, `serve start` or the http "
                 "transport's session check turns this off for good")

    @serve_app.command("run")
    def run_cmd(port: int = typer.Option(None, "--port", help="HTTP port (default: settings, or derived)"),
                no_http: bool = typer.Option(False, "--no-http", help="serve the unix socket only"),
                verbose: bool = typer.Option(False, "--verbose", help="log every request"),
                idle_exit: float = typer.Option(None, "--idle-exit", metavar="SECONDS", help=idle_help),
                autostarted: bool = typer.Option(
                    False, "--autostarted", help="as the per-event command starts it: the unix socket only until "
                    "kept, an idle exit (10 min unless --idle-exit), exits when its home is gone")) -> None:
        """Serve in the foreground (for debugging and process supervisors)."""
        from ..serve import server
        from ..transports.autostart import IDLE_SECONDS

        check_port(port)
        check_idle(idle_exit)
        if autostarted:
            from ..transports.autostart import enabled

            if not enabled():  # turned off after a client's command was installed with --autostart
                raise typer.Exit(0)
            if idle_exit is None:
                idle_exit = IDLE_SECONDS
        try:
            code = server.run(port=port, http_enabled=not no_http, verbose=verbose, idle_exit=idle_exit,
                              autostarted=autostarted,
                              ready=lambda s: typer.echo(f"agenthooks serve: pid {s.status()['pid']} on "
                                                         f"{s.socket_path}" + (f" and {s.http_address}"
                                                                               if s.http_address else ""),
                                                         err=True))
        except server.ServeError as exc:
            raise _fail(str(exc)) from None
        raise typer.Exit(code)

    @serve_app.command("start")
    def start_cmd(quiet: bool = typer.Option(False, "--quiet", help="print nothing on success"),
                  port: int = typer.Option(None, "--port", help="HTTP port (default: settings, or derived)"),
                  no_http: bool = typer.Option(False, "--no-http", help="serve the unix socket only"),
                  idle_exit: float = typer.Option(None, "--idle-exit", metavar="SECONDS", help=idle_help),
                  autostarted: bool = typer.Option(
                      False, "--autostarted", help="start it as `serve run --autostarted` (the fast clients' "
                      "--autostart); nothing when autostart is off")) -> None:
        """Start the server in the background (nothing to do when it runs already). Without
        --idle-exit or --autostarted it runs until stopped, and a server that would idle out is kept."""
        from ..serve import server

        check_port(port)
        check_idle(idle_exit)
        if autostarted:
            from ..transports.autostart import enabled

            if not enabled():
                raise typer.Exit(0)
        extra = [*(["--port", str(port)] if port is not None else []), *(["--no-http"] if no_http else []),
                 *(["--idle-exit", f"{idle_exit:g}"] if idle_exit is not None else []),
                 *(["--autostarted"] if autostarted else [])]
        try:
            started, st = server.start(extra=extra)
        except (server.ServeError, OSError) as exc:
            raise _fail(str(exc)) from None
        if not quiet:
            common.say(common.console(), common.esc(
                ("started" if started else "already running") + f": pid {st.get('pid')}, "
                f"{st.get('socket')}" + (f", {st['http']}" if st.get("http") else "")))

    @serve_app.command("stop")
    def stop_cmd() -> None:
        """Stop the server."""
        from ..serve import server

        pid = server.stop()
        typer.echo("no server was running" if pid is None else f"stopped (pid {pid})")

    @serve_app.command("status")
    def status_cmd(as_json: bool = typer.Option(False, "--json", help="machine-readable")) -> None:
        """Is it running; events served, latency, plugins loaded, last reload. Exit 1 when not running."""
        from ..serve import server, sessions

        st = server.status()
        if as_json:
            common.echo_json({**(st if st is not None else {"running": False}), "sessions": sessions.live()})
        elif st is None:
            typer.echo("not running (start it with `agenthooks serve start`)")
        else:
            out = common.console()
            for line in _describe(st):
                common.say(out, common.esc(line))
        raise typer.Exit(0 if st is not None else 1)

    app.add_typer(serve_app, name="serve")


__all__ = ["register"]
