"""GitHub Actions workflow commands: one annotation per finding, shown on the pull request diff.

`::error file=F,line=L,title=RULE::message` (`::warning`, `::notice` for info and for
suppressed findings, which stay visible but never as errors). Escaping follows GitHub's
workflow-command rules (actions/toolkit `command.ts`): in the message `%`, CR and LF are
percent-encoded; in property values `:` and `,` are too.
"""

from __future__ import annotations

from planner.core.document import (
    BaselineFixed,
    InputProblem,
    RenderContext,
    Report,
    ReportedFinding,
    UnusedSuppressionReport,
)
from planner.core.render.digest import count_text, counts, problems_text

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """A message: `%`, CR and LF percent-encoded (GitHub's rule), other unprintables escaped (`one_line`)."""
    from planner.core.text.safe import one_line

    return one_line(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: ReportedFinding) -> str:
    command = "notice" if f.suppressed else COMMANDS[f.severity]
    props = [f"file={escape_property(f.file)}"]
    if f.line:
        props.append(f"line={f.line}")
    title = f"{f.rule} ({'baselined' if f.baselined else 'suppressed'})" if f.suppressed else f.rule
    props.append(f"title={escape_property(title)}")
    text = f.message + (
        f". Fix: {f.fix.text}" if f.fix and not f.suppressed else ""
    )  # the change to make, for this stack
    return f"::{command} {','.join(props)}::{escape_data(text)}"


def unused_annotation(u: UnusedSuppressionReport) -> str:
    """A notice for a suppression that suppressed nothing: on its line of the stack file, or
    (`--suppress`) on the stack file as a whole."""
    props = [f"file={escape_property(u.file)}"] + ([f"line={u.line}"] if u.line else [])
    props.append(f"title={escape_property('unused suppression: ' + u.rule)}")
    return f"::notice {','.join(props)}::{escape_data(u.message)}"


def fixed_annotation(file: str, b: BaselineFixed) -> str:
    """A notice, on the stack's file, for a baseline entry that matches no finding any more."""
    props = [f"file={escape_property(file)}", f"title={escape_property('fixed since the baseline: ' + b.rule)}"]
    return f"::notice {','.join(props)}::{escape_data(b.message)}"


def problem_annotation(p: InputProblem) -> str:
    """An error on the line of the input that cannot be used (the stack file as a whole without one);
    a problem of the command line names no file (GitHub shows it on the run, not on a file)."""
    props = []
    if p.has_file:
        props = [f"file={escape_property(p.file)}"] + ([f"line={p.line}"] if p.line else [])
    props.append(f"title={escape_property('invalid input')}")
    text = f"{p.key}: {p.message}" if p.key else p.message
    return f"::error {','.join(props)}::{escape_data(text)}"


def render(report: Report, context: RenderContext = RenderContext()) -> str:
    from planner.core.text.safe import join_lines

    if report.problems:
        lines = [problem_annotation(p) for p in report.problems] + [f"planner: {problems_text(report)}"]
        return join_lines(lines) + "\n"
    plans = report.stacks
    lines = [annotation(f) for p in plans for f in p.findings]
    lines += [unused_annotation(u) for p in plans for u in p.unused_suppressions]
    lines += [fixed_annotation(p.file, b) for p in plans for b in p.baseline_fixed]
    total = counts(f for p in plans for f in p.findings)
    lines.append(f"planner: {len(plans)} stack{'s' if len(plans) != 1 else ''}, {count_text(total)}")
    return join_lines(lines) + "\n"
