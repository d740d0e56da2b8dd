"""The Pulumi project in a folder, as far as planner needs it without running it: where its
stack files are (`stackConfigDir`), and whether it names a Python program planner can run.

Pulumi reads `Pulumi.<stack>.yaml` from the folder `stackConfigDir` names, relative to
`Pulumi.yaml`, else from the project folder itself
(https://www.pulumi.com/docs/iac/concepts/projects/project-file/). So `planner plan` with
no path plans what `pulumi up` would configure, wherever the project keeps it. The program is
`main` (a file, or a folder holding `__main__.py`), else the project folder's `__main__.py`
(runtime python). No pulumi import: the CLI must start fast.
"""

from __future__ import annotations

import os
from typing import Any

from msgspec import Struct

from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.problems import InputError, Problem

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")
PYTHON_RUNTIMES = ("python",)  # what planner runs a program with (`planner.runtime.offline_run.RUNTIMES`)


def project_file(directory: str = ".") -> str | None:
    """`DIR/Pulumi.yaml` (or `.yml`) when there is one."""
    return next((os.path.join(directory, f) for f in PROJECT_FILES if os.path.isfile(os.path.join(directory, f))), None)


class Project(Struct, frozen=True):
    """A Pulumi project on disk, read without running anything. Paths are as the folder was given
    (relative to the working directory when it was)."""

    directory: str
    file: str
    runtime: str | None  # `runtime` or `runtime.name`; None when missing or not a name
    main: str | None  # `main` as written (a file or a folder), None when not given
    config_dir: str  # where its Pulumi.<stack>.yaml files are (`stackConfigDir`, else the folder)

    @property
    def entry(self) -> str:
        """The Python file Pulumi would run: `main` (a file, or its `__main__.py`), else `__main__.py`."""
        main = os.path.join(self.directory, self.main) if self.main else self.directory
        return os.path.join(main, "__main__.py") if not self.main or os.path.isdir(main) else main

    @property
    def program(self) -> str:
        """The program as messages name it: `main`, else the project folder's `__main__.py`."""
        return os.path.normpath(os.path.join(self.directory, self.main) if self.main else self.entry)

    def why_no_program(self) -> str | None:
        """None when the project names a Python program planner can run (runtime python, with a
        `main` or the folder's `__main__.py`); else why not, as a clause ("its runtime is nodejs")."""
        if self.runtime not in PYTHON_RUNTIMES:
            shown = self.runtime if self.runtime and self.runtime.isprintable() and len(self.runtime) <= 24 else None
            return (
                f"its runtime is {shown}, and planner runs Python programs only (runtime: python)"
                if shown
                else "it names no runtime planner can run (runtime: python)"
            )
        if not self.main and not os.path.isfile(self.entry):
            return "it names no program (no `main`, and no __main__.py beside it)"
        return None


def read_project(directory: str = ".") -> Project | None:
    """The project in DIR (its `Pulumi.yaml`), None when there is none; InputError (one line: file,
    key, what was expected) when the file is not a project file planner can read."""
    path = project_file(directory)
    if path is None:
        return None
    data, lines = yamlload.load_path(path, "Pulumi project file")
    if not isinstance(data, dict):
        raise InputError([Problem(path, None, "", "expected a mapping (name, runtime, ...)")])
    where = data.get("stackConfigDir")
    if where is None:
        config_dir = directory
    elif not isinstance(where, str) or not where.strip():
        raise InputError(
            [
                Problem(
                    path,
                    yamlload.line_of(lines, ("stackConfigDir",)),
                    "stackConfigDir",
                    "expected a folder name, relative to Pulumi.yaml",
                )
            ]
        )
    else:
        config_dir = os.path.normpath(os.path.join(directory, where)) if directory != "." else os.path.normpath(where)
    runtime: Any = data.get("runtime")
    name = runtime.get("name") if isinstance(runtime, dict) else runtime
    main = data.get("main")
    return Project(
        directory,
        os.path.normpath(path),
        name if isinstance(name, str) else None,
        main if isinstance(main, str) and main.strip() else None,
        config_dir,
    )


def stack_config_dir(directory: str = ".", command: str = "plan") -> str:
    """The folder of the project's stack files: `stackConfigDir` of DIR/Pulumi.yaml, else DIR.

    InputError (one line: file, key, what was expected) when DIR holds no Pulumi project or
    `stackConfigDir` is not a folder name.
    """
    project = read_project(directory)
    if project is None:
        raise InputError([no_project(directory, command)])
    return project.config_dir


def no_project(directory: str, command: str) -> Problem:
    """No Pulumi.yaml where the command looked for its project (no path given)."""
    return Problem(
        os.path.join(directory, "Pulumi.yaml") if directory != "." else "Pulumi.yaml",
        None,
        "",
        f"not found: no Pulumi project in this folder; name stack files or folders instead (planner {command} PATH)",
    )


def project_of(stack_file: str, nearest: bool = False) -> Project | None:
    """The project a stack file (or, with `nearest`, any file) belongs to: the first folder at or
    above the file's own that holds a Pulumi.yaml whose stack folder (`stackConfigDir`) is the
    file's folder (with `nearest`: the first that holds one at all). The search stops at the top of
    the git repository (a folder holding `.git`) or of the file system; None when nothing is found.
    Each folder is given relative to the file's path as given (`infra/stacks` -> `infra`)."""
    start = os.path.dirname(stack_file) or os.curdir
    here = os.path.realpath(start)
    folder = start
    for _ in range(64):  # a file system is never deeper than this in practice; a bound, not a guess
        project = read_project(folder) if project_file(folder) else None
        if project is not None and (nearest or os.path.realpath(project.config_dir) == here):
            return project
        real = os.path.realpath(folder)
        if os.path.exists(os.path.join(folder, ".git")) or os.path.dirname(real) == real:
            return None
        folder = os.path.normpath(os.path.join(folder, os.pardir))
    return None
