"""The layers: core's imports form a DAG (an import cycle breaks whichever module a host happens
to import first); core imports no plugin; plugins reach core's CLI only through its public API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from agent_hooks_core import cli, runtime, settings

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
PLUGINS = ROOT / "plugins"
FIRST_PARTY = ("agent_hooks_audit", "agent_hooks_guard", "agent_hooks_otel", "agent_hooks_sandbox")


def _module(path: Path) -> str:
    rel = path.relative_to(CORE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["agent_hooks_core", *parts])


def _top_level_imports(path: Path, in_functions: bool = False) -> set[str]:
    """Modules of agent_hooks_core imported at module level (not for type checking); with
    ``in_functions``, also those imported inside functions and classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module(path).split(".")
    package = me if path.name == "__init__.py" else me[:-1]
    out: set[str] = set()
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if in_functions or not isinstance(node, nested) else ():
            if isinstance(sub, ast.ImportFrom) and sub.level:
                base = package[: len(package) - sub.level + 1]
                target = ".".join([*base, *(sub.module.split(".") if sub.module else [])])
                out.add(target)
                out.update(f"{target}.{a.name}" for a in sub.names)
    return out


def _cycle(in_functions: bool) -> str | None:
    modules = {_module(p): p for p in CORE.rglob("*.py") if "templates" not in p.parts}
    graph = {name: {t for t in _top_level_imports(path, in_functions) if t in modules and t != name}
             for name, path in modules.items()}
    # a package's __init__ importing its own submodules is not a cycle with them
    for name in graph:
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise _Found(" -> ".join([*stack[stack.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    try:
        for name in sorted(graph):
            if name not in state:
                visit(name)
    except _Found as found:
        return str(found)
    return None


class _Found(Exception):
    pass


def test_core_module_level_imports_have_no_cycle() -> None:
    assert _cycle(in_functions=False) is None


def test_core_imports_inside_functions_close_no_cycle() -> None:
    # runtime <-> discovery was the last one: Runtime.from_settings is wired by the package
    assert _cycle(in_functions=True) is None


def test_the_settings_default_timeout_is_the_runtimes() -> None:
    assert settings.DEFAULT_HOOK_TIMEOUT == runtime.DEFAULT_TIMEOUT
    assert settings.DEFAULT_STOP_GATE_LIMIT == runtime.DEFAULT_STOP_LIMIT


def _absolute_imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every absolute import in ``path``, at any depth (lazy imports count)."""
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.append((node.module, [a.name for a in node.names]))
    return out


def _plugin_sources() -> list[tuple[str, Path]]:
    return [(pkg.name, path) for pkg in sorted(PLUGINS.glob("*/agent_hooks_*")) if pkg.is_dir()
            for path in sorted(pkg.rglob("*.py"))]


def test_every_first_party_plugin_is_covered() -> None:
    assert sorted({name for name, _ in _plugin_sources()}) == sorted(FIRST_PARTY)


def _plugin_violation(own: str, module: str, names: list[str]) -> str | None:
    parts = module.split(".")
    if parts[0] in FIRST_PARTY and parts[0] != own:
        return "another plugin (plugins depend on core only)"
    if parts[0] != "agent_hooks_core":
        return None
    if module.startswith("agent_hooks_core.cli."):
        return "core's CLI internals (use the public agent_hooks_core.cli)"
    if any(p.startswith("_") for p in parts):
        return "a private core module"
    if module == "agent_hooks_core.cli" and set(names) - set(cli.__all__):
        return f"names agent_hooks_core.cli does not export: {sorted(set(names) - set(cli.__all__))}"
    return None


def test_plugins_import_core_through_its_public_modules_only() -> None:
    bad = [f"{path.relative_to(ROOT)}: {module}: {why}"
           for own, path in _plugin_sources() for module, names in _absolute_imports(path)
           if (why := _plugin_violation(own, module, names)) is not None]
    assert bad == []


@pytest.mark.parametrize(("module", "names", "why"), [
    ("agent_hooks_core.cli.common", ["fail"], "internals"),
    ("agent_hooks_core.cli", ["OPTIONS"], "does not export"),
    ("agent_hooks_core.hookspecs._fields", [], "private"),
    ("agent_hooks_guard.rules", [], "another plugin"),
    ("agent_hooks_core.cli", ["fail", "Column"], None),
    ("agent_hooks_audit.store", [], None),
])
def test_the_plugin_rule_catches_each_kind(module: str, names: list[str], why: str | None) -> None:
    found = _plugin_violation("agent_hooks_audit", module, names)
    assert (found is None) if why is None else (found is not None and why in found)


def test_core_imports_no_plugin() -> None:
    bad = [f"{path.relative_to(ROOT)}: {module}" for path in sorted(CORE.rglob("*.py"))
           if "templates" not in path.parts
           for module, _ in _absolute_imports(path) if module.split(".")[0] in FIRST_PARTY]
    assert bad == []


def test_the_public_cli_api_resolves() -> None:
    for name in cli.__all__:
        assert getattr(cli, name) is not None, name


def test_importing_the_public_cli_api_loads_nothing_heavy() -> None:
    import subprocess
    import sys

    code = ("import sys, agent_hooks_core.cli; "
            "print(sorted(m for m in ('rich', 'typer', 'agent_hooks_core.cli.common') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


#: what a hook implementation's arguments are, as the hookspecs declare them
_ARGUMENT_TYPES = {"ctx": "HookContext", "event": "HookEvent", "outcome": "Outcome"}


def test_first_party_hook_implementations_use_cores_types() -> None:
    bad = []
    for _, path in _plugin_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or not any(
                    "hookimpl" in ast.unparse(d) for d in node.decorator_list):
                continue
            for arg in node.args.args:
                want = _ARGUMENT_TYPES.get(arg.arg)
                got = ast.unparse(arg.annotation) if arg.annotation is not None else None
                if want is not None and got != want:
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({arg.arg}: {got})")
    assert bad == []


def test_transports_do_not_build_on_serve() -> None:
    # the server builds on transports (it answers through the same dispatch), never the reverse:
    # what both need (where the socket lives, the project notice) lives in neutral modules
    found = {f"{path.relative_to(ROOT)}: {module}"
             for path in sorted((CORE / "transports").rglob("*.py"))
             for module in _top_level_imports(path, in_functions=True)
             if module == "agent_hooks_core.serve" or module.startswith("agent_hooks_core.serve.")}
    assert found == set()
