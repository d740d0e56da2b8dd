"""The one output document: every producer fills a `Report`, every format renders one.

Like Infracost's `output.Root`: typed, versioned, and re-renderable from its own JSON
(`planner render --format F report.json`), so a CI job can post a comment from a saved
artifact without planning again. Renderers (`planner.core.render`) import only these types
and text helpers; producers (plan, preflight, diff, compare, capacity, the components and
the policy pack) resolve everything a renderer shows (locations, rule metadata, fixes) before
the document is built.
"""

from planner.core.document.report import VERSION, InputProblem, RenderContext, Report, RuleInfo

__all__ = ["VERSION", "InputProblem", "RenderContext", "Report", "RuleInfo"]
