"""`planner` command line. Exit codes: 0 fine, 1 findings at or above --fail-on, 2 unusable input.

Each subcommand lives in `planner.commands.<name>` and registers itself; command modules
import nothing heavy at module level, so `planner plan` starts without pulumi or boto3.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from planner import __version__
from planner.core.reading.problems import InputError
from planner.core.reading.problems import error_line as error_line  # the commands import it from here

COMMANDS = ("plan", "catalog", "rules", "compare", "diff", "preflight", "capacity", "prices", "schema", "render")
EXIT_INPUT = 2


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found without `shutil`: argparse imports shutil (and,
    through it, bz2 and lzma) for `get_terminal_size` each time a parser or an argument is made,
    about 2 ms of every `planner` start. The same width: COLUMNS, else the terminal's, else 80, less 2."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def _columns() -> int:
    """`shutil.get_terminal_size().columns`, as argparse reads it."""
    import os

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            stdout = sys.__stdout__  # None when Python runs without one
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # argparse prints usage + exits 2; keep it to one line
        from planner.core.text.safe import one_line

        # one prefix for every error planner prints: `planner: <where>: <what>`
        message = _with_suggestion(message)
        words = self.prog.split()[1:]
        where = f"{' '.join(words)}: " if words else ""
        self.exit(EXIT_INPUT, f"planner: {one_line(where)}{one_line(message)} (see: {one_line(self.prog)} --help)\n")

    def unrecognized(self, extras: Sequence[str]) -> None:
        """`unrecognized arguments: --fromat` with a did-you-mean from this command's own options."""
        import difflib

        options = [o for o in self._option_string_actions if o.startswith("--")]
        first = next((e for e in extras if e.startswith("-")), None)
        hint = ""
        if first is not None:
            close = difflib.get_close_matches(first.split("=", 1)[0], options, n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
        self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")


def _with_suggestion(message: str) -> str:
    """argparse's `invalid choice: 'jsn' (choose from ...)` with a did-you-mean, as misspelt keys get."""
    import difflib
    import re

    m = re.match(r"(.*invalid choice: '([^']*)')( \(choose from (.*)\))?$", message, flags=re.S)
    if not m or not m.group(4):
        return message
    choices = re.findall(r"'([^']*)'", m.group(4))
    close = difflib.get_close_matches(m.group(2), choices, n=1, cutoff=0.6)
    return f"{m.group(1)} (did you mean '{close[0]}'?){m.group(3)}" if close else message


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `only` (a command name) just that command's part, or with
    `only="--version"` no command's: every command module imported and every parser built costs
    each `planner` run its time."""
    parser = _Parser(
        prog="planner", description="Validate and price AWS ML training clusters declared in Pulumi stacks."
    )
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parser.set_defaults(_commands=sub.choices)
    for name in (only,) if only in COMMANDS else () if only == "--version" else COMMANDS:
        importlib.import_module(f"planner.commands.{name}").register(sub)
    for p in sub.choices.values():  # how human output looks, the same for every command
        p.add_argument("--no-color", action="store_true", help="no colour even on a terminal (also: NO_COLOR=1)")
        p.add_argument(
            "--wide",
            action="store_true",
            help="do not wrap to the terminal width (COLUMNS, else the terminal's, else 100)",
        )
    return parser


def _layout(args: argparse.Namespace) -> None:
    """Width and colour for this run's human output (`planner.core.text.terminal.term_from_env`);
    a report written to --output never gets colour."""
    from planner.core.text.terminal import configure, term_from_env

    to_file = bool(getattr(args, "output", None))
    configure(term_from_env(None if to_file else sys.stdout, no_color=args.no_color or to_file, wide=args.wide))


def _command(argv: Sequence[str]) -> str | None:
    """The command `argv` runs when its first word names one (`plan ...`), `--version` alone when
    that is all it asks (it needs no command's parser), else None: then the whole parser is built,
    so `planner --help` and a mistyped command read as before."""
    if list(argv) == ["--version"]:
        return "--version"
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
    args, extras = parser.parse_known_args(argv)
    if extras:  # said by the command whose options they resemble, with a did-you-mean
        getattr(args, "_commands", {}).get(args.command, parser).unrecognized(extras)
    if args.command is None:  # bare `planner`: what it can do, one line per command
        parser.print_help()
        return 0
    _layout(args)
    previous = _unwind_on_signals()
    try:
        return _run(args)
    except Terminated as stop:  # everything the command held is cleaned up: now end as the signal asked
        import os
        import signal

        signal.signal(stop.signum, signal.SIG_DFL)
        os.kill(os.getpid(), stop.signum)
        return 128 + stop.signum  # where the signal does not end the process (never on POSIX)
    finally:
        _restore(previous)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: raised in the main thread so every `with` and `finally` of the
    command runs (temporary folders, the program's processes), then the process ends by the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    raise Terminated(signum)


def _unwind_on_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP unwind the command instead of ending the process on the spot (Ctrl-C,
    SIGINT, already does: KeyboardInterrupt); the handlers before, to restore. Only in the main
    thread, where handlers can be set."""
    import signal

    try:
        return {s: signal.signal(s, _stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread: Python sets no handler there
        return {}


def _restore(previous: dict[int, Any]) -> None:
    import signal

    for s, handler in previous.items():
        signal.signal(s, handler)


def _check_baseline_paths(created: str | None, read: str | None, args: argparse.Namespace) -> None:
    """Before any work: a `--create-baseline` path planner would not write, and a baseline that is also
    the report's `--output` (the report would replace the baseline it was judged against)."""
    import os

    from planner.core.reading.bounded_files import check_output
    from planner.core.reading.problems import Problem

    if created is not None:
        check_output(created, "--create-baseline")
    output = getattr(args, "output", None)
    for key, path in (("--create-baseline", created), ("--baseline", read)):
        if path and output and os.path.realpath(output) == os.path.realpath(path):
            raise InputError([Problem("<command line>", None, key, f"{path} is also --output; expected another file")])


def _run(args: argparse.Namespace) -> int:
    try:
        if getattr(args, "output", None) is not None:  # before anything is planned or fetched
            from planner.core.reading.bounded_files import check_output

            check_output(args.output)
        _check_baseline_paths(getattr(args, "create_baseline", None), getattr(args, "baseline", None), args)
        code: int = args.run(args)
        if sys.stdout is not None:  # closed and unused (the report went to --output): nothing to flush
            from planner.core.reading.bounded_files import emit

            emit("")  # flush now, so a write that fails fails here (exit 2), not at interpreter exit
    except InputError as exc:
        for p in exc.problems:
            error_line(str(p))
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except (SystemExit, Terminated):
        raise
    except BaseException as exc:  # noqa: BLE001 - never a traceback, never exit 1 (which means "findings")
        if isinstance(exc, RecursionError):
            error_line("input nested too deeply to process; expected a simpler document")
        else:
            error_line(
                f"internal error: {type(exc).__name__}: {exc}; nothing was written "
                "(please report it with the command that caused it)"
            )
        return EXIT_INPUT
    return code
