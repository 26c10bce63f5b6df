"""Where the settings live: the user's agent-hooks directory, its cache, the project root; and
the environment variables that select plugins."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

ENV_HOME = "AGENT_HOOKS_HOME"
ENV_PLUGINS = "AGENT_HOOKS_PLUGINS"
ENV_NO_AUTOLOAD = "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD"
ENV_TRACE = "AGENT_HOOKS_TRACE"
PROJECT_DIR = ".agent-hooks"
SETTINGS_FILE = "settings.toml"



def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's home directory: ``$HOME`` of ``env`` (default: this process)."""
    home = (os.environ if env is None else env).get("HOME")
    return Path(home) if home else Path.home()


def user_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's agent-hooks directory: ``$AGENT_HOOKS_HOME`` or the platform config dir.

    ``env`` (default: this process's) supplies ``AGENT_HOOKS_HOME``; the platform directory is
    always this process's.
    """
    home = (os.environ if env is None else env).get(ENV_HOME)
    if home:
        return Path(home).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("agent-hooks", appauthor=False))


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where caches live: ``$AGENT_HOOKS_HOME/cache`` or the platform cache dir."""
    home = (os.environ if env is None else env).get(ENV_HOME)
    if home:
        return Path(home).expanduser() / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("agent-hooks", appauthor=False))


def user_settings_path() -> Path:
    return user_dir() / SETTINGS_FILE


def find_project_root(cwd: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest directory from ``cwd`` upwards holding ``.agent-hooks/`` (never the user dir)."""
    start = Path(cwd or os.getcwd()).resolve()
    try:
        user = user_dir().resolve()
    except OSError:  # pragma: no cover - unresolvable home
        user = None
    for directory in (start, *start.parents):
        candidate = directory / PROJECT_DIR
        if candidate.is_dir():
            if user is not None and candidate.resolve() == user:
                continue  # $AGENT_HOOKS_HOME=~/.agent-hooks seen from ~ is the user dir, not a project
            return directory
    return None


def env_plugins() -> list[str] | None:
    """``AGENT_HOOKS_PLUGINS``: None when unset (all), [] when empty (none), else the names."""
    raw = os.environ.get(ENV_PLUGINS)
    if raw is None:
        return None
    return [n.strip() for n in raw.split(",") if n.strip()]


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
