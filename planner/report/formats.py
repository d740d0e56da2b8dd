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
        from planner.report import table

        return table.render
    if fmt == "json":
        from planner.report import json_report

        return json_report.render
    if fmt == "markdown":
        from planner.report import markdown

        return markdown.render
    if fmt == "sarif":
        from planner.report import sarif

        return sarif.render
    if fmt == "github":
        from planner.report import github

        return github.render
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def render(report: Report, fmt: str, context: RenderContext | None = None) -> str:
    """`report` in format `fmt` (default context: 100 columns, no colour, fail on errors).

    The one dispatch of every format, `planner render` included: a report whose `compare`,
    `capacity` or `diff` section is set goes to that section's renderer here; the rest (plan,
    preflight, input problems) to the format's module."""
    return renderer(fmt)(report, context or RenderContext())
