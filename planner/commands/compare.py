"""`planner compare`: what one training job costs, and how long it takes, on each priced type."""

from __future__ import annotations

import argparse
import math
from typing import Any

from planner.errors import InputError, Problem

FORMATS = ("table", "json")
ARGS = "<command line>"


def register(sub: argparse._SubParsersAction) -> None:
    from planner.commands import region_arg
    from planner.cost import add_price_book_argument

    p = sub.add_parser("compare", help="cost and duration of a training job on every priced instance type")
    p.add_argument("--parameters", required=True, type=_positive("--parameters"), help="model parameters (70e9)")
    p.add_argument("--tokens", required=True, type=_positive("--tokens"), help="training tokens (2e12)")
    p.add_argument("--precision", choices=("bf16", "fp8"), default="bf16", help="training precision (default bf16)")
    p.add_argument("--mfu", required=True, metavar="MFU",
                   help="model FLOPs utilisation: one value (0.4), per family (trn2=0.3,p5en=0.4), or both (0.35,trn2=0.3)")
    p.add_argument("--region", default="us-east-2", type=region_arg, help="AWS region whose prices to use (default us-east-2)")
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--instances", type=int, metavar="N", help="instances per candidate (whole UltraServers for trn2u)")
    size.add_argument("--deadline-hours", type=_positive("--deadline-hours"), metavar="H",
                      help="smallest instance count per type that finishes within H hours")
    p.add_argument("--instance-type", action="append", default=[], metavar="TYPE", dest="types",
                   help="only these instance types (repeatable; default: every type with a price)")
    add_price_book_argument(p)
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.set_defaults(run=run)


def _positive(flag: str):  # noqa: ANN202 - an argparse type function
    def conv(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number such as 70e9, got '{text}'") from None
        if not (math.isfinite(v) and v > 0):
            raise argparse.ArgumentTypeError(f"expected a positive number, got '{text}'")
        return v

    conv.__name__ = flag
    return conv


def parse_mfu(text: str, families: set[str]) -> dict[str, float]:
    """'0.4' -> {'*': 0.4}; 'trn2=0.3,p5en=0.4' -> per family; a bare value is the default."""
    out: dict[str, float] = {}
    for part in (x.strip() for x in text.split(",")):
        fam, _, value = part.rpartition("=")
        fam = fam.strip() or "*"
        if fam != "*" and fam not in families:
            raise InputError([Problem(ARGS, None, "--mfu", f"unknown family '{fam}'; expected one of: {', '.join(sorted(families))}")])
        try:
            v = float(value)
        except ValueError:
            v = math.nan
        if not 0 < v <= 1:
            raise InputError([Problem(ARGS, None, "--mfu", f"expected a fraction of peak between 0 and 1 (such as 0.4), got '{part}'")])
        if fam in out:
            which = "a bare value (the default)" if fam == "*" else f"family '{fam}'"
            raise InputError([Problem(ARGS, None, "--mfu", f"{which} given twice in '{text}'; expected one value per family")])
        out[fam] = v
    return out


def run(args: argparse.Namespace) -> int:
    from planner.fileio import emit

    from planner import catalogue
    from planner.cost import book_from_args
    from planner.cost.compare import Job, compare

    cat = catalogue.load()
    if args.instances is not None and args.instances <= 0:
        raise InputError([Problem(ARGS, None, "--instances", f"expected a positive integer, got {args.instances}")])
    unknown = [t for t in args.types if t not in cat.instance_types]
    if unknown:
        raise InputError([Problem(ARGS, None, "--instance-type",
                                  f"unknown instance type '{unknown[0]}'; expected one of: {', '.join(cat.instance_types)}")])
    job = Job(args.parameters, args.tokens, args.precision, parse_mfu(args.mfu, {t.family for t in cat.instance_types.values()}),
              args.region, args.instances, args.deadline_hours)
    result = compare(job, book_from_args(args), cat, tuple(args.types))
    if args.format == "json":
        from planner.report.json_report import dumps

        emit(dumps(result))
    else:
        emit(render_table(result))
    return 0


def render_table(result: dict[str, Any]) -> str:
    from planner.report.cost_report import usd
    from planner.report.table import grid, num

    inp = result["inputs"]
    mfu = ", ".join(f"{k}={v}" if k != "*" else str(v) for k, v in inp["mfu"].items())
    size = f"{inp['instances']} instances" if inp["instances"] else f"deadline {num(inp['deadline_hours'])} h"
    lines = [f"Training job: {inp['parameters']:.3g} parameters x {inp['tokens']:.3g} tokens, {inp['precision']}, MFU {mfu}; "
             f"{size}; {inp['region']}; price book {result['price_book']}"]
    foot: list[str] = []
    rows = []
    for c in result["candidates"]:
        marks = ""
        for n in c["notes"]:
            if n not in foot:
                foot.append(n)
            marks += f"[{foot.index(n) + 1}]"
        rows.append((c["instance_type"], c["purchase"], num(c["instances"]), num(c["run_hours"]), num(c["billed_hours"]),
                     f"${c['usd_per_hour']:,.4f}".rstrip("0").rstrip("."), usd(c["total_usd"]),
                     f"${c['usd_per_dense_pflop_hour']:,.2f}", f"{c['as_of']}", marks or "-"))
    lines += grid(("type", "purchase", "instances", "run h", "billed h", "USD/h each", "total", "USD/dense PF-h", "price as of", "notes"),
                  rows, right=(2, 3, 4, 5, 6, 7))
    if not rows:
        lines.append("(no instance type has a price for this region in this price book)")
    lines += [f"[{i}] {n}" for i, n in enumerate(foot, 1)]
    lines += [f"note: {n}" for n in result["notes"]]
    lines.append("Dense peaks only (BF16 or FP8 dense at the job's precision); billed hours round Capacity Blocks up to a bookable duration.")
    return "\n".join(lines) + "\n"
