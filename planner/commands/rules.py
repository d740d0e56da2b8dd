"""`planner rules`: every rule planner checks, with its severity, description and source.

`--format markdown` prints the documentation's rule reference; `--update-readme FILE` rewrites the
reference block in FILE (docs/reference/rules.md), so the documentation never drifts from the registry.
"""

from __future__ import annotations

import argparse
from typing import Any


README_MAX_BYTES = 4 * 1024 * 1024  # a README, not a device: `--update-readme /dev/zero` is refused, not read forever


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="list the rules (id, severity, description, source)")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument("--update-readme", metavar="FILE",
                   help="replace the block between <!-- rules:start --> and <!-- rules:end --> in FILE with the reference")
    p.set_defaults(run=run)


def to_json() -> dict[str, Any]:
    from planner import rules

    return {"rules": [
        {"id": r.id, "severity": r.severity, "description": r.description, "source": r.source, "remediation": r.remediation}
        for r in rules.registry().values()
    ]}


def run(args: argparse.Namespace) -> int:
    from planner.fileio import emit

    from planner import rules

    if args.update_readme:
        from planner.errors import InputError, Problem

        from planner.fileio import read_regular, write_atomic

        raw = read_regular(args.update_readme, README_MAX_BYTES, "the README")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError([Problem(args.update_readme, None, "", f"not UTF-8 text (byte {exc.start}); expected a Markdown file")]) from None
        try:
            updated = rules.replace_reference(text)
        except ValueError as exc:
            raise InputError([Problem(args.update_readme, None, "", f"{exc}; add the two markers where the reference goes")]) from None
        if updated != text:
            write_atomic(args.update_readme, updated, "--update-readme")  # a failed write leaves the README whole
        return 0
    if args.format == "json":
        from planner.report.json_report import dumps

        emit(dumps(to_json()))
    elif args.format == "markdown":
        emit(rules.reference_markdown())
    else:
        from planner.report.text import Span, grid, human, term

        rules_json = to_json()["rules"]
        if term().wide:
            rows = [(r["id"], Span(r["severity"], r["severity"]), r["description"], r["source"]) for r in rules_json]
            emit(human(grid(("rule", "severity", "description", "source"), rows)))
        else:  # sources are long URLs: numbered below the table, so the table fits the terminal
            sources = list(dict.fromkeys(r["source"] for r in rules_json))
            rows = [(r["id"], Span(r["severity"], r["severity"]), r["description"], f"[{sources.index(r['source']) + 1}]")
                    for r in rules_json]
            lines = grid(("rule", "severity", "description", "source"), rows)
            emit(human(lines + [""] + [f"[{i}] {u}" for i, u in enumerate(sources, 1)] + ["", f"{len(rules_json)} rules"]))
    return 0
