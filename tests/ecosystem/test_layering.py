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


def _top_level_imports(path: Path) -> set[str]:
    """Modules of agent_hooks_core imported at module level (not in functions, not for type checking)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module(path).split(".")
    package = me if path.name == "__init__.py" else me[:-1]
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                            ast.ClassDef)) else ():
            if isinstance(sub, ast.ImportFrom) and sub.level:
                base = package[: len(package) - sub.level + 1]
                target = ".".join([*base, *(sub.module.split(".") if sub.module else [])])
                out.add(target)
                out.update(f"{target}.{a.name}" for a in sub.names)
    return out


def test_core_module_level_imports_have_no_cycle() -> None:
    modules = {_module(p): p for p in CORE.rglob("*.py") if "templates" not in p.parts}
    graph = {name: {t for t in _top_level_imports(path) if t in modules and t != name}
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
                raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_the_settings_default_timeout_is_the_runtimes() -> None:
    assert settings.DEFAULT_HOOK_TIMEOUT == runtime.DEFAULT_TIMEOUT
