"""`planner render --format F REPORT.json`: a saved report in another format, without planning again.

What a CI job needs to post a pull-request comment (or upload SARIF) from the JSON artifact of
an earlier step: the JSON is the document itself (`planner.core.document.Report`, version 2),
so every format renders from it exactly as from the run that wrote it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from planner.core.model.findings import SEVERITIES
from planner.core.render.formats import FORMATS

if TYPE_CHECKING:
    from planner.core.document import Report

MAX_BYTES = 64 * 1024 * 1024  # a report, not a device: larger files are refused, not read
STDIN = "<standard input>"


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("render", help="render a saved JSON report (`planner plan --format json`) in another format")
    p.add_argument(
        "report", metavar="REPORT", help="a JSON report planner wrote with --format json (- for standard input)"
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
        help="the threshold the table's last line states the exit code for, and --exit-code exits with",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    p.add_argument(
        "--exit-code",
        action="store_true",
        help="exit with the report's own exit code (0; 1 a finding at or above --fail-on; 2 input problems), "
        "as the run that wrote it did: a gate from a validated report (the Action's publish mode)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.commands.plan import show
    from planner.core.render.formats import formats_of

    report = read(args.report)
    if args.format not in formats_of(report):
        from planner.core.reading.problems import InputError, Problem

        raise InputError(
            [
                Problem(
                    STDIN if args.report == "-" else args.report,
                    None,
                    "--format",
                    f"a {report.command} report renders as {', '.join(formats_of(report))}; got {args.format}",
                )
            ]
        )
    show(report, args)
    return report.exit_code(args.fail_on) if args.exit_code else 0


def read(path: str) -> Report:
    """The report saved at `path`; InputError (one line, exit 2) for a file that is not a planner
    report of this version."""
    import json

    from planner.core.document import NotAReport
    from planner.core.document.report import load_report
    from planner.core.reading.bounded_files import read_regular
    from planner.core.reading.problems import InputError, Problem

    if path == "-":
        import sys

        path = STDIN
        raw = sys.stdin.buffer.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise InputError([Problem(path, None, "", f"more than {MAX_BYTES} bytes; expected a planner JSON report")])
    else:
        raw = read_regular(path, MAX_BYTES, "the report")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(
            [Problem(path, None, "", f"not UTF-8 text (byte {exc.start}); expected a planner JSON report")]
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            [
                Problem(
                    path,
                    exc.lineno,
                    "",
                    f"not JSON ({exc.msg}); expected a planner JSON report (`planner plan --format json`)",
                )
            ]
        ) from None
    except RecursionError:
        raise InputError([Problem(path, None, "", "JSON nested too deeply; expected a planner JSON report")]) from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise InputError(
            [Problem(path, None, "", f"not a usable JSON number ({exc}); expected a planner JSON report")]
        ) from None
    try:  # every value checked as it is read (types, finite numbers, lines, sizes): planner.core.document.codec
        return load_report(data)
    except NotAReport as exc:
        raise InputError([Problem(path, None, exc.key, exc.message)]) from None
