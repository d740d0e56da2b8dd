"""Subcommands of `planner`; each module has `register(subparsers)`."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.core.cost import PriceBook
    from planner.core.cost.book import Override
    from planner.core.input.stack_sources import ProgramStack, Sources
    from planner.core.model.cluster import Stack
    from planner.core.reading.problems import Problem


AWS_TIMEOUT_SECONDS = 60.0  # --aws-timeout default (planner.aws.deadline; kept here so plan starts without planner.aws)


def aws_timeout_arg(text: str) -> float:
    """argparse type for `--aws-timeout` and `--program-timeout`: seconds, from 1 to 3600."""
    import math

    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 1 <= v <= 3600:
        from planner.core.text.safe import one_line

        raise argparse.ArgumentTypeError(f"expected seconds from 1 to 3600, got '{one_line(text[:24])}'")
    return v


def region_arg(text: str) -> str:
    """argparse type for `--region`: the shape of an AWS region name, as stack files are checked."""
    from planner.core.reading.fields import REGION as _REGION

    if not _REGION.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected an AWS region such as us-east-2, got '{text[:24]}'")
    return text


def add_price_book_argument(parser: argparse.ArgumentParser) -> None:
    """The `--price-book` option, identical in every command that prices something."""
    from planner.core.cost import BUILTIN

    parser.add_argument(
        "--price-book",
        metavar="NAME|FILE",
        default=None,
        help=f"price book: {' or '.join(BUILTIN)} (built-in; default current), or a YAML file "
        "whose entries take precedence over the built-in current book",
    )
    parser.add_argument(
        "--live-prices",
        action="store_true",
        help="layer current on-demand EC2 and FSx for Lustre prices from the AWS Price List Query API "
        "over the price book (cached 24 h; falls back to the book with a warning)",
    )
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="TYPE[:PURCHASE][@REGION]=USD",
        help="your own USD per instance-hour for a type (optionally one purchase option and region); "
        "repeatable, wins over the price book and is shown as your figure",
    )
    add_aws_timeout_argument(parser)


def add_aws_timeout_argument(parser: argparse.ArgumentParser) -> None:
    """`--aws-timeout`: the overall limit on a command's AWS calls (planner.aws.deadline)."""
    DEFAULT_SECONDS = AWS_TIMEOUT_SECONDS
    parser.add_argument(
        "--aws-timeout",
        type=aws_timeout_arg,
        default=DEFAULT_SECONDS,
        metavar="SECONDS",
        help=f"stop waiting for AWS after SECONDS in all (default {DEFAULT_SECONDS:g}); what was not "
        "answered by then is reported as unknown",
    )


# The light install: the base distribution plans stack files with PyYAML alone; what needs more
# comes with an extra (pyproject.toml's optional dependencies), and says which one.
EXTRAS = {"pulumi": ("pulumi", "pulumi_aws", "pulumi_policy"), "aws": ("boto3", "botocore")}
DISTRIBUTION = "pulumi-cluster-planner"


def requires(extra: str, what: str) -> None:
    """Stop with one line naming the extra to install when `what` (a command or option) needs
    one whose packages are not installed (exit 2: nothing was planned)."""
    import importlib.util

    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        from planner.core.reading.problems import InputError, Problem

        raise InputError(
            [
                Problem(
                    what,
                    None,
                    "",
                    f"needs the [{extra}] extra ({', '.join(missing)} not installed): "
                    f"pip install '{DISTRIBUTION}[{extra}]'",
                )
            ]
        )


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """`--include`/`--exclude`: which stack files of the folders (and files) given are read."""
    parser.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only stack files matching GLOB, by path or file name (repeatable), such as 'Pulumi.prod-*.yaml'",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out stack files matching GLOB, by path or file name (repeatable); globs that "
        "leave no stack file are an input error",
    )


def check_program_arguments(command: str, args: argparse.Namespace, paths: Iterable[str] = ()) -> None:
    """`--program DIR` goes with no stack file path (nor `--changed-files`); the one line names the
    command that was run (`planner preflight: PATH: ...`), not always `plan`."""
    from planner.core.reading.problems import InputError, Problem

    where = f"planner {command}"
    if args.program and list(paths):
        raise InputError([Problem(where, None, "PATH", "give stack files or --program, not both")])
    if args.program and getattr(args, "changed_files", False):
        raise InputError([Problem(where, None, "--changed-files", "give changed files or --program, not both")])


SANDBOX_MODES = ("auto", "required", "off")


def add_program_arguments(
    p: argparse.ArgumentParser, program_help: str, *, each: bool = False, one: bool = False
) -> None:
    """`--program DIR`, `--stack NAME`, `--program-timeout`, `--sandbox` and `--no-programs`: the options
    of every command that runs a Pulumi program (`plan`, `diff`, `preflight`, `capacity`), defined once;
    `program_help` says what the command does with the program, `each` that it may run it more than
    once (`diff`), `one` that it plans one stack (`capacity`: --stack chooses it when the project has several)."""
    p.add_argument("--program", metavar="DIR", help=program_help)
    p.add_argument(
        "--stack",
        metavar="NAME",
        help="only this stack (its Pulumi.NAME.yaml) of the program (--program DIR), or of the Pulumi project "
        "here or given as PATH; default: "
        + ("the project's one stack (several: choose one)" if one else "every stack of the project"),
    )
    p.add_argument(
        "--program-timeout",
        type=aws_timeout_arg,
        default=300.0,
        metavar="SECONDS",
        help=f"stop {'each' if each else 'a'} program run that takes longer (default: 300)",
    )
    p.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default="auto",
        help="run a program in its own Linux namespaces where the kernel allows (auto, the default, says in "
        "one line when it cannot); required: refuse to run the program without them; off: the process guard only",
    )
    p.add_argument(
        "--no-programs",
        action="store_true",
        help="never run a Pulumi program: a program's stack config (planning keys only) or project found "
        "in PATHs is an input error instead (a CI job that must not run the code it checks)",
    )


def resolve_sources(command: str, args: argparse.Namespace, paths: list[str] | None = None) -> Sources:
    """What the command's PATHs, `--program`, `--stack` and `--changed-files` name: stack files read,
    and the Pulumi programs to run for their stacks (`planner.core.input.stack_sources`)."""
    from planner.core.input import stack_sources

    paths = list(getattr(args, "paths", []) if paths is None else paths)
    check_program_arguments(command, args, paths)
    include, exclude = getattr(args, "include", ()), getattr(args, "exclude", ())
    if args.program:
        if args.stack:
            return stack_sources.Sources((stack_sources.ProgramStack(args.program, args.stack),))
        return stack_sources.program_stacks(args.program, include, exclude)
    return stack_sources.resolve(
        paths,
        include,
        exclude,
        stack=args.stack or None,
        changed=getattr(args, "changed_files", False),
        command=command,
    )


def expand_sources(command: str, sources: Sources, args: argparse.Namespace, quiet: bool = False) -> list[Stack]:
    """The stacks of `sources`: the stack files as read, each program run (offline, in the sandbox)
    for its stack; every problem of every run at once. The skipped plain stacks, the mode assumed for
    a project and the changed files left out are info lines on standard error (not with `quiet`:
    the base side of a diff, whose working tree said them)."""
    from planner.core.reading.problems import InputError, error_line

    if not quiet:
        report_skipped(list(sources.skipped))
        for note in sources.notes:
            error_line(note)
    if sources.left_out and not quiet:
        n = len(sources.left_out)
        shown = ", ".join(sources.left_out[:5]) + (f" and {n - 5} more" if n > 5 else "")
        nothing = "nothing to plan: " if not sources.items else ""
        error_line(
            f"info: {nothing}left out {n} changed file{'s' if n != 1 else ''} that belong{'s' if n == 1 else ''} "
            f"to no stack file or Python Pulumi program: {shown}"
        )
    programs = sources.programs
    if not programs:
        return sources.stacks
    if getattr(args, "no_programs", False):
        raise InputError([_refused(p) for p in programs])
    if args.program:
        requires("pulumi", f"planner {command} --program")
    else:
        _requires_for(programs)
    from planner.core.input.stack_sources import ProgramStack
    from planner.runtime.offline_run import stacks_for_cli

    out: list[Stack] = []
    problems: list[Problem] = []
    for item in sources.items:
        if not isinstance(item, ProgramStack):
            out.append(item)
            continue
        try:
            out.extend(stacks_for_cli(item.directory, item.stack, args.program_timeout, args.sandbox))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return out


def sources_from_args(command: str, args: argparse.Namespace, paths: list[str] | None = None) -> list[Stack]:
    """`resolve_sources` then `expand_sources`: the stacks a command plans."""
    return expand_sources(command, resolve_sources(command, args, paths), args)


def _project_file(program: ProgramStack) -> str:
    """The project's Pulumi.yaml as messages name it (`infra/Pulumi.yaml`)."""
    import os

    from planner.core.input.pulumi_project import project_file

    return os.path.normpath(project_file(program.directory) or os.path.join(program.directory, "Pulumi.yaml"))


def _refused(program: ProgramStack) -> Problem:
    from planner.core.reading.problems import Problem

    return Problem(
        program.config_file or program.directory,
        program.line,
        "planner:cluster" if program.line else "",
        f"is the stack config of the Pulumi program of {_project_file(program)} (stack {program.stack}): planning it "
        "runs the program's code, which --no-programs refuses; expected a stack file that declares a whole "
        "cluster (docs/security.md)",
    )


def _requires_for(programs: list[ProgramStack]) -> None:
    """The [pulumi] extra, named with the stack config that made a program the thing to plan."""
    import importlib.util

    missing = [m for m in EXTRAS["pulumi"] if importlib.util.find_spec(m) is None]
    if not missing:
        return
    from planner.core.reading.problems import InputError, Problem

    first, n = programs[0], len(programs)
    more = f" (and {n - 1} more stack{'s' if n > 2 else ''})" if n > 1 else ""
    raise InputError(
        [
            Problem(
                first.config_file or first.directory,
                first.line,
                "planner:cluster" if first.line else "",
                f"is the stack config of the Pulumi program of {_project_file(first)}{more}: planner runs the program "
                f"to read its cluster, which needs the [pulumi] extra ({', '.join(missing)} not installed): "
                f"pip install '{DISTRIBUTION}[pulumi]' (pre-commit: the hook planner-plan-program)",
            )
        ]
    )


def report_skipped(skipped: list[str]) -> None:
    """The one info line on standard error for the plain Pulumi stack files a folder held."""
    if skipped:
        from planner.core.reading.problems import error_line

        error_line(
            f"info: skipped {len(skipped)} stack file{'s' if len(skipped) != 1 else ''} without planner:cluster "
            f"(plain Pulumi stacks): {', '.join(skipped)}"
        )


def _unmatched_prices(overrides: tuple[Override, ...], stacks: list[Stack]) -> None:
    """A warning for each `--price` that prices no node group of `stacks`: a typo in the type,
    purchase or region would otherwise leave the estimate on the book's figure, silently."""
    from planner.core.reading.problems import error_line

    groups = {(g.instance_type, s.region, g.purchase) for s in stacks for g in s.cluster.node_groups}
    for o in overrides:
        if not any(o.matches(*g) for g in groups):
            names = sorted({f"{t}:{p}@{r}" for t, r, p in groups})
            declared = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "") or "none"
            error_line(
                f"warning: --price {o.text} matches no node group of the stacks planned (they declare: "
                f"{declared}); it prices nothing"
            )


def book_from_args(args: argparse.Namespace, stacks: Iterable[Stack] = ()) -> PriceBook:
    """The price book selected by a command's options (`--price-book`, `--live-prices`).

    With `--live-prices`, current on-demand prices for what `stacks` use (or, for compare,
    every type of `args.region`) are layered over the book; boto3 is imported only then.
    """
    from planner.core.cost.book import load_price_book, parse_override

    overrides = tuple(parse_override(t) for t in getattr(args, "price", None) or ())
    stacks = list(stacks)
    if stacks:
        _unmatched_prices(overrides, stacks)
    book = load_price_book(getattr(args, "price_book", None))
    if getattr(args, "live_prices", False):
        requires("aws", "--live-prices")
        from planner.aws import deadline
        from planner.aws.live_prices import live_book, needs_for

        needs = needs_for(stacks, getattr(args, "region", None), getattr(args, "types", ()))
        try:
            with deadline.limit(getattr(args, "aws_timeout", deadline.DEFAULT_SECONDS)):
                book = live_book(book, needs)
        except deadline.DeadlineExceeded as exc:  # the timer fired between two calls
            from planner.cli import error_line

            error_line(f"warning: live prices unavailable ({exc}); using the price book '{book.name}'")
        stacks = list(stacks)
        if stacks:  # Capacity Blocks have no Price List entry: their offerings are the live price
            from planner.aws.block_offering_requests import warn_block_prices
            from planner.core.reading.problems import error_line

            warn_block_prices(
                stacks,
                book.with_overrides(overrides),
                getattr(args, "aws_timeout", deadline.DEFAULT_SECONDS),
                error_line,
            )
    return book.with_overrides(overrides)
