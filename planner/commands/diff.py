"""`planner diff`: what a change does to each stack's cost and findings (a pull-request view).

`planner diff BASE HEAD` compares two stack files or folders; `planner diff --base-ref REF
[PATH ...]` compares the working tree with the same paths at a git ref (read with `git
show` / `git ls-tree`, nothing checked out). Stacks are matched by name; a stack on one
side only is added or removed. Exit 0, or 2 on unusable input; with `--fail-on SEVERITY`,
exit 1 when the change adds an unsuppressed finding at or above SEVERITY.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from planner.core.model.findings import SEVERITIES
from planner.core.reading.problems import InputError, Problem

if TYPE_CHECKING:
    from planner.core.document import Report

FORMATS = ("table", "markdown", "json")


def register(sub: argparse._SubParsersAction[Any]) -> None:
    from planner.commands import add_price_book_argument

    p = sub.add_parser("diff", help="cost and findings before and after a change (two paths, or a git ref)")
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="BASE HEAD (two stack files or folders); with --base-ref: the paths to compare (default: stacks/)",
    )
    p.add_argument("--base-ref", metavar="REF", help="compare PATHs in the working tree with the same paths at git REF")
    from planner.commands import add_program_arguments

    add_program_arguments(
        p,
        "compare the cluster a Pulumi program in DIR declares (as `plan --program`) "
        "with the same program at --base-ref, run from its files at that commit (exported, not checked out)",
        each=True,
    )
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument(
        "--fail-on",
        choices=SEVERITIES[:2],
        default=None,
        help="exit 1 when the change adds an unsuppressed finding at or above this severity (default: never)",
    )
    from planner.commands.plan import add_baseline_arguments, add_rule_option_arguments

    add_rule_option_arguments(p)
    add_baseline_arguments(p, create=False)  # `plan --create-baseline` writes it
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    from planner.commands import add_selection_arguments

    add_selection_arguments(p)
    add_price_book_argument(p)
    p.set_defaults(run=run)


# --- reading stacks at a git ref --------------------------------------------------------


def _git(args: Sequence[str], what: str) -> bytes:
    from planner.commands.git_reading import git

    return git(args, what)


def _object_type(ref: str, path: str) -> str | None:
    from planner.commands.git_reading import object_type

    return object_type(ref, path)


REGULAR_FILE_MODES = (b"100644", b"100755")  # what ls-tree calls a file: not a link (120000) or a submodule


def tree_files(listing: bytes) -> list[str]:
    """The regular files of `git ls-tree -z` output, their names as git stores them.

    `-z` (NUL-separated, nothing quoted): without it git quotes a name holding non-ASCII,
    `"` or `\\` (core.quotePath) as `"st\\303\\244cks/..."`, which names no file, so such a
    folder's stacks were missing at the base and reported as added.
    """
    out = []
    for record in listing.split(b"\0"):
        meta, tab, name = record.partition(b"\t")
        if tab and meta.split(b" ", 1)[0] in REGULAR_FILE_MODES:
            out.append(os.fsdecode(name))
    return out


def stacks_at_ref(
    ref: str, paths: Iterable[str], include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> list[Any]:
    """The stacks under `paths` (relative to the current directory) as they were at git `ref`;
    in a folder, plain Pulumi stack files (no `planner:cluster`) are left out, as `plan` does."""
    from planner.commands.git_reading import blob
    from planner.core.input.stack_files import config_kind, declares_cluster, matches, parse_stack, stack_name
    from planner.core.reading import yaml_lines as yamlload

    if ref.startswith("-"):  # git would read it as an option
        raise InputError(
            [
                Problem(
                    "<command line>", None, "--base-ref", "expected a git ref (a branch, tag or commit), not an option"
                )
            ]
        )
    _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], f"'{ref}' is not a commit in this repository")
    files: list[str] = []
    named: set[str] = set()
    for path in paths:
        path = os.path.normpath(path)
        kind = _object_type(ref, path)
        if kind == "tree":
            listing = _git(["ls-tree", "-z", ref, "--", f"./{path}/"], f"cannot list {path} at {ref}")
            files += [
                f
                for f in tree_files(listing)
                if stack_name(os.path.basename(f))
                and not (include and not matches(f, include))
                and not matches(f, exclude)
            ]
        elif kind == "blob":
            files.append(path)
            named.add(path)
    stacks = []
    for f in sorted(set(files)):
        raw = blob(ref, f, yamlload.MAX_BYTES, f"cannot read {f} at {ref}")
        label = f"{ref}:{f}"
        data, lines = yamlload.load(raw, label)
        if f not in named and (not declares_cluster(data) or config_kind(data) == "planning"):
            continue  # a plain Pulumi stack, or a program's stack config (its program is planned, not the file)
        stacks.append(
            parse_stack(data, lines, label, stack_name(os.path.basename(f)) or os.path.splitext(os.path.basename(f))[0])
        )
    return stacks


def _working_tree_stacks(paths: Sequence[str], must_exist: bool, args: argparse.Namespace | None = None) -> list[Any]:
    """The stacks of the paths that are there (each a stack file, a folder of them, or a Pulumi project,
    whose programs run as `plan` runs them); with `must_exist`, a path that is not there is an error."""
    from planner.commands import sources_from_args

    present = [p for p in paths if os.path.exists(p)]
    if must_exist and len(present) < len(paths):
        missing = next(p for p in paths if p not in present)
        raise InputError(
            [Problem(missing, None, "", "no such file or folder; expected a stack file or a folder of them")]
        )
    return sources_from_args("diff", args or _no_options(), present) if present else []


def _no_options() -> argparse.Namespace:
    return argparse.Namespace(paths=[], program=None, stack=None, include=(), exclude=())


# --- the command --------------------------------------------------------------------------


def compare(args: argparse.Namespace) -> Report:
    """The diff report: the head side's stacks, and the diff section (the base side's report, each
    stack's difference, the totals)."""
    from planner.commands import book_from_args
    from planner.core.planning.pipeline import PlanOptions, plan_stacks

    if args.program:
        from planner.commands import check_program_arguments, requires

        requires("pulumi", "planner diff --program")
        check_program_arguments("diff", args, args.paths)
        if not args.base_ref:
            raise InputError(
                [
                    Problem(
                        "planner diff",
                        None,
                        "--base-ref",
                        "--program needs --base-ref REF: the git ref to compare with (such as origin/main or HEAD)",
                    )
                ]
            )
    if args.base_ref:
        return _compare_at_ref(args)
    if len(args.paths) != 2:
        raise InputError(
            [
                Problem(
                    "<command line>",
                    None,
                    "PATH",
                    f"expected BASE and HEAD (two stack files or folders), or --base-ref REF; got {len(args.paths)} path(s)",
                )
            ]
        )
    base_stacks = _working_tree_stacks(args.paths[:1], must_exist=True, args=args)
    head_stacks = _working_tree_stacks(args.paths[1:], must_exist=True, args=args)
    book = book_from_args(args, [*base_stacks, *head_stacks])
    from planner.commands.plan import rule_options

    options = PlanOptions(price_book=book, rule_options=rule_options(args))
    base_plans, head_plans = plan_stacks(base_stacks, options), plan_stacks(head_stacks, options)
    pair = all(os.path.isfile(p) for p in args.paths)
    base_label, head_label = args.paths
    return _document(base_plans, head_plans, base_label, head_label, book.name, pair)


def _default_paths(args: argparse.Namespace) -> list[str]:
    """`--base-ref` with no path: the Pulumi project here (none: `[]`), else `stacks` as before."""
    from planner.core.input.pulumi_project import project_file

    if args.paths or args.program:
        return list(args.paths)
    return [] if project_file(".") is not None else ["stacks"]


def _compare_at_ref(args: argparse.Namespace) -> Report:
    """`--base-ref REF`: the working tree against REF. Stack files alone are read at REF with git
    (`stacks_at_ref`); where a Pulumi program is planned, REF's files are exported into a temporary
    folder (never checked out) and everything is planned there as in the working tree, each program
    run with the same runner and limits."""
    from planner.commands import book_from_args, expand_sources, resolve_sources
    from planner.commands.plan import rule_options
    from planner.core.planning.pipeline import PlanOptions, plan_stacks

    ref = args.base_ref
    if ref.startswith("-"):  # git would read it as an option
        raise InputError(
            [
                Problem(
                    "<command line>", None, "--base-ref", "expected a git ref (a branch, tag or commit), not an option"
                )
            ]
        )
    paths = _default_paths(args)
    present = [p for p in paths if os.path.exists(p)]
    head = resolve_sources("diff", args, present) if present or not paths or args.program else None
    if not args.program and (head is None or not head.programs):
        # stack files alone: read at REF with git, as they always were (a project given: its stack folder)
        at_ref = [_stack_folder(p) for p in paths]
        if head is not None and (args.stack or not at_ref):
            at_ref = list(head.searched)
        base_stacks = stacks_at_ref(ref, at_ref, args.include, args.exclude)
        head_stacks = expand_sources("diff", head, args) if head is not None else []
        if not base_stacks and not head_stacks:
            raise InputError(
                [
                    Problem(
                        ", ".join(at_ref),
                        None,
                        "",
                        f"no stack files here or at {ref}; expected Pulumi.<stack>.yaml",
                    )
                ]
            )
        book = book_from_args(args, [*base_stacks, *head_stacks])
        options = PlanOptions(price_book=book, rule_options=rule_options(args))
        return _document(
            plan_stacks(base_stacks, options), plan_stacks(head_stacks, options), ref, "working tree", book.name
        )
    return _compare_exported(args, head, paths)


def _compare_exported(args: argparse.Namespace, head: Any, paths: list[str]) -> Report:
    """`--base-ref` where a program is planned: the working tree's stacks (`head`, its Sources), and
    the same command line planned in REF's files, exported into a temporary folder."""
    from planner.commands import book_from_args, expand_sources
    from planner.commands.plan import rule_options
    from planner.core.planning.pipeline import PlanOptions, plan_stacks

    ref = args.base_ref
    head_stacks = expand_sources("diff", head, args) if head is not None else []
    where = args.program or os.curdir
    top = _git(["-C", where, "rev-parse", "--show-toplevel"], f"{where} is not in a git repository").decode().strip()
    _git(
        ["-C", top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        f"'{ref}' is not a commit in this repository",
    )
    real_top = os.path.realpath(top)
    inside = os.path.relpath(os.path.realpath(os.getcwd()), real_top)
    label = ref
    if args.program:
        label = f"{ref}:{os.path.relpath(os.path.realpath(args.program), real_top)}"
    base_plans: list[Any] = []
    base_stacks: list[Any] = []
    with _tree_at(top, ref) as tree:

        def at_base(path: str) -> str:  # a path of the working tree, as the same path in REF's files
            if not os.path.isabs(path) and not inside.startswith(os.pardir):
                return path  # relative to REF's copy of the working directory
            rel = os.path.relpath(os.path.realpath(path), real_top)
            return path if rel.startswith(os.pardir) else os.path.join(tree, rel)

        base_cwd = os.path.normpath(os.path.join(tree, inside)) if not inside.startswith(os.pardir) else os.getcwd()
        if os.path.isdir(base_cwd):
            with _working_directory(base_cwd):
                try:
                    base_args = argparse.Namespace(**vars(args))
                    base_args.program = at_base(args.program) if args.program else None
                    base = _sources_at_base(base_args, [at_base(p) for p in paths])
                    base_stacks = expand_sources("diff", base, base_args, quiet=True) if base is not None else []
                except InputError as exc:  # the base's own problems, named as `REF:path` like its findings
                    raise InputError(
                        [
                            replace(
                                p,
                                file=_at_ref_path(p.file, tree, ref),
                                message=p.message.replace(os.path.abspath(tree) + os.sep, f"{ref}:"),
                            )
                            for p in exc.problems
                        ]
                    ) from None
        # the price book of the working tree (`--price-book FILE` names the working tree's file)
        book = book_from_args(args, [*base_stacks, *head_stacks])
        options = PlanOptions(price_book=book, rule_options=rule_options(args))
        if base_stacks:
            with _working_directory(base_cwd):
                base_plans = _at_ref(plan_stacks(base_stacks, options), tree, ref)  # located at the program's lines
    head_plans = plan_stacks(head_stacks, options)
    return _document(base_plans, head_plans, label, "working tree", book.name)


def _stack_folder(path: str) -> str:
    """A path as `stacks_at_ref` reads it: a Pulumi project's folder as its stack folder."""
    from planner.core.input.pulumi_project import read_project

    project = read_project(path) if os.path.isdir(path) else None
    return project.config_dir if project is not None else path


def _sources_at_base(args: argparse.Namespace, paths: list[str]) -> Any:  # Sources | None
    """What the same command line names in REF's files (the working directory is REF's copy of it):
    None when it names nothing there (a program, project, stack or path the change adds)."""
    from planner.commands import resolve_sources
    from planner.core.input.pulumi_project import project_file, read_project

    if args.program:
        project = read_project(args.program) if os.path.isdir(args.program) else None
        if project is None:
            return None
        if args.stack and not any(
            os.path.isfile(os.path.join(project.config_dir, f"Pulumi.{args.stack}.{e}")) for e in ("yaml", "yml")
        ):
            return None
        return resolve_sources("diff", args, [])
    present = [p for p in paths if os.path.exists(p)]
    if (paths and not present) or (not paths and project_file(".") is None):
        return None
    if args.stack:
        folder = present[0] if present else "."
        project = read_project(folder) if os.path.isdir(folder) else None
        if project is None or not any(
            os.path.isfile(os.path.join(project.config_dir, f"Pulumi.{args.stack}.{e}")) for e in ("yaml", "yml")
        ):
            return None
    return resolve_sources("diff", args, present)


class _working_directory:
    """`with _working_directory(path):` the command's working directory is `path` (REF's copy of the
    working directory), so the paths of the command line name REF's files there and every file is
    shown relative to it as in the working tree; the directory it was, on exit."""

    def __init__(self, path: str) -> None:
        self.path, self.before = path, ""

    def __enter__(self) -> None:
        self.before = os.getcwd()
        os.chdir(self.path)

    def __exit__(self, *exc: Any) -> None:
        os.chdir(self.before)


def _document(
    base_plans: list[Any], head_plans: list[Any], base_label: str, head_label: str, book: str, pair: bool = False
) -> Report:
    """The diff report of two sides' plans: each side's stacks as `plan` reports them, and their difference."""
    from msgspec.structs import replace

    from planner.core.document.build_diff import diff_section
    from planner.core.planning.build_report import report

    for plans, label in ((base_plans, base_label), (head_plans, head_label)):
        names = [p.stack.name for p in plans]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup:
            raise InputError([Problem(label, None, "", f"two stacks named '{dup}'; expected one file per stack name")])
    base, head = report("plan", base_plans), report("diff", head_plans)
    return replace(head, diff=diff_section(base, head, base_label, head_label, book, pair))


# --- a program at a git ref ----------------------------------------------------------------


def _at_ref_path(path: str, tree: str, ref: str) -> str:
    """A path of REF's files as `REF:path`, as `--base-ref` shows stack files: one relative to the
    working directory (REF's copy of it while the base was planned) as it is, one inside the
    temporary export relative to the repository's top; other names (`<command line>`) as they are."""
    if not path or path.startswith(("<", "planner ", f"{ref}:")):
        return path
    if not os.path.isabs(path):
        return f"{ref}:{path}"
    root = os.path.abspath(tree) + os.sep
    return f"{ref}:{os.path.relpath(path, root)}" if os.path.abspath(path).startswith(root) else path


def _at_ref(plans: list[Any], tree: str, ref: str) -> list[Any]:
    """The base's plans with their paths inside the temporary export shown as `REF:path`."""
    return [
        replace(
            p,
            stack=replace(p.stack, file=_at_ref_path(p.stack.file, tree, ref)),
            findings=tuple(replace(f, file=_at_ref_path(f.file, tree, ref)) for f in p.findings),
            # a program resource's own suppressions are at its file's line
            unused_suppressions=tuple(replace(u, file=_at_ref_path(u.file, tree, ref)) for u in p.unused_suppressions),
        )
        for p in plans
    ]


class _tree_at:
    """The files of `ref` exported into a temporary folder (`git_reading.export_tree`: nothing is
    checked out, so no hook, filter or config of the repository runs), removed on exit."""

    def __init__(self, top: str, ref: str) -> None:
        self.top, self.ref, self.path, self.parent = top, ref, "", ""

    def __enter__(self) -> str:
        import tempfile

        from planner.commands.git_reading import export_tree

        self.parent = tempfile.mkdtemp(prefix="planner-base-")
        self.path = os.path.join(self.parent, "tree")
        try:
            export_tree(self.top, self.ref, self.path)
        except BaseException:
            self.__exit__()
            raise
        return self.path

    def __exit__(self, *exc: Any) -> None:
        import shutil

        shutil.rmtree(self.parent, ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    from planner.commands.plan import judged, problems_shown, read_baseline, show
    from planner.core.model.findings import at_least

    with problems_shown("diff", args):  # a broken stack file on either side: its problems, in the format asked for
        baseline = read_baseline(args, "plan")  # `plan`'s baseline: the head side's findings are judged against it
        document = compare(args)
    document = judged(document, args, baseline)
    show(document, args)
    if args.fail_on and document.diff is not None:
        for s in document.diff.stacks:
            if any(at_least(f.severity, args.fail_on) for f in s.new_findings()):
                return 1
    return 0
