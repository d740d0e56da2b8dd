"""The output formats of the document, by `--format` name: each a module with one entry point,
`render(report: Report, context: RenderContext) -> str`.

Imported explicitly (and only the one asked for, so `planner plan` loads one renderer), never
by a name built at run time: import-linter sees every edge. A report with a section of another
command (`compare`, `capacity`, `diff`) is rendered by that section's renderer.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.core.document import RenderContext, Report

FORMATS = ("table", "json", "markdown", "sarif", "github")

Renderer = Callable[[Report, RenderContext], str]


def renderer(fmt: str) -> Renderer:
    """The `render` function of format `fmt` (one of FORMATS)."""
    if fmt == "table":
        from planner.core.render import table

        return table.render
    if fmt == "json":
        from planner.core.render import json_report

        return json_report.render
    if fmt == "markdown":
        from planner.core.render import markdown

        return markdown.render
    if fmt == "sarif":
        from planner.core.render import sarif

        return sarif.render
    if fmt == "github":
        from planner.core.render import github

        return github.render
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


SECTION_FORMATS = ("table", "json", "markdown")  # the formats of a compare, capacity or diff report


def formats_of(report: Report) -> tuple[str, ...]:
    """The formats `report` renders in: a compare, capacity or diff report has no SARIF or annotations
    (its findings, if any, are the plan's: `planner plan` gives those)."""
    return SECTION_FORMATS if report.command in ("compare", "capacity", "diff") else FORMATS


def section_renderer(report: Report, fmt: str) -> Renderer | None:
    """The renderer of the report's compare, capacity or diff section in `fmt` (table, markdown);
    None when the report has no such section, or for json (the document itself)."""
    if fmt not in ("table", "markdown"):
        return None
    if report.compare is not None:
        from planner.core.render import compare_report

        return compare_report.render_table if fmt == "table" else compare_report.render_markdown
    if report.capacity is not None:
        from planner.core.render import block_offerings_report

        return block_offerings_report.render_table if fmt == "table" else block_offerings_report.render_markdown
    if report.diff is not None:
        from planner.core.render import diff_report

        return diff_report.render_table if fmt == "table" else diff_report.render_markdown
    return None


def render(report: Report, fmt: str, context: RenderContext | None = None) -> str:
    """`report` in format `fmt` (default context: 100 columns, no colour, fail on errors).

    The one dispatch of every format, `planner render` included: a report whose `compare`,
    `capacity` or `diff` section is set goes to that section's renderer here (table, markdown;
    its json is the document); the rest (plan, preflight, input problems) to the format's module."""
    if fmt not in formats_of(report):
        raise ValueError(f"a {report.command} report renders as {', '.join(formats_of(report))}, not {fmt}")
    section = section_renderer(report, fmt)
    return (section or renderer(fmt))(report, context or RenderContext())
