"""The settings in force for a directory: the user file (or ``--settings``), the organisation
policy it names, the project file and the environment, merged into a :class:`~.model.Settings`."""

from __future__ import annotations

import os
from pathlib import Path

from .keys import SettingsError
from .model import Settings
from .organisation import organisation_file
from .parsing import read_file
from .paths import (
    ENV_NO_AUTOLOAD,
    PROJECT_DIR,
    SETTINGS_FILE,
    env_flag,
    env_plugins,
    find_project_root,
    user_settings_path,
)


def load_settings(cwd: str | os.PathLike[str] | None = None,
                  settings_path: str | os.PathLike[str] | None = None) -> Settings:
    """Read the user file (or ``settings_path``), the organisation policy it names, the project
    file and the environment.

    Raises :class:`SettingsError` when a file is invalid. Nothing is written here, except the
    organisation policy's cache when it is due for a refresh.
    """
    explicit = settings_path is not None
    upath = Path(settings_path).expanduser() if settings_path is not None else user_settings_path()
    if explicit and not upath.exists():
        raise SettingsError(f"{upath}: settings file not found")
    user = read_file(upath, "user")
    root = find_project_root(cwd)
    project = None
    if root is not None:
        ppath = root / PROJECT_DIR / SETTINGS_FILE
        if not (explicit and ppath.resolve() == upath.resolve()):
            project = read_file(ppath, "project", base=root)
    settings = Settings(user=user, project=project, project_root=root, plugins_env=env_plugins(),
                        autoload=not env_flag(ENV_NO_AUTOLOAD), user_settings_explicit=explicit)
    if user.has("organisation"):
        settings.organisation, settings.organisation_error = organisation_file(user.get("organisation"), user.path)
    if project is not None and project.has("organisation"):
        project.warnings.append(f"{project.path}: organisation is read from the user settings only (ignored here)")
    return settings
