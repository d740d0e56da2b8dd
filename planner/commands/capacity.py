"""`planner capacity`: where and when a Capacity Block for the cluster can be bought, and which to buy.

From a stack (its Capacity Block node group, count or UltraServers, and hours) or ad hoc
(`--instance-type`, `--count`/`--ultraservers`, `--hours` or a workload), asks
DescribeCapacityBlockOfferings in each region (`planner.aws.block_offering_requests`) and ranks
what is for sale (`planner.core.cost.block_offerings`). Nothing is bought: the purchase commands and
the stack keys are printed. Exit codes: 0 the pick fits the deadline and budget, 1 no
pick or it misses them, 2 unusable input.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from planner.core.reading.problems import InputError, Problem

if TYPE_CHECKING:
    from planner.core.cost.block_offerings import ExtensionSearch, Search
    from planner.core.model.findings import Edit

FORMATS = ("table", "json", "markdown")
ARGS = "<command line>"


class Wanted(Struct):
    """What the command line (and the stack) ask for."""

    needs: list[Any]  # planner.core.cost.block_offerings.Need
    node_group: str | None = None
    source: str = ARGS
    region: str | None = None  # the stack's region: the default for --regions
    notes: list[str] = field(default_factory=list)
    reservations: tuple[str, ...] = ()  # the stack's booked blocks (one per UltraServer): check them, or extend them
    resource_group: str | None = None  # ... or the resource group that holds them
    # a program's cluster: an edit to make next, said against its resources (None: a stack file's keys)
    terms: Callable[[Edit], str] | None = None
    program: str | None = None  # ... and the program's file that declares the node group
    group_index: int = 0  # the node group's index in the stack, for the edits to make next


def register(sub: argparse._SubParsersAction[Any]) -> None:
    from planner.commands import add_aws_timeout_argument
    from planner.commands.compare import _count, _positive

    p = sub.add_parser(
        "capacity",
        help="where and when Capacity Blocks for a cluster can be bought, cheapest first "
        "(DescribeCapacityBlockOfferings; buys nothing)",
    )
    p.add_argument(
        "path",
        nargs="?",
        metavar="STACK_FILE",
        help="a stack file: its Capacity Block node group, count and hours (schedule.hours or workload); "
        "when the group names its capacity_reservation_id (one or a list) or a resource group of blocks (and "
        "--regions is not given), "
        "those blocks are checked against the run and extension offerings listed for each too short. "
        "A Pulumi program's stack config (planning keys only) or project folder means the program's cluster "
        "for that stack, as in planner plan; with no STACK_FILE nor --instance-type, the Pulumi project here",
    )
    from planner.commands import add_program_arguments

    add_program_arguments(
        p,
        "a Pulumi program's folder: search for the Capacity Block node group of the cluster it declares for "
        "--stack NAME (one stack: capacity searches for one cluster)",
        one=True,
    )
    p.add_argument(
        "--node-group", metavar="NAME", help="the Capacity Block node group to search for (when the stack has several)"
    )
    p.add_argument(
        "--instance-type",
        action="append",
        default=[],
        metavar="TYPE",
        dest="types",
        help="search for this instance type, or UltraServer type (u-p6e-gb200x72), without a stack "
        "(repeatable: alternatives, ranked together)",
    )
    size = p.add_mutually_exclusive_group()
    size.add_argument("--count", type=_count, metavar="N", help="instances (with --instance-type)")
    size.add_argument(
        "--ultraservers",
        type=_count,
        metavar="N",
        help="UltraServers (with an UltraServer type or its member instance type)",
    )
    p.add_argument(
        "--hours",
        type=_positive("--hours", 1.0),
        metavar="H",
        help="hours the run needs (default: the stack's schedule.hours, else its workload's hours)",
    )
    p.add_argument(
        "--parameters", type=_positive("--parameters", 1.0), help="model parameters, for the run's hours (70e9)"
    )
    p.add_argument("--tokens", type=_positive("--tokens", 1.0), help="training tokens, for the run's hours (2e12)")
    p.add_argument("--mfu", metavar="MFU", help="model FLOPs utilisation as in compare (0.4, or trn2=0.3,p5en=0.4)")
    p.add_argument("--precision", choices=("bf16", "fp8"), default="bf16", help="training precision (default bf16)")
    p.add_argument(
        "--regions",
        metavar="LIST|all",
        help="regions to ask, comma-separated, or all (every region whose Capacity Blocks of the type "
        "planner's price data lists); default: the stack's region",
    )
    p.add_argument(
        "--earliest",
        type=_when("--earliest"),
        metavar="WHEN",
        help="earliest start, a UTC date or date-time (2026-12-14 or 2026-12-14T11:30); default: now",
    )
    p.add_argument(
        "--deadline",
        type=_when("--deadline"),
        metavar="WHEN",
        help="the run must finish by then (UTC date or date-time; a date means 00:00 that day)",
    )
    p.add_argument(
        "--max-usd", type=_positive("--max-usd", 0.01), metavar="USD", help="the most the blocks may cost upfront"
    )
    p.add_argument("--profile", metavar="NAME", help="AWS profile to use (default: boto3's credential chain)")
    add_aws_timeout_argument(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (people), json, markdown (a PR comment); default: table",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    p.set_defaults(run=run)


def _when(flag: str) -> Callable[[str], dt.datetime]:  # an argparse type function
    """A UTC date or date-time; an explicit offset is converted to UTC."""

    def conv(text: str) -> dt.datetime:
        from planner.commands.compare import _shown

        try:
            t = dt.datetime.fromisoformat(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a UTC date or date-time such as 2026-12-14 or 2026-12-14T11:30, got '{_shown(text)}'"
            ) from None
        return t.replace(tzinfo=dt.UTC) if t.tzinfo is None else t.astimezone(dt.UTC)

    conv.__name__ = flag
    return conv


def _bad(key: str, message: str, file: str = ARGS, line: int | None = None) -> InputError:
    return InputError([Problem(file, line, key, message)])


def run(args: argparse.Namespace) -> int:
    from planner.commands import requires
    from planner.commands.plan import problems_shown

    requires("aws", "planner capacity")  # it asks AWS (boto3): one line naming the extra, not a traceback
    with problems_shown("capacity", args):  # unusable input: its problems, in the format asked for
        w = _needs(args)
        result = _searched(args, w)
    if result is None:  # no credentials: said on standard error
        return 2
    _write(result, args, w.terms, w.program)
    return result.exit_code()


def _searched(args: argparse.Namespace, w: Wanted) -> Search | ExtensionSearch | None:
    """The search (or the check of the stack's blocks) the command line asks for; None when AWS
    cannot be asked (no credentials); InputError on unusable input, before any AWS call."""
    from planner.core.catalogue import capacity_block_limits as blocks
    from planner.core.cost.block_offerings import NoBlock, answer, queries

    if w.reservations or w.resource_group:
        return _extension(args, w)
    needs = w.needs
    try:
        asked = {n.key: queries(n) for n in needs}
    except NoBlock as exc:  # from a stack, the node group is at fault, not an option
        raise _bad(exc.key if w.source == ARGS else f"node group '{w.node_group}'", str(exc), w.source) from None
    now = dt.datetime.now(dt.UTC)
    if args.earliest is not None and args.earliest > now + dt.timedelta(weeks=blocks.MAX_START_WEEKS_AHEAD):
        raise _bad(
            "--earliest",
            f"a Capacity Block starts at most {blocks.MAX_START_WEEKS_AHEAD} weeks ahead "
            f"({blocks.SOURCE}); expected a date before "
            f"{(now + dt.timedelta(weeks=blocks.MAX_START_WEEKS_AHEAD)).date().isoformat()}",
        )
    if args.earliest is not None and args.earliest < now - dt.timedelta(minutes=5):
        raise _bad(
            "--earliest",
            f"{args.earliest.isoformat(timespec='minutes')} is in the past; expected a later time, "
            "or leave it out to start from now",
        )
    if args.earliest is not None and args.deadline is not None and args.deadline <= args.earliest:
        raise _bad("--deadline", "expected a time after --earliest")
    regions = {n.key: _regions(args, n.key, w.region, w.notes) for n in needs}
    from planner.aws.block_offering_requests import search_jobs

    client_for = _open(args)
    if client_for is None:
        return None
    earliest = args.earliest if args.earliest is not None and args.earliest > now else None  # "now" is AWS's default
    jobs = [(r, asked[n.key]) for n in needs for r in regions[n.key]]
    owners = [n.key for n in needs for _ in regions[n.key]]
    answers = search_jobs(jobs, client_for, args.aws_timeout, earliest, progress=_progress())
    for a, owner in zip(answers, owners):
        a.instance_type = owner
    return answer(
        needs, answers, args.earliest, args.deadline, args.max_usd, w.node_group, w.source, w.notes, w.group_index
    )


def _open(args: argparse.Namespace, opener: Any = None) -> Any:
    """EC2 clients (or `opener`'s) on the credential chain, found within --aws-timeout; None (and one line) when
    there are none."""
    from planner.aws import block_offering_requests as block_offerings
    from planner.aws import deadline
    from planner.aws.preflight_run import SetupError

    try:
        with deadline.limit(args.aws_timeout):  # the credential lookup: a hung credential_process must not hang this
            return (opener or block_offerings.open_ec2)(args.profile)
    except (SetupError, deadline.DeadlineExceeded) as exc:
        from planner.core.reading.problems import error_line

        error_line(f"capacity: {exc}")
        return None


def _extension(args: argparse.Namespace, w: Wanted) -> ExtensionSearch | None:
    """The stack names its block: is it long enough for the run, else its extension offerings (None: no credentials)."""
    from planner.aws.block_offering_requests import extend, open_resource_groups
    from planner.core.cost.block_offerings import ExtensionSearch

    assert w.region is not None
    client_for = _open(args)
    if client_for is None:
        return None
    groups = None
    if w.resource_group is not None:
        groups_for = _open(args, open_resource_groups)
        if groups_for is None:
            return None
        groups = groups_for(w.region)
    search = ExtensionSearch(
        w.needs[0],
        w.reservations,
        w.region,
        args.deadline,
        args.max_usd,
        w.node_group,
        w.source,
        resource_group_arn=w.resource_group,
    )
    return extend(client_for(w.region), search, args.aws_timeout, groups)


def _write(
    result: Search | ExtensionSearch,
    args: argparse.Namespace,
    terms: Callable[[Edit], str] | None,
    program: str | None = None,
) -> None:
    """The search (or the check of the stack's blocks) as the document's capacity section, in --format;
    `terms`: each edit to make next (`Search.next_edits`) said in the terms of `program` (its main file)."""
    from msgspec.structs import replace

    from planner.commands.plan import show
    from planner.core.cost.block_offerings import Search
    from planner.core.document import Report

    section = result.section()
    edits = result.next_edits() if isinstance(result, Search) else ()
    if terms is not None and section.next is not None and edits:
        keys = tuple(terms(e) for e in edits)
        said = replace(section.next, stack_keys=keys, program=program)
        section = replace(section, next=said)
    show(Report("capacity", capacity=section), args)


def _program_terms(s: Any) -> Callable[[Edit], str] | None:
    """For a cluster read back from a program (its provenance map): an edit to make after the purchase said
    against the resource and property that hold it in the program (`set `instance_market_options.market_type`
    of aws.ec2.LaunchTemplate "trainer" (__main__.py:8) to "capacity-block"`), a planning key in the stack
    config, as a finding's fix is (`planner.readback.program_terms`). None for a stack file."""
    if not s.provenance:
        return None
    from planner.core.model.findings import Fix
    from planner.readback.program_terms import in_program_terms

    return lambda edit: in_program_terms(s, Fix(edits=(edit,)))


def _program_file(s: Any, group: Any) -> str | None:
    """The program file that declares `group` (its provenance), for a cluster read back from a program."""
    found = s.provenance.get(group.path) if s.provenance else None
    return None if found is None else str(found.file)


def _progress() -> Callable[[int, int, str], None] | None:  # a progress callback, or None off a terminal
    """`asking 3 regions: 2 answered (us-east-2)` on standard error, on a terminal only; erased when all have."""
    stream = sys.stderr
    if stream is None or not getattr(stream, "isatty", lambda: False)():
        return None

    def show(done: int, total: int, region: str) -> None:
        text = f"asking {total} region{'s' if total != 1 else ''}: {done} answered ({region})"
        try:
            stream.write("\r\033[K" + (text if done < total else ""))
            stream.flush()
        except (OSError, ValueError):
            pass

    return show


def _regions(args: argparse.Namespace, instance_type: str, default: str | None, notes: list[str]) -> list[str]:
    """`--regions` as a list; `all` from the price data; else the stack's region."""
    from planner.commands import region_arg
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.cost.block_offerings import regions_sold
    from planner.core.cost.book import builtin

    sold = regions_sold(instance_type, catalogue.load(), builtin("current"))
    if args.regions is None:
        if default is None:
            raise _bad(
                "--regions",
                f"expected a list of regions or all (Capacity Blocks of {instance_type} are sold "
                f"in {', '.join(sold) or 'no region planner knows of'})",
            )
        chosen = [default]
    elif args.regions.strip() == "all":
        if not sold:
            raise _bad(
                "--regions",
                f"planner's price data lists no region selling Capacity Blocks of {instance_type}; "
                "expected a list of regions",
            )
        return sold
    else:
        chosen = []
        for part in (x.strip() for x in args.regions.split(",")):
            try:
                chosen.append(region_arg(part))
            except argparse.ArgumentTypeError as exc:
                raise _bad("--regions", str(exc)) from None
    unlisted = [r for r in chosen if r not in sold]
    if unlisted:
        notes.append(
            f"planner's price data lists no Capacity Blocks of {instance_type} in {', '.join(unlisted)} "
            "(asked anyway: AWS's answer decides)"
        )
    return list(dict.fromkeys(chosen))


def _needs(args: argparse.Namespace) -> Wanted:
    """What to search for, from the stack or the options."""
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.input.pulumi_project import project_file

    cat = catalogue.load()
    from_stack = bool(args.path or args.program or args.stack)
    if from_stack and args.types:
        raise _bad("--instance-type", "expected a stack file (or a Pulumi program) or --instance-type, not both")
    if from_stack or (not args.types and project_file(".") is not None):  # the project here, as planner plan
        return _stack_need(args, cat)
    if not args.types:
        raise _bad("STACK_FILE", "expected a stack file, or --instance-type with --count or --ultraservers")
    if args.count is None and args.ultraservers is None:
        raise _bad("--count", "expected --count N (instances) or --ultraservers N with --instance-type")
    needs = []
    for name in dict.fromkeys(args.types):
        t, declared = _type_named(name, cat)
        needs.append(_need(args, cat, t, args.count, args.ultraservers, None, "--instance-type", declared=declared))
    return Wanted(needs)


def _type_named(name: str, cat: Any) -> tuple[Any, str | None]:
    """`--instance-type`: a catalogue instance type, or an UltraServer type (u-p6e-gb200x72) and its member type."""
    from planner.commands.compare import _shown

    if name in cat.ultraserver_types:
        u = cat.ultraserver_types[name]
        if not u.declarable:
            raise _bad(
                "--instance-type",
                f"{name}: AWS's EC2 API lists no instance type for its members yet, so it cannot be searched for",
            )
        return cat.spec(u.member_instance_type), name
    t = cat.get(name)
    if t is None:
        sold = [n for n, x in cat.instance_types.items() if x.capacity_block] + [
            u.name for u in cat.declarable_ultraserver_types
        ]
        raise _bad("--instance-type", f"unknown instance type '{_shown(name)}'; expected one of: {', '.join(sold)}")
    if not t.capacity_block:
        raise _bad("--instance-type", f"{name} is not sold through Capacity Blocks")
    return t, None


def _need(
    args: argparse.Namespace,
    cat: Any,
    t: Any,
    count: int | None,
    ultraservers: int | None,
    stack_hours: tuple[float, str] | None,
    key: str,
    file: str = ARGS,
    declared: str | None = None,
) -> Any:
    """One `Need`: instances (whole UltraServers for member types) and the run's hours."""
    from planner.core.cost.block_offerings import Need, NoBlock, ultraserver_type

    try:
        us = ultraserver_type(cat, t.name, declared)
    except NoBlock as exc:
        raise _bad(key, str(exc), file) from None
    if us is None and ultraservers is not None:
        raise _bad("--ultraservers", f"{t.name} is sold by the instance, not as UltraServers; expected --count")
    if us is not None:
        if ultraservers is None:
            if count is None or count % us.members:
                raise _bad(
                    "--count",
                    f"{t.name} is sold as whole {us.name} UltraServers of {us.members} instances; "
                    f"expected --ultraservers N or a multiple of {us.members}",
                )
            ultraservers = count // us.members
        count = ultraservers * us.members
    assert count is not None
    hours = _hours(args, t, count, stack_hours)
    return Need(t.name, count, hours[0], hours[1], us)


def _hours(args: argparse.Namespace, t: Any, count: int, stack_hours: tuple[float, str] | None) -> tuple[float, str]:
    """--hours, else --parameters/--tokens/--mfu on this many instances, else the stack's."""
    if args.hours is not None:
        return args.hours, "--hours"
    workload = [args.parameters, args.tokens, args.mfu]
    if any(x is not None for x in workload):
        if not all(x is not None for x in workload):
            raise _bad(
                "--mfu" if args.mfu is None else "--tokens" if args.tokens is None else "--parameters",
                "expected --parameters, --tokens and --mfu together (or --hours)",
            )
        from planner.commands.compare import parse_mfu
        from planner.core.catalogue import instance_types as catalogue
        from planner.core.cost.training import dense_peak, run_hours

        mfu = parse_mfu(args.mfu, {x.family for x in catalogue.load().instance_types.values()})
        m = mfu.get(t.family, mfu.get("*"))
        peak = dense_peak(t, args.precision)
        if m is None or peak is None:
            raise _bad(
                "--mfu", f"no MFU or {args.precision} dense peak for {t.name}; expected --mfu for family {t.family}"
            )
        h = run_hours(args.parameters, args.tokens, count * peak, m)
        if not math.isfinite(h):
            raise _bad("--parameters", "the run's hours are not a finite number")
        return h, "workload"
    if stack_hours is not None:
        return stack_hours
    raise _bad("--hours", "expected --hours H, or --parameters, --tokens and --mfu")


def _one_stack(args: argparse.Namespace) -> Any:
    """The one stack to search for: a stack file as read, or the cluster a Pulumi program declares for
    its stack (a program's stack config of planning keys only, its project folder, `--program DIR
    --stack NAME`, or the project here), chosen as `planner plan` chooses
    (`planner.core.input.stack_sources`); InputError when that is not exactly one stack."""
    from planner.commands import expand_sources, resolve_sources

    paths = [args.path] if args.path else []
    sources = resolve_sources("capacity", args, paths)
    stacks = expand_sources("capacity", sources, args)
    if len(stacks) == 1:
        return stacks[0]
    where = args.path or args.program or "the Pulumi project here"
    if not stacks:
        raise _bad("STACK_FILE", f"expected one stack, found none in {where}", where)
    names = ", ".join(f"{s.name} ({s.file})" for s in stacks[:5]) + (
        f" and {len(stacks) - 5} more" if len(stacks) > 5 else ""
    )
    how = (
        "--stack NAME (one stack of the project)"
        if sources.programs or not args.path or os.path.isdir(args.path)
        else "one stack file"
    )
    raise _bad(
        "STACK_FILE",
        f"capacity searches for one cluster, and {where} has {len(stacks)} ({names}); expected {how}",
        where,
    )


def _stack_need(args: argparse.Namespace, cat: Any) -> Wanted:
    """The stack's Capacity Block node group: its type, count or UltraServers, hours, region and booked block."""
    from planner.core.cost.estimate import workload_hours

    s = _one_stack(args)
    groups = [g for g in s.cluster.node_groups if g.purchase == "capacity-block"]
    if args.node_group:
        groups = [g for g in groups if g.name == args.node_group]
        if not groups:
            names = [g.name for g in s.cluster.node_groups if g.purchase == "capacity-block"]
            raise _bad(
                "--node-group",
                f"no Capacity Block node group '{args.node_group}' in {s.file}; expected one of: "
                f"{', '.join(names) or '(none)'}",
            )
    if not groups:
        raise _bad(
            "node_groups",
            "no node group with purchase: capacity-block; expected one, or use --instance-type",
            s.file,
            s.line(s.cluster.path + ("node_groups",)),
        )
    if len(groups) > 1:
        raise _bad(
            "--node-group",
            f"{s.file} has {len(groups)} Capacity Block node groups "
            f"({', '.join(g.name for g in groups)}); expected --node-group NAME",
        )
    g = groups[0]
    notes: list[str] = []
    stack_hours: tuple[float, str] | None = None
    if s.cluster.schedule is not None:
        stack_hours = (s.cluster.schedule.hours, "schedule.hours")
        wl = workload_hours(s.cluster, cat)
        if wl is not None and wl > s.cluster.schedule.hours:
            notes.append(
                f"the workload needs {wl:,.1f} h at the declared MFU, more than schedule.hours "
                f"({s.cluster.schedule.hours:,.1f} h); searched for schedule.hours"
            )
    else:
        wl = workload_hours(s.cluster, cat)
        if wl is not None:
            stack_hours = (wl, "workload")
    if args.count is not None or args.ultraservers is not None:
        count, us = args.count, args.ultraservers
    else:
        count, us = g.count, g.ultraservers
    need = _need(
        args,
        cat,
        cat.spec(g.instance_type),
        count,
        us,
        stack_hours,
        "instance_type",
        s.file,
        declared=g.ultraserver_type,
    )
    bought = args.regions is None  # bought: check it (--regions: a new search)
    return Wanted(
        [need],
        g.name,
        s.file,
        s.region,
        notes,
        g.capacity_reservation_ids if bought else (),
        g.capacity_reservation_resource_group_arn if bought else None,
        _program_terms(s),
        _program_file(s, g),
        s.cluster.node_groups.index(g),
    )
