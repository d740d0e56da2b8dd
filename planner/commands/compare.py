"""`planner compare`: what one training job costs, and how long it takes, on each priced type."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from planner.core.model.cluster import GLOBAL_BATCH_TOKENS, SEQUENCE_LENGTH
from planner.core.reading.problems import InputError, Problem

if TYPE_CHECKING:
    from planner.core.model.transformer import Transformer

FORMATS = ("table", "json", "markdown")
ARGS = "<command line>"
MAX_MAGNITUDE = 1e30  # parameters and tokens: the stack schema's bound (planner.core.input.stack_files.MAX_MAGNITUDE)
MIN_HOURS = (
    1.0  # --deadline-hours: the stack schema's bound on schedule.hours (planner.core.input.stack_files.MIN_HOURS)
)
MAX_COUNT = 10**9  # --instances: the bound of a node group's count
MAX_SEQUENCE = 2**20  # --sequence-length: the stack schema's bound (planner.core.input.stack_files.MAX_SEQUENCE)
MAX_BATCH_TOKENS = 2**30  # --global-batch-tokens: the stack schema's bound (stack_files.MAX_BATCH_TOKENS)
MIN_MFU = 0.01  # --mfu: the stack schema's bound on workload.mfu (planner.core.input.stack_files.MIN_MFU)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    from planner.commands import add_price_book_argument, region_arg

    p = sub.add_parser("compare", help="cost and duration of a training job on every priced instance type")
    p.add_argument(
        "--model",
        metavar="NAME|FILE",
        help="the model to train: a preset (llama3-70b; docs/runtime-model.md lists them) or a Hugging Face "
        "config.json; its run is predicted on each candidate's topology where no --mfu is given",
    )
    p.add_argument(
        "--parameters", type=_positive("--parameters", 1.0), help="model parameters (70e9), with --mfu and no --model"
    )
    p.add_argument("--tokens", required=True, type=_positive("--tokens", 1.0), help="training tokens (2e12)")
    p.add_argument(
        "--sequence-length",
        type=_whole_number("--sequence-length", MAX_SEQUENCE),
        default=None,
        metavar="N",
        help=f"tokens per sequence, with --model (default {SEQUENCE_LENGTH:,})",
    )
    p.add_argument(
        "--global-batch-tokens",
        type=_whole_number("--global-batch-tokens", MAX_BATCH_TOKENS),
        default=None,
        metavar="N",
        help=f"tokens per optimizer step, a multiple of the sequence length, with --model (default {GLOBAL_BATCH_TOKENS:,})",
    )
    p.add_argument("--precision", choices=("bf16", "fp8"), default="bf16", help="training precision (default bf16)")
    p.add_argument(
        "--mfu",
        metavar="MFU",
        help="model FLOPs utilisation: one value (0.4), per family (trn2=0.3,p5en=0.4), or both (0.35,trn2=0.3); "
        "required without --model, with it overrides the prediction for those families",
    )
    p.add_argument(
        "--budget-usd",
        type=_positive("--budget-usd", 0.01),
        metavar="USD",
        help="the most the run may cost: drawn on the Markdown chart beside the deadline",
    )
    p.add_argument(
        "--region", default="us-east-2", type=region_arg, help="AWS region whose prices to use (default us-east-2)"
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument(
        "--instances",
        type=_count,
        metavar="N",
        help="instances per candidate (rounded up to whole UltraServers for UltraServer member types)",
    )
    size.add_argument(
        "--deadline-hours",
        type=_positive("--deadline-hours", MIN_HOURS),
        metavar="H",
        help="smallest instance count per type that finishes within H hours",
    )
    p.add_argument(
        "--instance-type",
        action="append",
        default=[],
        metavar="TYPE",
        dest="types",
        help="only these instance types (repeatable; default: every type with a price)",
    )
    add_price_book_argument(p)
    p.add_argument(
        "--capacity",
        action="store_true",
        help="price the Capacity Block rows from the offerings AWS shows now in --region "
        "(DescribeCapacityBlockOfferings; the book's figure beside them)",
    )
    p.add_argument("--profile", metavar="NAME", help="AWS profile for --capacity (default: boto3's credential chain)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (people), json, markdown (a PR comment or a page); default: table",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    p.set_defaults(run=run)


def _shown(text: str) -> str:
    """At most a typo's worth of a command-line value, on one line."""
    from planner.core.text.safe import one_line

    return one_line(text if len(text) <= 24 else text[:21] + "...")


def _positive(flag: str, low: float) -> Callable[[str], float]:  # an argparse type function
    """A finite number from `low` to MAX_MAGNITUDE, as the stack schema bounds the same figures:
    `1e308 x 1e308` overflows, `--deadline-hours 1e-300` is no deadline."""

    def conv(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number such as 70e9, got '{_shown(text)}'") from None
        if not (math.isfinite(v) and v > 0):
            raise argparse.ArgumentTypeError(f"expected a positive number, got '{_shown(text)}'")
        if not low <= v <= MAX_MAGNITUDE:
            raise argparse.ArgumentTypeError(
                f"expected a number from {low:g} to {MAX_MAGNITUDE:g}, got '{_shown(text)}'"
            )
        return v

    conv.__name__ = flag
    return conv


def _whole_number(flag: str, top: int) -> Callable[[str], int]:  # an argparse type function
    def conv(text: str) -> int:
        t = text.strip()
        if not (t.isascii() and t.isdigit()) or len(t) > 12 or not 0 < int(t) <= top:
            raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {top:,}, got '{_shown(text)}'")
        return int(t)

    conv.__name__ = flag
    return conv


def _count(text: str) -> int:
    """`--instances`: a positive integer up to MAX_COUNT, the bound of a node group's `count`."""
    t = text.strip()
    if not (t.isascii() and t.isdigit()) or len(t) > 10 or not 0 < int(t) <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to {MAX_COUNT:,}, got '{_shown(text)}'")
    return int(t)


def parse_mfu(text: str, families: set[str]) -> dict[str, float]:
    """'0.4' -> {'*': 0.4}; 'trn2=0.3,p5en=0.4' -> per family; a bare value is the default."""
    out: dict[str, float] = {}
    for part in (x.strip() for x in text.split(",")):
        fam, _, value = part.rpartition("=")
        fam = fam.strip() or "*"
        if fam != "*" and fam not in families:
            raise InputError(
                [
                    Problem(
                        ARGS,
                        None,
                        "--mfu",
                        f"unknown family '{_shown(fam)}'; expected one of: {', '.join(sorted(families))}",
                    )
                ]
            )
        try:
            v = float(value)
        except ValueError:
            v = math.nan
        if not MIN_MFU <= v <= 1:
            raise InputError(
                [
                    Problem(
                        ARGS,
                        None,
                        "--mfu",
                        f"expected a fraction of peak between {MIN_MFU:g} and 1 (such as 0.4), got '{_shown(part)}'",
                    )
                ]
            )
        if fam in out:
            which = "a bare value (the default)" if fam == "*" else f"family '{fam}'"
            raise InputError(
                [
                    Problem(
                        ARGS, None, "--mfu", f"{which} given twice in '{_shown(text)}'; expected one value per family"
                    )
                ]
            )
        out[fam] = v
    return out


def run(args: argparse.Namespace) -> int:
    from planner.commands.plan import problems_shown, show
    from planner.core.document import Report

    if args.capacity:
        from planner.commands import requires

        requires("aws", "planner compare --capacity")
    with problems_shown("compare", args):  # unusable input: its problems, in the format asked for
        result = _compared(args)
    show(Report("compare", compare=result), args)
    return 0


def _compared(args: argparse.Namespace) -> Any:  # planner.core.document.compare_section.CompareSection
    """The comparison the command line asks for; InputError when it cannot be made."""
    from planner.commands import book_from_args
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.cost.price_performance import Job, compare

    cat = catalogue.load()
    if args.instances is not None and args.instances <= 0:
        raise InputError([Problem(ARGS, None, "--instances", f"expected a positive integer, got {args.instances}")])
    _check_region(args.region, cat)
    unknown = [t for t in args.types if t not in cat.instance_types]  # compare ranks the curated training types
    if unknown:
        from planner.core.reading.fields import closest

        hint = closest(unknown[0], cat.instance_types)
        raise InputError(
            [
                Problem(
                    ARGS,
                    None,
                    "--instance-type",
                    f"unknown instance type '{_shown(unknown[0])}'{hint}; expected one of: "
                    f"{', '.join(cat.instance_types)}",
                )
            ]
        )
    model, sequence, batch = _model_args(args)
    if model is None and (args.parameters is None or args.mfu is None):
        missing = "--parameters" if args.parameters is None else "--mfu"
        raise InputError(
            [Problem(ARGS, None, missing, "expected --model (its run predicted), or both --parameters and --mfu")]
        )
    if model is not None and args.parameters is not None:
        raise InputError(
            [Problem(ARGS, None, "--parameters", "the model says its parameters; expected --model or --parameters")]
        )
    families = {t.family for t in cat.instance_types.values()} | {
        u.family for u in cat.ultraserver_types.values() if u.family
    }
    job = Job(
        args.parameters if model is None else float(model.total_params()),
        args.tokens,
        args.precision,
        parse_mfu(args.mfu, families) if args.mfu is not None else {},
        args.region,
        args.instances,
        args.deadline_hours,
        model=model,
        sequence_length=sequence,
        global_batch_tokens=batch,
        budget_usd=args.budget_usd,
    )
    result = compare(job, book_from_args(args), cat, tuple(args.types))
    if args.capacity:
        result = _with_offerings(result, args)
    return result


def _model_args(args: argparse.Namespace) -> tuple[Transformer | None, int, int]:
    """--model and the run's shape: InputError naming the flag when they cannot be used."""
    from planner.core.catalogue.model_configs import ModelError, resolve

    sequence = args.sequence_length or SEQUENCE_LENGTH
    batch = args.global_batch_tokens or GLOBAL_BATCH_TOKENS
    if args.model is None:
        for flag, value in (
            ("--sequence-length", args.sequence_length),
            ("--global-batch-tokens", args.global_batch_tokens),
        ):
            if value is not None:
                raise InputError([Problem(ARGS, None, flag, "applies with --model; expected --model beside it")])
        return None, sequence, batch
    if batch % sequence:
        raise InputError(
            [
                Problem(
                    ARGS,
                    None,
                    "--global-batch-tokens",
                    f"expected a multiple of the sequence length ({sequence:,}), got {batch:,}",
                )
            ]
        )
    try:
        return resolve(args.model), sequence, batch
    except ModelError as exc:
        raise InputError([Problem(ARGS, None, "--model", str(exc))]) from None


def _with_offerings(result: Any, args: argparse.Namespace) -> Any:
    """The Capacity Block rows priced from the offerings found (`planner.core.cost.block_offerings.priced_from_offerings`)."""
    import datetime as dt

    from msgspec.structs import replace

    from planner.aws.block_offering_requests import need_for, offerings_for
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.cost.block_offerings import NoBlock, priced_from_offerings
    from planner.core.cost.price_performance import ranking

    cat = catalogue.load()
    candidates = list(result.candidates)
    rows = [i for i, c in enumerate(candidates) if c.purchase == "capacity-block"]
    wanted, asked = [], []
    for i in rows:
        c = candidates[i]
        ultras = cat.ultraservers_of(c.instance_type)  # compare counts in the smallest UltraServer of the type
        try:
            wanted.append(
                (
                    need_for(c.instance_type, c.instances, c.run_hours, "compare", ultras[0].name if ultras else None),
                    args.region,
                )
            )
            asked.append(i)
        except NoBlock as exc:
            candidates[i] = priced_from_offerings(c, [], str(exc), "")
    today = dt.datetime.now(dt.UTC).date().isoformat()
    for i, (options, why) in zip(asked, offerings_for(wanted, args.aws_timeout, args.profile)):
        candidates[i] = priced_from_offerings(candidates[i], options, why, today)
    candidates.sort(key=ranking)
    return replace(
        result,
        candidates=tuple(candidates),
        notes=(
            *result.notes,
            f"Capacity Block rows: priced from the offerings DescribeCapacityBlockOfferings showed in "
            f"{args.region} on {today} where one was found, the price book's figure beside them",
        ),
    )


def _check_region(region: str, cat: Any) -> None:
    """A region no catalogue type is offered in is a typo (did you mean) or a region planner cannot price."""
    known = sorted({r for t in cat.instance_types.values() for r in t.regions})
    if region in known:
        return
    from planner.core.reading.fields import edits

    dist, close = min((edits(region, r), r) for r in known)
    hint = f" (did you mean '{close}'?)" if dist <= 2 else f"; expected one of: {', '.join(known)}"
    raise InputError([Problem(ARGS, None, "--region", f"no catalogue instance type is offered in '{region}'{hint}")])
