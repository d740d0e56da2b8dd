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
from collections import Counter
from typing import Any, Iterable, Sequence

from planner.errors import InputError, Problem
from planner.findings import SEVERITIES

FORMATS = ("table", "markdown", "json")
VERSION = 1


def register(sub: argparse._SubParsersAction) -> None:
    from planner.commands import add_price_book_argument

    p = sub.add_parser("diff", help="cost and findings before and after a change (two paths, or a git ref)")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="BASE HEAD (two stack files or folders); with --base-ref: the paths to compare (default: stacks/)")
    p.add_argument("--base-ref", metavar="REF", help="compare PATHs in the working tree with the same paths at git REF")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--fail-on", choices=SEVERITIES[:2], default=None,
                   help="exit 1 when the change adds an unsuppressed finding at or above this severity (default: never)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    add_price_book_argument(p)
    p.set_defaults(run=run)


# --- reading stacks at a git ref --------------------------------------------------------

def _git(args: Sequence[str], what: str) -> bytes:
    import subprocess  # here, not at module level: every `planner` run imports this module (4 ms)

    try:
        proc = subprocess.run(["git", *args], capture_output=True, timeout=60)
    except FileNotFoundError:
        raise InputError([Problem("<command line>", None, "--base-ref", "git is not installed; expected git on PATH")]) from None
    if proc.returncode:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError([Problem("<command line>", None, "--base-ref", f"{what}: {msg[0]}" if msg else what)])
    return proc.stdout


def _object_type(ref: str, path: str) -> str | None:
    import subprocess

    proc = subprocess.run(["git", "cat-file", "-t", f"{ref}:./{path}"], capture_output=True, timeout=60)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


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


def stacks_at_ref(ref: str, paths: Iterable[str]) -> list[Any]:
    """The stacks under `paths` (relative to the current directory) as they were at git `ref`."""
    from planner import yamlload
    from planner.parse import parse_stack, stack_name

    if ref.startswith("-"):  # git would read it as an option
        raise InputError([Problem("<command line>", None, "--base-ref", "expected a git ref (a branch, tag or commit), "
                                                                      "not an option")])
    _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], f"'{ref}' is not a commit in this repository")
    files: list[str] = []
    for path in paths:
        path = os.path.normpath(path)
        kind = _object_type(ref, path)
        if kind == "tree":
            listing = _git(["ls-tree", "-z", ref, "--", f"./{path}/"], f"cannot list {path} at {ref}")
            files += [f for f in tree_files(listing) if stack_name(os.path.basename(f))]
        elif kind == "blob":
            files.append(path)
    stacks = []
    for f in sorted(set(files)):
        raw = _git(["cat-file", "blob", f"{ref}:./{f}"], f"cannot read {f} at {ref}")
        label = f"{ref}:{f}"
        data, lines = yamlload.load(raw, label)
        stacks.append(parse_stack(data, lines, label, stack_name(os.path.basename(f)) or os.path.splitext(os.path.basename(f))[0]))
    return stacks


def _working_tree_stacks(paths: Sequence[str], must_exist: bool) -> list[Any]:
    from planner.parse import load_stacks

    present = [p for p in paths if os.path.exists(p)]
    if must_exist and len(present) < len(paths):
        missing = next(p for p in paths if p not in present)
        raise InputError([Problem(missing, None, "", "no such file or folder; expected a stack file or a folder of them")])
    return load_stacks(present) if present else []


# --- comparing ----------------------------------------------------------------------------

def _key(f: Any) -> tuple[str, str, str]:
    return (f.rule, f.severity, f.message)


def _findings_delta(base: Any, head: Any) -> tuple[list[Any], list[Any]]:
    """Unsuppressed findings in head and not in base (added), and the reverse (resolved)."""
    b = [f for f in (base.findings if base else ()) if not f.suppressed]
    h = [f for f in (head.findings if head else ()) if not f.suppressed]
    bc, hc = Counter(_key(f) for f in b), Counter(_key(f) for f in h)
    added, resolved = [], []
    for f in h:
        if bc[_key(f)] > 0:
            bc[_key(f)] -= 1
        else:
            added.append(f)
    for f in b:
        if hc[_key(f)] > 0:
            hc[_key(f)] -= 1
        else:
            resolved.append(f)
    return added, resolved


def _change(before: float | None, after: float | None, base_exists: bool, head_exists: bool,
            known: tuple[float | None, float | None] = (None, None)) -> dict[str, Any]:
    """Before, after and the change; a stack absent on one side costs 0 there.

    When a side is incomplete (a price unknown), the change is unknown; `change_known_usd`
    is then the change of the priced line items only, labelled as such in reports.
    """
    b = before if base_exists else 0.0
    a = after if head_exists else 0.0
    delta = None if a is None or b is None else round(a - b, 2)
    pct = None if delta is None or not b else round(100.0 * delta / b, 2)
    out = {"before_usd": before if base_exists else None, "after_usd": after if head_exists else None,
           "change_usd": delta, "change_percent": pct}
    if delta is None:
        kb = (known[0] or 0.0) if base_exists else 0.0
        ka = (known[1] or 0.0) if head_exists else 0.0
        out["change_known_usd"] = round(ka - kb, 2)
    return out


def compare_plans(base: Sequence[Any], head: Sequence[Any], pair: bool = False) -> list[dict[str, Any]]:
    """Stacks matched by name; with `pair` (two stack files named on the command line), the
    one stack on each side is compared with the other whatever their names (`a -> b`)."""
    by_base = {p.stack.name: p for p in base}
    by_head = {p.stack.name: p for p in head}
    if pair and len(base) == 1 and len(head) == 1 and base[0].stack.name != head[0].stack.name:
        name = f"{base[0].stack.name} -> {head[0].stack.name}"
        by_base, by_head = {name: base[0]}, {name: head[0]}
    out = []
    for name in sorted(set(by_base) | set(by_head)):
        b, h = by_base.get(name), by_head.get(name)
        bc = b.cost.to_json() if b else None
        hc = h.cost.to_json() if h else None
        added, resolved = _findings_delta(b, h)
        if b is None:
            status = "added"
        elif h is None:
            status = "removed"
        else:
            status = "changed" if (bc != hc or added or resolved) else "unchanged"
        out.append({
            "stack": name,
            "status": status,
            "base_file": b.stack.file if b else None,
            "head_file": h.stack.file if h else None,
            "total": _change(bc and bc["total_usd"], hc and hc["total_usd"], b is not None, h is not None,
                             (bc and bc["known_total_usd"], hc and hc["known_total_usd"])),
            "monthly": _change(bc and bc["monthly_usd"], hc and hc["monthly_usd"], b is not None, h is not None),
            "findings_added": [f.to_json() for f in added],
            "findings_resolved": [f.to_json() for f in resolved],
            "base_cost": bc,
            "head_cost": hc,
        })
    return out


def _sum(values: Iterable[float | None]) -> float | None:
    vs = list(values)
    return None if any(v is None for v in vs) else round(sum(v for v in vs if v is not None), 2)


def summarize(stacks: list[dict[str, Any]]) -> dict[str, Any]:
    before = _sum(0.0 if s["base_file"] is None else s["total"]["before_usd"] for s in stacks)
    after = _sum(0.0 if s["head_file"] is None else s["total"]["after_usd"] for s in stacks)
    delta = None if before is None or after is None else round(after - before, 2)
    known = None if delta is not None else round(sum(s["total"].get("change_known_usd", s["total"]["change_usd"] or 0.0)
                                                     for s in stacks), 2)
    return {"before_usd": before, "after_usd": after, "change_usd": delta,
            "change_percent": None if delta is None or not before else round(100.0 * delta / before, 2),
            **({} if known is None else {"change_known_usd": known}),
            "findings_added": sum(len(s["findings_added"]) for s in stacks),
            "findings_resolved": sum(len(s["findings_resolved"]) for s in stacks)}


# --- the command --------------------------------------------------------------------------

def diff(args: argparse.Namespace) -> dict[str, Any]:
    from planner.commands import book_from_args
    from planner.pipeline import PlanOptions, plan_stacks

    if args.base_ref:
        paths = args.paths or ["stacks"]
        base_stacks = stacks_at_ref(args.base_ref, paths)
        head_stacks = _working_tree_stacks(paths, must_exist=False)
        if not base_stacks and not head_stacks:
            raise InputError([Problem(", ".join(paths), None, "", f"no stack files here or at {args.base_ref}; expected Pulumi.<stack>.yaml")])
        base_label, head_label = args.base_ref, "working tree"
    else:
        if len(args.paths) != 2:
            raise InputError([Problem("<command line>", None, "PATH",
                                      f"expected BASE and HEAD (two stack files or folders), or --base-ref REF; got {len(args.paths)} path(s)")])
        base_stacks = _working_tree_stacks(args.paths[:1], must_exist=True)
        head_stacks = _working_tree_stacks(args.paths[1:], must_exist=True)
        base_label, head_label = args.paths
    book = book_from_args(args, [*base_stacks, *head_stacks])
    options = PlanOptions(price_book=book)
    base_plans, head_plans = plan_stacks(base_stacks, options), plan_stacks(head_stacks, options)
    for plans, label in ((base_plans, base_label), (head_plans, head_label)):
        names = [p.stack.name for p in plans]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup:
            raise InputError([Problem(label, None, "", f"two stacks named '{dup}'; expected one file per stack name")])
    pair = not args.base_ref and all(os.path.isfile(p) for p in args.paths)
    stacks = compare_plans(base_plans, head_plans, pair)
    return {"version": VERSION, "base": base_label, "head": head_label, "price_book": book.name,
            "total": summarize(stacks), "stacks": stacks}


def run(args: argparse.Namespace) -> int:
    from planner.commands.plan import write
    from planner.findings import at_least

    result = diff(args)
    if args.format == "json":
        from planner.report.json_report import dumps

        text = dumps(result)
    elif args.format == "markdown":
        from planner.report.diff_report import render_markdown

        text = render_markdown(result)
    else:
        from planner.report.diff_report import render_table

        text = render_table(result)
    write(text, args.output)
    if args.fail_on:
        for s in result["stacks"]:
            if any(at_least(f["severity"], args.fail_on) for f in new_findings(s)):
                return 1
    return 0


def new_findings(stack: dict[str, Any]) -> list[dict[str, Any]]:
    """Added findings that are not a resolved one reworded: what `--fail-on` fails on.

    A finding whose message carries a figure (budget-exceeded's total, a checkpoint time)
    is re-worded when the figure moves; it shows as added and resolved, but it was there
    before, so it is not new. Each resolved finding excuses one added finding of the same
    rule and severity in the same stack.
    """
    excused = Counter((f["rule"], f["severity"]) for f in stack["findings_resolved"])
    out = []
    for f in stack["findings_added"]:
        key = (f["rule"], f["severity"])
        if excused[key] > 0:
            excused[key] -= 1
        elif not f["suppressed"]:
            out.append(f)
    return out
