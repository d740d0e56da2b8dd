"""The Pulumi project in a folder, as far as `planner plan` needs it without running it:
where its stack files are (`stackConfigDir`).

Pulumi reads `Pulumi.<stack>.yaml` from the folder `stackConfigDir` names, relative to
`Pulumi.yaml`, else from the project folder itself
(https://www.pulumi.com/docs/iac/concepts/projects/project-file/). So `planner plan` with
no path plans what `pulumi up` would configure, wherever the project keeps it. No pulumi
import: the CLI must start fast.
"""

from __future__ import annotations

import os

from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.problems import InputError, Problem

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")


def project_file(directory: str = ".") -> str | None:
    """`DIR/Pulumi.yaml` (or `.yml`) when there is one."""
    return next((os.path.join(directory, f) for f in PROJECT_FILES if os.path.isfile(os.path.join(directory, f))), None)


def stack_config_dir(directory: str = ".", command: str = "plan") -> str:
    """The folder of the project's stack files: `stackConfigDir` of DIR/Pulumi.yaml, else DIR.

    InputError (one line: file, key, what was expected) when DIR holds no Pulumi project or
    `stackConfigDir` is not a folder name.
    """
    path = project_file(directory)
    if path is None:
        raise InputError(
            [
                Problem(
                    os.path.join(directory, "Pulumi.yaml") if directory != "." else "Pulumi.yaml",
                    None,
                    "",
                    "not found: no Pulumi project in this folder; name stack files or folders instead "
                    f"(planner {command} PATH)",
                )
            ]
        )
    data = yamlload.load_path(path, "Pulumi project file")[0]
    if not isinstance(data, dict):
        raise InputError([Problem(path, None, "", "expected a mapping (name, runtime, ...)")])
    where = data.get("stackConfigDir")
    if where is None:
        return directory
    if not isinstance(where, str) or not where.strip():
        raise InputError([Problem(path, None, "stackConfigDir", "expected a folder name, relative to Pulumi.yaml")])
    return os.path.normpath(os.path.join(directory, where)) if directory != "." else os.path.normpath(where)
