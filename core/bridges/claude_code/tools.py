"""Claude Code's tools: which family each belongs to, the permission hook that fits a call, and
how to read and replace the text of a tool's structured response (docs/hosts/protocols.md, docs/hosts/claude-code.md)."""

from __future__ import annotations

import json
import os
from typing import Any

from ..hostkit.shape import ToolShape, needs

SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob"})
FETCH_TOOLS = frozenset({"WebFetch", "WebSearch"})

#: what a PreToolUse tool call must carry to be checked: a call whose essential field is missing or
#: not a string (``{"command": ["bash", ...]}``) is denied (:mod:`..hostkit.shape`)
TOOL_SHAPE = ToolShape(fields={
    **{t: needs("command") for t in SHELL_TOOLS}, "Write": needs("file_path"), "Edit": needs("file_path"),
    "MultiEdit": needs("file_path"), "NotebookEdit": needs("notebook_path"), "Read": needs("file_path"),
    "Grep": needs("path", optional=True), "Glob": needs("path", optional=True), "WebFetch": needs("url"),
})


def permission_call(tool: str, arguments: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]] | None:
    """The permission hook (and its payload) that fits a Claude Code tool call, if any."""
    if tool in SHELL_TOOLS:
        command = arguments.get("command")
        if isinstance(command, str):
            return "pre_shell_exec", {"command": command, "tool_name": tool}
        return None
    if tool in WRITE_TOOLS:
        path = arguments.get("file_path") or arguments.get("notebook_path")
        if isinstance(path, str) and path:
            payload: dict[str, Any] = {"path": _absolute(path, cwd), "tool_name": tool}
            if tool == "Write" and isinstance(arguments.get("content"), str):
                payload["content"] = arguments["content"]
            return "pre_file_write", payload
        return None
    if tool in READ_TOOLS:
        path = arguments.get("file_path") if tool == "Read" else arguments.get("path")
        if isinstance(path, str) and path:
            return "pre_file_read", {"path": _absolute(path, cwd), "tool_name": tool}
        return None
    if tool == "WebFetch":
        url = arguments.get("url")
        if isinstance(url, str):
            return "pre_fetch_url", {"url": url, "tool_name": tool}
        return None
    if tool == "WebSearch":
        query = arguments.get("query")
        summary = f"web search: {query}" if isinstance(query, str) else "web search"
        return "pre_fetch_url", {"tool_name": tool, "safety": "no_url", "summary": summary}
    return None


def _absolute(path: str, cwd: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(cwd, path))


def response_text(tool: str, response: Any) -> str | None:
    """The text of a tool's structured response, as the model would read it."""
    if response is None:
        return None
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        texts = [str(b["text"]) for b in response if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts or not response:
            return "\n".join(texts)
    if isinstance(response, dict):
        if tool in SHELL_TOOLS and isinstance(response.get("stdout"), str):
            stderr = response.get("stderr")
            return str(response["stdout"]) + (f"\n{stderr}" if isinstance(stderr, str) and stderr else "")
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return str(file["content"])
        for key in ("result", "content", "output", "text"):
            if isinstance(response.get(key), str):
                return str(response[key])
        if isinstance(response.get("filenames"), list):
            return "\n".join(str(f) for f in response["filenames"])
    try:
        return json.dumps(response, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(response)


def replace_text(tool: str, response: Any, text: str) -> Any:
    """``response`` with its text replaced by ``text``, where the shape is known; else None."""
    if isinstance(response, str):
        return text
    if isinstance(response, list) and all(isinstance(b, dict) for b in response):
        return [{"type": "text", "text": text}]
    if isinstance(response, dict):
        if tool in SHELL_TOOLS and isinstance(response.get("stdout"), str):
            return {**response, "stdout": text, "stderr": ""}
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return {**response, "file": {**file, "content": text}}
        for key in ("result", "content", "output", "text"):
            if isinstance(response.get(key), str):
                return {**response, key: text}
    return None
