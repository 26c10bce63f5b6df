"""Core has no import cycle (issue 10.3): its module-level imports form a DAG."""

from __future__ import annotations

import ast
from pathlib import Path

from agent_hooks_core import runtime, settings

CORE = Path(__file__).resolve().parents[2] / "core"


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
