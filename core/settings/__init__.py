"""Settings: a user file and a project file (TOML), project over user, plus the environment.

Files
    user      ``$AGENT_HOOKS_HOME/settings.toml``, else ``<platform config dir>/agent-hooks/settings.toml``
              (``--settings PATH`` / ``settings_path=`` replaces it)
    project   ``<project>/.agent-hooks/settings.toml``; the project is the nearest directory, from
              the working directory upwards, that holds an ``.agent-hooks/`` directory

    organisation  named by the user file (``organisation = {url = ..., sha256 = ...}`` or
              ``{path = ...}``): a team's policy, see :mod:`agent_hooks_core.orgpolicy`

Precedence, lowest first: built-in defaults, the user file, the project file, the environment
(``AGENT_HOOKS_PLUGINS``, ``AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD``), explicit options (CLI flags,
``Runtime.from_settings`` keyword arguments); the organisation file's ``disabled``, ``required``
and plugin sections sit above the user and project files, which cannot weaken them. How each key
merges is in ``docs/settings.md``.

This module is on the start-up path of every host: it imports nothing heavy. ``tomllib`` (or
``tomlkit`` on Python 3.10) is imported only when a settings file exists; ``tomlkit`` for edits.
"""

from __future__ import annotations

from ..fileio import atomic_write
from .editing import edit_file, list_add, list_remove
from .keys import (
    CODE_KEYS,
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_STOP_GATE_LIMIT,
    KNOWN_KEYS,
    OFF_UNTIL_ENABLED,
    ORG_KEYS,
    POLICY_KEYS,
    SettingsError,
    normalize_name,
)
from .loading import load_settings
from .model import HookPath, Settings, Toggle
from .parsing import SettingsFile, parse_text, read_file
from .paths import (
    ENV_HOME,
    ENV_NO_AUTOLOAD,
    ENV_PLUGINS,
    ENV_TRACE,
    PROJECT_DIR,
    SETTINGS_FILE,
    cache_dir,
    env_flag,
    env_plugins,
    find_project_root,
    home_dir,
    user_dir,
    user_settings_path,
)

__all__ = [
    "CODE_KEYS", "DEFAULT_HOOK_TIMEOUT", "DEFAULT_STOP_GATE_LIMIT", "ENV_HOME", "ENV_NO_AUTOLOAD", "ENV_PLUGINS",
    "ENV_TRACE", "KNOWN_KEYS", "OFF_UNTIL_ENABLED", "ORG_KEYS", "POLICY_KEYS", "PROJECT_DIR", "SETTINGS_FILE",
    "HookPath", "Settings", "SettingsError", "SettingsFile", "Toggle", "atomic_write", "cache_dir", "edit_file",
    "env_flag", "env_plugins", "find_project_root", "home_dir", "list_add", "list_remove", "load_settings",
    "normalize_name", "parse_text", "read_file", "user_dir", "user_settings_path",
]
