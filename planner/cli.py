"""`planner` command line. Exit codes: 0 fine, 1 findings at or above --fail-on, 2 unusable input.

Each subcommand lives in `planner.commands.<name>` and registers itself; command modules
import nothing heavy at module level, so `planner plan` starts without pulumi or boto3.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from planner import __version__
from planner.errors import InputError

COMMANDS = ("plan", "catalog", "rules", "compare", "diff", "preflight", "prices", "schema")
EXIT_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage + exits 2; keep it to one line
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="planner", description="Validate and price AWS ML training clusters declared in Pulumi stacks.")
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"planner.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
    except InputError as exc:
        for p in exc.problems:
            print(f"planner: {p}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return code
