"""What `planner plan PATH ...` (and `diff`, `preflight`) plans: stack files, and Pulumi programs
for their stacks, told apart by what each `Pulumi.<stack>.yaml` holds.

A stack file declares a whole cluster under `planner:cluster` (its topology keys: `availability_zone`,
`node_groups`, ...). A Pulumi program's stack config holds only planning keys there (`schedule`,
`workload`, `budget`, `suppress`), or no `planner:cluster` at all: the program's resources declare
the cluster. So, with no path, or with a folder that is a Pulumi project (its `Pulumi.yaml`):

- each stack file of the project (its `stackConfigDir`) that declares a whole cluster is planned as
  a stack file; when the project also names a Python program, one info line says that this mode
  was assumed and how to run the program instead;
- each other stack of a project that names a Python program is planned by running the program for
  that stack (`ProgramStack`; a plain stack beside whole-cluster stack files is skipped, as in a
  folder of stack files).

A stack config with planning keys only, named or found in a folder, belongs to the project whose
stack folder holds it (`project_of`): its program is planned for that stack; with no such project
(or one that names no Python program) it is one input error saying so, never read as an incomplete
stack file. `--changed-files` maps the files a change touched (pre-commit's, a pull request's) to
what they belong to: a stack file, or the program of the nearest project for the program's own
files. Nothing here runs a program: the commands do (`planner.commands.expand_sources`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from msgspec import Struct

from planner.core.input import stack_files as sf
from planner.core.input.pulumi_project import Project, no_project, project_file, project_of, read_project
from planner.core.model.cluster import Stack
from planner.core.reading.fields import key_path
from planner.core.reading.problems import InputError, Problem
from planner.core.reading.yaml_lines import Lines, line_of

# The files of a program that change what it declares (`--changed-files`, the pre-commit hook
# `planner-plan-program`, the Action's list of changed files): its Python sources, its project file
# and dependencies, and the data files it may read. Stack files are matched first.
PROGRAM_FILE = re.compile(r"^(.+\.(py|pyi|json|ya?ml|toml|cfg)|requirements[^/]*\.txt)$")


class ProgramStack(Struct, frozen=True):
    """A stack whose cluster a Pulumi program declares: run the program in `directory` (the folder of
    its Pulumi.yaml) with the config of `config_file` (None when it is not known yet: `--program DIR
    --stack NAME`, whose command checks it)."""

    directory: str
    stack: str
    config_file: str | None = None
    line: int | None = None  # of `planner:cluster` in the config file, when it has one


class Sources(Struct, frozen=True):
    """The stacks to plan, in order (stack files read, programs still to run), the plain Pulumi stack
    files skipped, the info lines to show (`notes`), and the changed files that are neither."""

    items: tuple[Stack | ProgramStack, ...] = ()
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    searched: tuple[str, ...] = ()  # the folders and files read for stack files

    @property
    def programs(self) -> list[ProgramStack]:
        return [i for i in self.items if isinstance(i, ProgramStack)]

    @property
    def stacks(self) -> list[Stack]:
        return [i for i in self.items if isinstance(i, Stack)]


def resolve(
    paths: Sequence[str],
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    *,
    stack: str | None = None,
    changed: bool = False,
    command: str = "plan",
) -> Sources:
    """The stack files and program stacks `paths` name (none: the Pulumi project in the working
    directory); `stack`: only that stack of the project; `changed`: `paths` are the files a change
    touched. InputError with every problem, one line each."""
    include, exclude = tuple(include), tuple(exclude)
    left_out: list[str] = []
    if changed:
        paths, left_out = _changed(paths)
        if not paths:
            return Sources(left_out=tuple(left_out))
    elif not paths:
        if project_file(".") is None:
            raise InputError([no_project(".", command)])
        paths = ["."]
    projects: dict[str, Project] = {}  # the stack folder of each project given -> the project
    expanded: list[str] = []
    for p in paths:
        project = read_project(p) if os.path.isdir(p) and project_file(p) else None
        if project is None:
            expanded.append(p)
            continue
        projects.setdefault(os.path.realpath(project.config_dir), project)
        expanded.append(project.config_dir)
    if stack is not None:
        expanded = [_stack_file_of(stack, paths, projects, command)]
    found = sf.find(expanded, include, exclude)
    return _classify(found, projects, left_out, tuple(expanded), changed, command)


def _stack_file_of(stack: str, paths: Sequence[str], projects: dict[str, Project], command: str) -> str:
    """`--stack NAME` without `--program`: that stack's file in the one project given (or here)."""
    if len(projects) != 1 or len(paths) != 1:
        raise InputError(
            [
                Problem(
                    f"planner {command}",
                    None,
                    "--stack",
                    "names a stack of one Pulumi project: give no path (the project here) or the project's "
                    "folder, or --program DIR",
                )
            ]
        )
    (project,) = projects.values()
    for ext in ("yaml", "yml"):
        path = os.path.join(project.config_dir, f"Pulumi.{stack}.{ext}")
        if os.path.isfile(path):
            return path
    raise InputError(
        [
            Problem(
                os.path.join(project.config_dir, f"Pulumi.{stack}.yaml"),
                None,
                "--stack",
                f"stack file missing: no Pulumi.{stack}.yaml in the project's stack folder; expected the "
                "stack's config (`pulumi stack init` and `pulumi config set` write it)",
            )
        ]
    )


class _Read(Struct):
    found: sf.Found
    data: object
    lines: Lines
    name: str
    kind: sf.ConfigKind


def _classify(
    found: list[sf.Found],
    projects: dict[str, Project],
    left_out: list[str],
    searched: tuple[str, ...],
    changed: bool = False,
    command: str = "plan",
) -> Sources:
    """Each stack file found, as a stack file or a program's stack (module docstring). With `changed`,
    no file counts as named: a changed plain Pulumi stack is skipped, not refused."""
    problems: list[Problem] = []
    read: list[_Read] = []
    for f in found:
        if changed:
            f = sf.Found(f.path, False)
        try:
            data, lines, name = sf._read_stack_file(f.path)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        read.append(_Read(f, data, lines, name, sf.config_kind(data)))
    resolved: dict[str, str] = {}  # a folder as written -> resolved: once per folder, not per stack file
    folders: list[str] = []
    for r in read:
        written = os.path.dirname(r.found.path)
        if written not in resolved:
            resolved[written] = _folder(r.found.path)
        folders.append(resolved[written])
    # a folder of whole-cluster stack files keeps skipping the plain Pulumi stacks beside them
    with_clusters = {folder for folder, r in zip(folders, read) if r.kind == "cluster"}
    owners: dict[str, Project | None] = {}
    items: list[Stack | ProgramStack] = []
    skipped: list[str] = []
    assumed: dict[str, list[str]] = {}  # project file -> its whole-cluster stack files (with a program)
    seen: set[tuple[str, str]] = set()
    for folder, r in zip(folders, read):
        given = projects.get(folder)
        try:
            if r.kind == "cluster":
                items.append(sf.parse_stack(r.data, r.lines, r.found.path, r.name))
                if given is not None and given.why_no_program() is None:
                    assumed.setdefault(given.file, []).append(r.found.path)
                continue
            owner = given if given is not None else _owner(r.found.path, owners)
            why = "no Pulumi project" if owner is None else owner.why_no_program()
            if (
                why is None
                and owner is not None
                and (r.kind == "planning" or r.found.named or folder not in with_clusters)
            ):
                key = (os.path.realpath(owner.directory), r.name)
                if key not in seen:
                    seen.add(key)
                    line = line_of(r.lines, sf.CLUSTER_PATH) if r.kind == "planning" else None
                    items.append(ProgramStack(owner.directory, r.name, r.found.path, line))
                continue
            if r.kind == "plain" and not r.found.named:
                skipped.append(r.found.path)
            elif r.kind == "planning" and _only_planning_keys(r.data):
                problems.append(_no_program(r, owner))
            else:  # a plain stack named, an empty or misspelt cluster: the stack file parser says what is missing
                items.append(sf.parse_stack(r.data, r.lines, r.found.path, r.name))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    if skipped and not items and not changed:
        raise InputError([sf.only_plain_stacks(searched, skipped)])
    notes = tuple(_assumed_note(projects, file, files, command) for file, files in assumed.items())
    return Sources(tuple(items), tuple(skipped), notes, tuple(left_out), searched)


def _folder(path: str) -> str:
    return os.path.realpath(os.path.dirname(path) or os.curdir)


def _owner(path: str, cache: dict[str, Project | None]) -> Project | None:
    folder = _folder(path)
    if folder not in cache:
        cache[folder] = project_of(path)
    return cache[folder]


def _only_planning_keys(data: object) -> bool:
    """A non-empty `planner:cluster` of planning keys only (an empty or misspelt one is the stack file
    parser's to explain: the keys it misses, a did-you-mean)."""
    value = data["config"][sf.CLUSTER_KEY] if isinstance(data, dict) else None
    return isinstance(value, dict) and bool(value) and all(k in sf.PLANNING_KEYS for k in value)


def _no_program(r: _Read, owner: Project | None) -> Problem:
    """A program's planning keys with no program to plan them for: one line, file, key, what was expected."""
    keys = ", ".join(str(k) for k in r.data["config"][sf.CLUSTER_KEY]) if isinstance(r.data, dict) else ""
    if owner is None:
        where = (
            "but no Pulumi project here names one (no Pulumi.yaml beside this file, or above it with "
            "stackConfigDir naming this folder)"
        )
    else:
        where = f"but {owner.file} cannot be planned as one: {owner.why_no_program()}"
    return Problem(
        r.found.path,
        line_of(r.lines, sf.CLUSTER_PATH),
        key_path(sf.CLUSTER_PATH),
        f"holds only planning keys ({keys}), the stack config of a Pulumi program, {where}; expected a "
        f"whole cluster for a stack file ({' and '.join(sf.SCHEMA['cluster'].required)}), or this file in "
        "its program's project (planner plan --program DIR --stack NAME)",
    )


def _assumed_note(projects: dict[str, Project], file: str, files: list[str], command: str) -> str:
    """The info line for a project that names a program and whose stack files declare whole clusters."""
    project = next(p for p in projects.values() if p.file == file)
    n = len(files)
    shown = ", ".join(files[:3]) + (f" and {n - 3} more" if n > 3 else "")
    # how to say "stack files" without this line: the stack folder, where it is not the project's own
    if os.path.normpath(project.config_dir) != os.path.normpath(project.directory):
        named = f"as `planner {command} {project.config_dir}` plans {'them' if n != 1 else 'it'}"
    else:
        named = f"as naming {'them' if n != 1 else 'it'} does"
    return (
        f"info: {file} names a Python program ({project.program}) and {n} of its stack files "
        f"declare{'s' if n == 1 else ''} a whole cluster in {sf.CLUSTER_KEY} "
        f"({shown}): planned as {'stack files' if n != 1 else 'a stack file'}, {named}; to run the program instead: "
        f"planner {command} --program {project.directory} --stack NAME"
    )


def _changed(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """The changed files as what to plan: each stack file that is still there, and the project (its
    folder) of each program file; the rest (other files, deleted stack files) left out, in order."""
    out: list[str] = []
    left_out: list[str] = []
    for p in paths:
        name = os.path.basename(p)
        if sf.stack_name(name):
            (out if os.path.isfile(p) else left_out).append(p)
            continue
        project = project_of(p, nearest=True) if PROGRAM_FILE.fullmatch(name) else None
        if project is None or project.why_no_program() is not None:
            left_out.append(p)
        elif project.directory not in out:
            out.append(project.directory)
    return out, left_out


def program_stacks(directory: str, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Sources:
    """`--program DIR` without `--stack`: the program for every stack of its project (each
    `Pulumi.<stack>.yaml` in its stack folder), whatever the files hold."""
    if not os.path.isdir(directory):
        raise InputError([Problem(directory, None, "", "no such folder (expected a Pulumi project)")])
    project = read_project(directory)
    if project is None:
        raise InputError([Problem(directory, None, "", "no Pulumi.yaml in this folder (expected a Pulumi project)")])
    found = sf.find([project.config_dir], include, exclude)
    items = tuple(ProgramStack(project.directory, sf.stack_name(os.path.basename(f.path)) or "", f.path) for f in found)
    return Sources(items, searched=(project.config_dir,))
