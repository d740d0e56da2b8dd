"""`planner preflight [PATH ...]`: check declared clusters against the AWS account before deploying.

Asks what only the account can tell (offerings per Availability Zone, EFA and network
cards, vCPU quotas, capacity reservations, VPC and subnet) with boto3's credential chain,
and reports findings in the formats and with the exit codes of `planner plan`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from planner.commands import plan, region_arg
from planner.core.model.findings import SEVERITIES

if TYPE_CHECKING:
    from planner.aws.account import Account
    from planner.core.model.cluster import Stack
    from planner.core.planning.pipeline import StackPlan


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "preflight",
        help="check declared clusters against the AWS account (offerings, quotas, capacity reservations, network)",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="stack files, folders of Pulumi.<stack>.yaml, or Pulumi project folders (their programs, as plan "
        "reads them); default: the Pulumi project here",
    )
    p.add_argument("--profile", metavar="NAME", help="AWS profile to use (default: boto3's credential chain)")
    p.add_argument(
        "--region", metavar="REGION", type=region_arg, help="query REGION instead of each stack's aws:region"
    )
    p.add_argument("--format", choices=plan.FORMATS, default="table", help="output format (default: table)")
    p.add_argument(
        "--fail-on",
        choices=SEVERITIES[:2],
        default="error",
        help="exit 1 on unsuppressed findings at or above this severity",
    )
    p.add_argument("--suppress", action="append", default=[], metavar="CHECK", help="suppress a check id (repeatable)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    plan.add_baseline_arguments(p)
    from planner.commands import add_program_arguments

    add_program_arguments(
        p,
        "check the cluster a Pulumi program in DIR declares, read back as "
        "`plan --program` does (RUNS the program's code, offline, with your rights)",
    )
    from planner.commands import add_aws_timeout_argument, add_selection_arguments

    add_selection_arguments(p)
    add_aws_timeout_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.commands import requires

    requires("aws", "planner preflight")
    if args.program:
        requires("pulumi", "planner preflight --program")
    from planner.aws.preflight_run import SetupError, open_account
    from planner.commands import sources_from_args
    from planner.core.planning.build_report import report
    from planner.core.planning.pipeline import check_suppressions

    with plan.problems_shown("preflight", args):
        baseline = plan.read_baseline(args, "preflight")
        # stack files, and each program's cluster read back as `plan` reads it; no path: the project here
        stacks = sources_from_args("preflight", args)
        check_suppressions(stacks, args.suppress)
    from planner.aws import deadline

    with deadline.limit(args.aws_timeout):  # every AWS call of the run, credentials included
        try:
            account = open_account(args.profile)
        except SetupError as exc:
            from planner.cli import error_line

            error_line(f"preflight: {exc}")
            return 2
        plans = [_preflight(s, account, args) for s in stacks]
    document = plan.judged(report("preflight", plans), args, baseline)
    plan.show(document, args)
    return document.exit_code(args.fail_on)


def _preflight(stack: Stack, account: Account, args: argparse.Namespace) -> StackPlan:
    """One stack's checks; the deadline firing between two checks ends them as one AWS-error finding each."""
    from planner.aws.deadline import DeadlineExceeded
    from planner.aws.preflight_run import preflight_stack

    try:
        return preflight_stack(stack, account, args.region, args.suppress)
    except DeadlineExceeded:
        return preflight_stack(stack, account, args.region, args.suppress)  # every call now fails at once
