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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

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
    from planner.core.input.stack_files import declares_cluster, matches, parse_stack, stack_name
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
        if f not in named and not declares_cluster(data):
            continue
        stacks.append(
            parse_stack(data, lines, label, stack_name(os.path.basename(f)) or os.path.splitext(os.path.basename(f))[0])
        )
    return stacks


def _working_tree_stacks(paths: Sequence[str], must_exist: bool, args: argparse.Namespace | None = None) -> list[Any]:
    from planner.commands import stacks_from_args

    present = [p for p in paths if os.path.exists(p)]
    if must_exist and len(present) < len(paths):
        missing = next(p for p in paths if p not in present)
        raise InputError(
            [Problem(missing, None, "", "no such file or folder; expected a stack file or a folder of them")]
        )
    return stacks_from_args(args or argparse.Namespace(), present) if present else []


# --- the command --------------------------------------------------------------------------


def compare(args: argparse.Namespace) -> Report:
    """The diff report: the head side's stacks, and the diff section (the base side's report, each
    stack's difference, the totals)."""
    from planner.commands import book_from_args
    from planner.core.planning.pipeline import PlanOptions, plan_stacks

    if args.program or args.stack:
        from planner.commands import requires

        requires("pulumi", "planner diff --program")
        return _compare_program(args)
    if args.base_ref:
        paths = args.paths or ["stacks"]
        base_stacks = stacks_at_ref(args.base_ref, paths, args.include, args.exclude)
        head_stacks = _working_tree_stacks(paths, must_exist=False, args=args)
        if not base_stacks and not head_stacks:
            raise InputError(
                [
                    Problem(
                        ", ".join(paths),
                        None,
                        "",
                        f"no stack files here or at {args.base_ref}; expected Pulumi.<stack>.yaml",
                    )
                ]
            )
        base_label, head_label = args.base_ref, "working tree"
    else:
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
        base_label, head_label = args.paths
    book = book_from_args(args, [*base_stacks, *head_stacks])
    from planner.commands.plan import rule_options

    options = PlanOptions(price_book=book, rule_options=rule_options(args))
    base_plans, head_plans = plan_stacks(base_stacks, options), plan_stacks(head_stacks, options)
    pair = not args.base_ref and all(os.path.isfile(p) for p in args.paths)
    return _document(base_plans, head_plans, base_label, head_label, book.name, pair)


def _document(
    base_plans: list[Any], head_plans: list[Any], base_label: str, head_label: str, book: str, pair: bool = False
) -> Report:
    """The diff report of two sides' plans: each side's stacks as `plan` reports them, and their difference."""
    from dataclasses import replace

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


def _compare_program(args: argparse.Namespace) -> Report:
    """`diff --program DIR --stack NAME --base-ref REF`: the program run (as `plan --program`, the
    same runner and limits) at REF, its files exported into a temporary folder, and in the working tree."""
    from planner.commands import book_from_args, check_program_arguments
    from planner.commands.plan import rule_options
    from planner.core.planning.pipeline import PlanOptions, plan_stacks
    from planner.runtime.offline_run import load, stacks_for_cli

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
    if args.base_ref.startswith("-"):  # git would read it as an option
        raise InputError(
            [
                Problem(
                    "<command line>", None, "--base-ref", "expected a git ref (a branch, tag or commit), not an option"
                )
            ]
        )
    head_stacks = stacks_for_cli(args.program, args.stack, args.program_timeout, args.sandbox)
    top = (
        _git(["-C", args.program, "rev-parse", "--show-toplevel"], f"{args.program} is not in a git repository")
        .decode()
        .strip()
    )
    _git(
        ["-C", top, "rev-parse", "--verify", "--quiet", f"{args.base_ref}^{{commit}}"],
        f"'{args.base_ref}' is not a commit in this repository",
    )
    inside = os.path.relpath(os.path.realpath(args.program), os.path.realpath(top))
    with _tree_at(top, args.base_ref) as tree:
        base_dir = os.path.join(tree, inside)
        present = os.path.isfile(os.path.join(base_dir, "Pulumi.yaml")) or os.path.isfile(
            os.path.join(base_dir, "Pulumi.yml")
        )
        base_stacks = []  # no project, or no such stack, at the base: every cluster is added
        if present and load(base_dir).stack_file(args.stack) is not None:
            try:
                base_stacks = stacks_for_cli(base_dir, args.stack, args.program_timeout, args.sandbox)
            except InputError as exc:  # the base's own problems, named as `REF:path` like its findings
                raise InputError(
                    [
                        replace(
                            p,
                            file=_at_ref_path(p.file, tree, args.base_ref),
                            message=p.message.replace(os.path.abspath(tree) + os.sep, f"{args.base_ref}:"),
                        )
                        for p in exc.problems
                    ]
                ) from None
        book = book_from_args(args, [*base_stacks, *head_stacks])
        options = PlanOptions(price_book=book, rule_options=rule_options(args))
        base_plans = _at_ref(plan_stacks(base_stacks, options), tree, args.base_ref)  # located at the program's lines
    head_plans = plan_stacks(head_stacks, options)
    return _document(base_plans, head_plans, f"{args.base_ref}:{inside}", "working tree", book.name)


def _at_ref_path(path: str, tree: str, ref: str) -> str:
    """A path inside the temporary export as `REF:path`, as `--base-ref` shows stack files."""
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
