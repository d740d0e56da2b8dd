"""The one output document: every producer fills a `Report`, every format renders one.

Like Infracost's `output.Root`: typed, versioned, and re-renderable from its own JSON
(`planner render --format F report.json`), so a CI job can post a comment from a saved
artifact without planning again. Renderers import only these types and text helpers;
producers (plan, preflight, diff, compare, capacity, the components and the policy pack)
resolve everything a renderer shows (locations, rule metadata, fixes) before the document is
built (`planner.core.planning.build_report` for stacks).
"""

from planner.core.document.cost_section import CostReport, InstanceDetail, LineItem, LustreDetail, VolumeDetail
from planner.core.document.report import (
    SEVERITIES,
    VERSION,
    InputProblem,
    NotAReport,
    RenderContext,
    Report,
    RuleInfo,
    Severity,
)
from planner.core.document.stacks import (
    BaselineFixed,
    GroupTopology,
    LustreTopology,
    ReportedEdit,
    ReportedFinding,
    ReportedFix,
    StackReport,
    Suppression,
    Topology,
    UltraServerUnit,
    UnusedSuppressionReport,
)
from planner.core.document.summary_section import GroupSummary, LustreSummary, PeakPflops, Summary

__all__ = [
    "SEVERITIES",
    "VERSION",
    "BaselineFixed",
    "CostReport",
    "GroupSummary",
    "GroupTopology",
    "InputProblem",
    "InstanceDetail",
    "LineItem",
    "LustreDetail",
    "LustreSummary",
    "LustreTopology",
    "NotAReport",
    "PeakPflops",
    "RenderContext",
    "Report",
    "ReportedEdit",
    "ReportedFinding",
    "ReportedFix",
    "RuleInfo",
    "Severity",
    "StackReport",
    "Summary",
    "Suppression",
    "Topology",
    "UltraServerUnit",
    "UnusedSuppressionReport",
    "VolumeDetail",
]
