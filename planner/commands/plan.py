"""`planner plan [PATH ...]`: what each stack declares, what is wrong with it, what it costs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Literal

from planner.core.model.findings import SEVERITIES
from planner.core.render.formats import FORMATS

if TYPE_CHECKING:
    from planner.core.document import RenderContext, Report
    from planner.core.document.report import Command
    from planner.core.planning.baseline import Baseline
    from planner.core.planning.pipeline import StackPlan

__all__ = ["FORMATS", "register", "run", "show", "write"]


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("plan", help="validate and summarize declared clusters (stack files or folders)")
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="stack files, folders of Pulumi.<stack>.yaml, or Pulumi project folders (a project's program is "
        "planned for each stack whose planner:cluster holds only planning keys); default: the Pulumi project here",
    )
    p.add_argument(
        "--changed-files",
        action="store_true",
        help="PATHs are the files a change touched (a pre-commit hook's): each stack file among them, and the "
        "program of the nearest Pulumi project for its other files (Python, Pulumi.yaml, requirements, JSON, "
        "YAML, TOML), is planned; the rest is left out (nothing left: nothing planned, exit 0)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (people), json, markdown (PR comment), sarif (code scanning), github (annotations); default: table",
    )
    p.add_argument(
        "--fail-on",
        choices=SEVERITIES[:2],
        default="error",
        help="exit 1 on unsuppressed findings at or above this severity",
    )
    add_rule_option_arguments(p)
    p.add_argument(
        "--suppress",
        action="append",
        default=[],
        metavar="RULE",
        help="suppress a rule in every stack (repeatable); findings stay in the output, marked suppressed",
    )
    from planner.commands import add_program_arguments

    add_program_arguments(
        p,
        "plan the clusters a Pulumi program in DIR declares: planner components, or its EC2/Auto Scaling/EKS "
        "resources read back (offline, with Pulumi mocks; RUNS the program's code with your rights)",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    add_baseline_arguments(p)
    from planner.commands import add_price_book_argument, add_selection_arguments

    add_selection_arguments(p)
    add_price_book_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.commands import requires
    from planner.core.planning.build_report import report

    # a missing extra is not a problem of the input: the run does not start, and writes nothing
    if args.program:
        requires("pulumi", "planner plan --program")
    if getattr(args, "live_prices", False):
        requires("aws", "--live-prices")
    with problems_shown("plan", args):
        baseline = read_baseline(args, "plan")  # a bad baseline stops the run before anything is planned
        plans = _plans(args)
    document = judged(report("plan", plans), args, baseline)
    show(document, args)
    return document.exit_code(args.fail_on)


def _plans(args: argparse.Namespace) -> list[StackPlan]:
    from planner.commands import book_from_args, sources_from_args
    from planner.core.planning.pipeline import PlanOptions, plan_stacks

    stacks = sources_from_args("plan", args)
    return plan_stacks(
        stacks,
        PlanOptions(
            suppress=tuple(args.suppress), price_book=book_from_args(args, stacks), rule_options=rule_options(args)
        ),
    )


class problems_shown:
    """`with problems_shown(command, args):` a run stopped by unusable input still writes its
    report, in the format asked for, holding the problems (a SARIF result and an annotation on
    the stack file's line, JSON `problems`, ...); the InputError goes on, so each problem is
    also one line on standard error and the exit code is 2.

    Except for a table on a terminal that is also standard error's: the report would say
    each problem a second time on the same screen, so the lines on standard error stand alone
    there (redirected, piped or written with `--output`, the report is written as always)."""

    def __init__(self, command: Command, args: argparse.Namespace) -> None:
        self.command, self.args = command, args

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, exc: BaseException | None, tb: object) -> None:
        from planner.core.reading.problems import InputError

        if isinstance(exc, InputError) and not _said_on_the_same_screen(self.args):
            from planner.core.planning.build_report import problems_report

            try:
                show(problems_report(self.command, exc.problems), self.args)
            except InputError as unwritten:  # the report could not be written either: say both
                raise InputError([*exc.problems, *unwritten.problems]) from None


def render_context(fail_on: Literal["error", "warning"] = "error") -> RenderContext:  # --fail-on's choices
    """The render context of this run: the layout the CLI chose (`planner.core.text.terminal.term`) and `--fail-on`."""
    from planner.core.document import RenderContext
    from planner.core.text.terminal import term

    t = term()
    return RenderContext(width=None if t.wide else t.width, colour=t.color, fail_on=fail_on)


def show(document: Report, args: argparse.Namespace) -> None:
    """Render `document` in `--format` and write it (`--output`, else standard output)."""
    from planner.core.render.formats import render

    write(render(document, args.format, render_context(getattr(args, "fail_on", "error"))), args.output)


def add_baseline_arguments(parser: argparse.ArgumentParser, create: bool = True) -> None:
    """`--baseline FILE` (and, where the command writes one, `--create-baseline FILE`): docs/output.md#baselines."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--baseline",
        metavar="FILE",
        help="findings recorded in FILE (written by --create-baseline) do not fail the run: shown as "
        "baselined; new findings fail as usual, and entries no longer found are listed as fixed",
    )
    if create:
        group.add_argument(
            "--create-baseline",
            metavar="FILE",
            help="write each stack's unsuppressed error and warning findings to FILE (sorted JSON, "
            "by rule and location, not line) as the baseline for --baseline; they show as baselined, exit 0",
        )


def read_baseline(args: argparse.Namespace, command: str) -> Baseline | None:
    """The baseline `--baseline` names, for `command` (`diff` reads `plan`'s); InputError when unusable."""
    if not getattr(args, "baseline", None):
        return None
    from planner.core.planning.baseline import load

    return load(args.baseline, command)


def judged(document: Report, args: argparse.Namespace, baseline: Baseline | None) -> Report:
    """`document` judged against the baseline: the one `--baseline` names, or the one `--create-baseline`
    writes from it (all-or-nothing, so the file is whole or as it was)."""
    created = getattr(args, "create_baseline", None)
    if not created and baseline is None:
        return document  # the baseline module loads only for a run that uses one
    from planner.core.planning.baseline import apply, dumps, of_report

    if created:
        from planner.core.reading.bounded_files import write_atomic

        baseline = of_report(document)
        write_atomic(created, dumps(baseline), "--create-baseline")
        return apply(document, baseline, created)
    if baseline is not None:
        return apply(document, baseline, args.baseline)
    return document


def add_rule_option_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that set rule options (read back by `rule_options`), the same on `plan` and `diff`."""
    parser.add_argument(
        "--fail-on-incomplete-cost",
        action="store_true",
        help="an incomplete estimate (a price unknown, compute or hours left out) is an error "
        "(budget-incomplete-cost), budget or not",
    )


def rule_options(args: argparse.Namespace) -> tuple[object, ...]:
    """The rule options a command's flags set (`--fail-on-incomplete-cost`), as their typed records."""
    from planner.core.rules.prices_and_budget import IncompleteCost

    return (IncompleteCost(fail_on_incomplete=True),) if getattr(args, "fail_on_incomplete_cost", False) else ()


def write(text: str, output: str | None) -> None:
    """Write the report (of the plan, or of the input problems that stopped it).

    An `--output` that cannot be written is unusable input like a bad stack: one line, exit 2,
    and the file keeps what it held.
    """
    from planner.core.reading.bounded_files import emit, write_atomic

    if output:
        write_atomic(output, text, "--output")  # a temporary file, then a rename: never a half-written report
    else:
        emit(text)


def _said_on_the_same_screen(args: argparse.Namespace) -> bool:
    """True when a table report of the problems would go to the terminal their stderr lines go to."""
    import sys

    if getattr(args, "format", "table") != "table" or getattr(args, "output", None):
        return False
    return _is_terminal(sys.stdout) and _is_terminal(sys.stderr)


def _is_terminal(stream: object) -> bool:
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):  # closed or not a file
        return False
