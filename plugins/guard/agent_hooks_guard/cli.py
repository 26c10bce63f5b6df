"""``agenthooks guard explain|test|packs``: what the guard decides about a command, and why.

The policy is the one the hooks use: ``[plugins.guard]`` from the current settings (user and
project), in the current directory. ``test`` reads a corpus of ``block<TAB>command`` /
``allow<TAB>command`` lines, so a team can pin its policy in CI: exit 1 on any mismatch.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from .policy import Check, Policy

#: the corpus shipped with the guard (``agenthooks guard test --shipped``)
SHIPPED_CORPUS = Path(__file__).with_name("corpus.tsv")
_LINE = re.compile(r"^(block|allow)\t(.+)$")


class GuardCLIError(Exception):
    """Bad input: reported as one line, exit 2 (agent-hooks' CLIError when core is importable)."""


def _fail(message: str) -> Any:
    try:
        from agent_hooks_core.cli import fail
    except ImportError:  # pragma: no cover - core always ships the CLI
        raise GuardCLIError(message) from None
    return fail(message)


def _options(ctx: typer.Context) -> Any:
    from agent_hooks_core.cli import options

    return options(ctx)


def current_policy(ctx: typer.Context) -> Policy:
    """The guard policy of the current settings and directory (defaults when the guard is not loaded)."""
    from agent_hooks_core import Runtime

    from .policy import Policy, resolve

    opts = _options(ctx)
    cwd = getattr(opts, "cwd", None) or str(Path.cwd())
    rt = Runtime.from_settings(cwd=cwd, settings_path=getattr(opts, "settings_path", None),
                               hook_paths=getattr(opts, "hook_paths", ()))
    config: Any = rt.context("guard").config if "guard" in rt.plugins else None
    if config is None and "guard" not in rt.plugins:
        errors = [e for e in getattr(rt, "load_errors", []) if "guard" in str(e)]
        if errors:
            _fail(f"the guard's settings do not load: {errors[0]}")
    try:
        return Policy(resolve(config), cwd)
    except Exception as exc:  # a settings problem: one line, exit 2
        _fail(f"the guard's settings are invalid: {' '.join(str(exc).split())}")
        raise


def how_to_allow(rule: str, pack: str | None, line: str | None) -> list[str]:
    """Settings that would let it through, narrowest first."""
    ways = []
    if line and rule not in ("too-large", "unreadable-command", "pack-error", "dynamic-exec", "nesting"):
        ways.append(f"allow_commands = ['{_anchored(line)}']")
    if rule == "too-large":
        ways.append("max_command_bytes = <a larger number>")
    ways.append(f'disable_rules = ["{rule}"]')
    if pack:
        ways.append(f'disable_packs = ["{pack}"]')
    return ways


def _anchored(line: str) -> str:
    """An allow_commands regex for exactly this simple command (TOML literal string: no ')."""
    return "^" + re.escape(line[:200]).replace("\\ ", " ").replace("'", ".") + "$"


def explain_check(pol: Policy, command: str, check: Check) -> dict[str, Any]:
    findings = []
    for f in check.findings:
        pack = pol.rule_pack.get(f.rule)
        entry: dict[str, Any] = {"rule": f.rule, "pack": pack, "reason": f.reason,
                                 "command": check.lines.get(f), "allow": how_to_allow(f.rule, pack, check.lines.get(f))}
        if f.rule == "dynamic-exec":
            entry["policy"] = ("what runs is only known at run time, so it is decided by policy: blocked in "
                               "enforce mode, asked with a UI (ask = true), recorded in observe mode")
        findings.append(entry)
    decision = "block" if findings else "allow"
    if findings and pol.mode == "observe":
        decision = "block (observe mode: recorded, not blocked)"
    return {"command": command, "decision": decision, "mode": pol.mode, "effects": effects_of(check),
            "findings": findings}


def effects_of(check: Check) -> list[dict[str, Any]]:
    """Per simple command: what it does (file effects, network) and how it was found."""
    from .effects import describe

    out = []
    for cmd in check.commands[:64]:
        what = describe(cmd)
        if what or cmd.via:
            out.append({"command": " ".join(cmd.argv)[:200], "via": cmd.via or None, "effects": what})
    return out


#: the width explain and packs fit in
WIDTH = 80


def _wrap(text: str, indent: str, first: str | None = None) -> str:
    import textwrap

    return textwrap.fill(text, WIDTH, initial_indent=indent if first is None else first,
                         subsequent_indent=indent + "  ", break_on_hyphens=False)


def _print_explained(out: dict[str, Any]) -> None:
    command = out["command"] if len(out["command"]) <= 200 else out["command"][:200] + "..."
    print(_wrap(f"{out['decision']}: {command}", "", ""))
    for e in out.get("effects", []):
        via = f" (run by {e['via']})" if e["via"] else ""
        print(_wrap(f"{e['command']}{via}", "  ", "  does: "))
        for what in e["effects"]:
            print(_wrap(what, "      ", "    - "))
    if not out["findings"]:
        print("  no rule objects (packs and rules in force: agenthooks guard packs)")
    for f in out["findings"]:
        pack = f" (pack {f['pack']})" if f["pack"] else ""
        print(_wrap(f"rule {f['rule']}{pack}: {f['reason']}", "  ", "  "))
        if "policy" in f:
            print(_wrap(f"policy: {f['policy']}", "    ", "    "))
        print(_wrap(f"to allow it, in [plugins.guard]: {' or '.join(f['allow'])}; with a UI the guard asks "
                    f"instead", "    ", "    "))


def read_corpus(text: str, source: str) -> list[tuple[int, str, str]]:
    cases = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            _fail(f"{source}:{n}: expected 'block<TAB>command' or 'allow<TAB>command', got {line[:60]!r}")
        else:
            cases.append((n, m.group(1), m.group(2).replace("\u23ce", "\n")))  # ⏎ stands for a newline
    if not cases:
        _fail(f"{source}: no 'block<TAB>command' or 'allow<TAB>command' lines")
    return cases


def make_app() -> typer.Typer:
    app = typer.Typer(help="What agent-hooks-guard decides about a command, and why.", no_args_is_help=True)

    @app.command("explain")
    def explain_cmd(
        ctx: typer.Context,
        command: Annotated[str, typer.Argument(help="The shell command, as the agent would run it.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Which rule and pack block COMMAND, why, and how to allow it."""
        pol = current_policy(ctx)
        out = explain_check(pol, command, pol.check_command(command))
        if as_json:
            print(json.dumps(out, indent=2))
        else:
            _print_explained(out)

    @app.command("test")
    def test_cmd(
        ctx: typer.Context,
        file: Annotated[str | None, typer.Argument(
            help="Corpus: 'block<TAB>command' / 'allow<TAB>command' lines ('#' comments); - for stdin.")] = None,
        shipped: Annotated[bool, typer.Option("--shipped", help="Test the corpus shipped with the guard.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Check a corpus of commands against the policy in force; exit 1 on any mismatch."""
        if file is None and not shipped:
            _fail("give a corpus FILE (or - for stdin), or --shipped")
        if file == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            path = SHIPPED_CORPUS if file is None else Path(file)
            try:
                text, source = path.read_text(encoding="utf-8"), str(path)
            except (OSError, UnicodeDecodeError) as exc:
                _fail(f"cannot read the corpus {path}: {exc.strerror if isinstance(exc, OSError) else exc}")
                return
        pol = current_policy(ctx)
        results = []
        for n, expect, command in read_corpus(text, source):
            check = pol.check_command(command)
            got = "block" if check.findings else "allow"
            results.append({"line": n, "expect": expect, "got": got, "ok": got == expect, "command": command,
                            "rules": sorted({f.rule for f in check.findings}), "reason": check.reason})
        failed = [r for r in results if not r["ok"]]
        if as_json:
            print(json.dumps({"corpus": source, "passed": len(results) - len(failed), "failed": len(failed),
                              "results": results}, indent=2))
        else:
            for r in failed:
                why = f" ({r['reason']})" if r["reason"] else ""
                print(f"{source}:{r['line']}: expected {r['expect']}, got {r['got']}: {r['command']}{why}")
            print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
        if failed:
            raise typer.Exit(1)

    @app.command("packs")
    def packs_cmd(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """The rule packs (built-in, installed, from settings): on or off, their rules and examples."""
        pol = current_policy(ctx)
        rows: list[dict[str, Any]] = []
        for pack in pol.packs.values():
            off = pack.name in pol.off_packs
            rows.append({"name": pack.name, "enabled": not off, "source": pack.source,
                         "description": pack.description, "rules": pack.rule_ids,
                         "block": pack.block, "allow": pack.allow})
        if as_json:
            print(json.dumps({"packs": rows, "problems": pol.pack_problems}, indent=2))
            return
        for r in rows:
            state = "on " if r["enabled"] else "off"
            print(_wrap(f"{state} {r['name']} ({r['source']}): {r['description']}", "   ", ""))
            print(_wrap(f"rules: {', '.join(dict.fromkeys(r['rules']))}", "    ", "    "))
        for p in pol.pack_problems:
            print(_wrap(f"problem: {p}", "  ", ""))

    return app
