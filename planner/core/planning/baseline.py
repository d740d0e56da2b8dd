"""Baselines: the findings accepted when a baseline was written, so that only new ones fail the run.

As checkov's `--create-baseline` / `--baseline`: `planner plan --create-baseline FILE` records each
stack's unsuppressed error and warning findings, and `--baseline FILE` reports those again as
`baselined` (a suppression of kind `baseline`: shown, never failing), new findings as usual, and
each entry that matches no unsuppressed finding any more as fixed (`StackReport.baseline_fixed`).

An entry is a finding's place, not its line: the stack (its name and file), the rule, and the
location key: the key path of the value at fault in a stack file (`planner:cluster.node_groups[0].efa`),
or, for a program's resource, its URN and the model path without list positions (a read-back's
lists follow the order of the program's resources, which moves when one is added). Lines move
with every edit above; these keys do not. The file is JSON, versioned (`version`), its entries
sorted, so the same findings give the same bytes (docs/output.md#baselines).

Works on the document alone (`planner.core.document.Report`): the same for `plan`, `preflight`
and `diff`, whatever produced the findings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from planner.core.document.report import Report
from planner.core.document.stacks import BASELINE, BaselineFixed, ReportedFinding, StackReport, Suppression
from planner.core.reading.problems import InputError, Problem

VERSION = 1  # the baseline file's version: a file of another version is refused in one line
MAX_BYTES = 16 * 1024 * 1024  # a list of findings, not a device: larger files are refused, not read
RECORDED = ("error", "warning")  # the severities a baseline records: info findings never fail a run
EXPECTED = "expected a planner baseline (`planner plan --create-baseline FILE` writes one)"
_INDEX = re.compile(r"\[\d+\]")


class Entry(Struct, frozen=True, order=True):
    """One accepted finding: its stack (name and file), rule and location key (resource, path)."""

    stack: str
    file: str
    rule: str
    resource: str  # the URN of the program's resource at fault; "" for a stack file's value
    path: str  # the model path (without list positions when `resource` is set); "" for the stack


class Baseline(Struct, frozen=True):
    """The entries of a baseline file, for one command (`plan` also serves `diff`)."""

    command: str
    entries: frozenset[Entry]


def location(f: ReportedFinding) -> tuple[str, str]:
    """A finding's location key: (URN, model path without list positions) for a program's resource,
    ("", key path) for a stack file's value."""
    if f.resource:
        return f.resource, _INDEX.sub("", f.path)
    return "", f.path


def entry(stack: StackReport | tuple[str, str], f: ReportedFinding) -> Entry:
    name, file = (stack.name, stack.file) if isinstance(stack, StackReport) else stack
    resource, path = location(f)
    return Entry(name, _file(file), f.rule, resource, path)


def _file(file: str) -> str:
    """A stack's file as a baseline compares it: `./stacks/x.yaml` and `stacks/x.yaml` are one file."""
    import os.path

    return os.path.normpath(file) if file else file


def of_report(report: Report) -> Baseline:
    """The baseline of `report`: every unsuppressed error and warning finding of every stack."""
    command = "plan" if report.command == "diff" else report.command
    return Baseline(
        command,
        frozenset(
            entry(s, f) for s in report.stacks for f in s.findings if not f.suppressed and f.severity in RECORDED
        ),
    )


def dumps(baseline: Baseline) -> str:
    """The baseline file: JSON, keys in a fixed order, stacks and their entries sorted, so the same
    findings give the same bytes and a review of the file sees what was accepted, stack by stack."""
    stacks: dict[tuple[str, str], list[Entry]] = {}
    for e in sorted(baseline.entries, key=lambda e: (e.file, e.stack, e.rule, e.resource, e.path)):
        stacks.setdefault((e.file, e.stack), []).append(e)
    doc = {
        "version": VERSION,
        "command": baseline.command,
        "stacks": [
            {
                "stack": name,
                "file": file,
                "findings": [
                    {"rule": e.rule, **({"resource": e.resource} if e.resource else {}), "path": e.path}
                    for e in entries
                ],
            }
            for (file, name), entries in stacks.items()
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def apply(report: Report, baseline: Baseline, file: str) -> Report:
    """`report` judged against `baseline` (read from `file`): findings it records are suppressed as
    `baseline` (they no longer fail the run), the others are as they were, and each entry of a stack of
    this report that matches no unsuppressed finding is listed as fixed on its stack. Entries of stacks
    the report does not hold (not planned in this run) are not judged. `diff`: the head side's added
    findings are judged too, so `--fail-on` fails only on findings that are new to the baseline."""
    reason = f"recorded in the baseline {file}"
    wanted = baseline.entries

    def judged(stack: tuple[str, str], findings: Iterable[ReportedFinding]) -> tuple[ReportedFinding, ...]:
        return tuple(
            replace(f, suppression=Suppression(BASELINE, reason))
            if not f.suppressed and entry(stack, f) in wanted
            else f
            for f in findings
        )

    stacks = []
    for s in report.stacks:
        found = {entry(s, f) for f in s.findings if not f.suppressed}
        fixed = tuple(
            BaselineFixed(e.rule, e.path, e.resource or None)
            for e in sorted(wanted)
            if (e.stack, e.file) == (s.name, _file(s.file)) and e not in found
        )
        stacks.append(replace(s, findings=judged((s.name, s.file), s.findings), baseline_fixed=fixed))
    diff = report.diff
    if diff is not None:
        diff = replace(
            diff,
            stacks=tuple(
                replace(d, findings_added=judged((d.head_stack or "", d.head_file or ""), d.findings_added))
                for d in diff.stacks
            ),
        )
    return replace(report, stacks=tuple(stacks), diff=diff, baseline=file)


# --- reading a baseline file -------------------------------------------------------------------


def load(path: str, command: str = "plan") -> Baseline:
    """The baseline at `path`, for `command`; InputError (one line: the file, the key at fault and what
    was expected; the CLI exits 2) for anything that is not a baseline of this version and command."""
    from planner.core.reading.bounded_files import read_regular

    raw = read_regular(path, MAX_BYTES, "the baseline")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _bad(path, "", f"not UTF-8 text (byte {exc.start}); {EXPECTED}") from None
    except json.JSONDecodeError as exc:
        raise InputError([Problem(path, exc.lineno, "", f"not JSON ({exc.msg}); {EXPECTED}")]) from None
    except (RecursionError, ValueError):  # nested too deeply; a number of more digits than Python converts
        raise _bad(path, "", f"not a usable JSON document; {EXPECTED}") from None
    return _read(path, data, command)


def _bad(path: str, key: str, message: str) -> InputError:
    return InputError([Problem(path, None, key, message)])


def _object(path: str, value: Any, key: str, keys: tuple[str, ...], required: tuple[str, ...]) -> Mapping[str, Any]:
    """`value` as an object with only `keys`, all of `required` among them."""
    from planner.core.text.safe import excerpt

    if not isinstance(value, dict):
        raise _bad(path, key, f"expected an object, not {excerpt(value)}" + ("" if key else f"; {EXPECTED}"))
    for k in value:
        if k not in keys:
            raise _bad(path, _join(key, str(k)), f"unknown key; expected only {', '.join(keys)}")
    for k in required:
        if k not in value:
            raise _bad(path, _join(key, k), f"missing; expected {_WHAT[k]}")
    return value


_WHAT = {
    "version": f"the baseline version, {VERSION}",
    "command": "the command that wrote the baseline (plan or preflight)",
    "stacks": "a list of stacks, each {stack, file, findings}",
    "stack": "the stack's name (a string)",
    "file": "the stack's file (a string)",
    "findings": "a list of findings, each {rule, path} (and resource for a program's resource)",
    "rule": "a rule id (a string; `planner rules` lists them)",
    "path": 'the model path of the finding (a string, "" for the stack as a whole)',
    "resource": "the URN of the program's resource (a string)",
}


def _join(key: str, part: str) -> str:
    return f"{key}.{part}" if key else part


def _text(path: str, value: Any, key: str, name: str) -> str:
    from planner.core.text.safe import excerpt

    if not isinstance(value, str):
        raise _bad(path, key, f"expected {_WHAT[name]}, not {excerpt(value)}")
    return value


def _list(path: str, value: Any, key: str, name: str) -> list[Any]:
    from planner.core.text.safe import excerpt

    if not isinstance(value, list):
        raise _bad(path, key, f"expected {_WHAT[name]}, not {excerpt(value)}")
    return value


def _read(path: str, data: Any, command: str) -> Baseline:
    from planner.core.planning.pipeline import unknown_rule_message
    from planner.core.text.safe import excerpt

    top = _object(path, data, "", ("version", "command", "stacks"), ("version", "command", "stacks"))
    version = top["version"]
    if version != VERSION or isinstance(version, bool):
        raise _bad(path, "version", f"a baseline of version {excerpt(version)}; this planner reads version {VERSION}")
    said = _text(path, top["command"], "command", "command")
    if said != command:
        raise _bad(
            path,
            "command",
            f"{excerpt(said)}; expected '{command}' (a baseline of `planner {command}`, which "
            f"`planner {command} --create-baseline FILE` writes)",
        )
    entries = set()
    for i, raw in enumerate(_list(path, top["stacks"], "stacks", "stacks")):
        key = f"stacks[{i}]"
        s = _object(path, raw, key, ("stack", "file", "findings"), ("stack", "file", "findings"))
        name = _text(path, s["stack"], f"{key}.stack", "stack")
        file = _file(_text(path, s["file"], f"{key}.file", "file"))
        for j, raw_f in enumerate(_list(path, s["findings"], f"{key}.findings", "findings")):
            fkey = f"{key}.findings[{j}]"
            f = _object(path, raw_f, fkey, ("rule", "resource", "path"), ("rule", "path"))
            rule = _text(path, f["rule"], f"{fkey}.rule", "rule")
            unknown = unknown_rule_message(rule)
            if unknown:
                raise _bad(path, f"{fkey}.rule", unknown)
            resource = _text(path, f["resource"], f"{fkey}.resource", "resource") if "resource" in f else ""
            entries.add(Entry(name, file, rule, resource, _text(path, f["path"], f"{fkey}.path", "path")))
    return Baseline(command, frozenset(entries))
