"""The stack section of the document: one planned (or preflighted) stack as every format shows it.

Everything a renderer needs is here, resolved by the producer before the document is built
(`planner.core.planning.build_report`): a finding's file, line and resource (for a cluster read back
from a program: the program's file and line and the resource's URN), its stack-specific fix,
the parts of the cluster its line belongs to (so "a price for a part an error rules out" is
decided without the stack file), and the declared topology the Markdown diagram draws. So no
renderer asks the registry, the catalogue, the pipeline or the locator.

`summary` (`planner.core.document.summary_section.Summary`) and `cost`
(`planner.core.document.cost_section.CostReport`, line item by line item) are typed; they serialise to
the JSON `planner.core.planning.summary.summarize` and the cost estimate have always produced
(docs/output.md), through the one codec (`planner.core.document.codec`), and the document
round-trips exactly (`load(StackReport, dump(s)) == s`).
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from msgspec import Struct

from planner.core.document.codec import key
from planner.core.document.cost_section import CostReport
from planner.core.document.run_time_section import RunTimeReport
from planner.core.document.summary_section import Summary
from planner.core.model.cluster import DeploymentType, Purchase, ReadCacheSizingMode
from planner.core.model.findings import EditOp, EditValue, Outside, Severity

IN_SOURCE = "inSource"  # suppression kinds, as SARIF names them
EXTERNAL = "external"
BASELINE = "baseline"  # recorded in the baseline the run was judged against (`--baseline`); SARIF: external
COMMAND_LINE = "command line"  # where an `--suppress` suppression is
# what an input problem of the command line names as its file (`InputProblem.has_file`): the pipeline's
# `--suppress` check says COMMAND_LINE, the commands' options "<command line>"
COMMAND_LINE_FILES = frozenset({COMMAND_LINE, "<command line>"})


class Suppression(Struct, frozen=True):
    """How and why a finding is suppressed: in the source (`inSource`, with its reason: the stack
    file's `suppress:` list, or a program resource's tag or comment), outside it (`external`: the
    command line, the policy pack's config), or by the baseline the run was judged against
    (`baseline`: a finding accepted when the baseline was written, which does not fail the run)."""

    kind: str
    reason: str


class ReportedEdit(Struct, frozen=True):
    """One edit of a fix as the document reports it: the key path as a finding's `path` says it
    (`planner:cluster.node_groups[0].count`), the operation (`set`, `add`, `remove`) and the value,
    with the words said after it (`note`); data, so that a reader (a bot, an editor) can apply it
    without parsing the fix's words. An edit of one of a program's resources (a change the model holds
    no value for) names the resource's URN (`resource`), and `path` is its property as the engine names
    it (`scalingConfig.desiredSize`)."""

    path: str
    op: EditOp
    value: EditValue = None
    note: Annotated[str, key(omit="empty")] = ""
    resource: Annotated[str, key(omit="empty")] = ""


class ReportedFix(Struct, frozen=True):
    """A finding's fix as reported: `text`, said in the terms of where the stack was declared (its
    stack file's keys, its program's resources and properties, the pack's config), which renderers
    print; `reason`, why, in words that name no key; the `edits` to make, all of them, and the
    `alternatives`, each a single edit that would do instead. A fix that is no edit of the model
    (a quota increase) has a reason and no edits, and `outside` names the kind of action the reason is
    (`planner.core.model.findings.OUTSIDE`: quota, purchase, opt-in, ...). A report saved before fixes were data wrote the
    text alone: it reads as a fix with that text and no edits."""

    text: str
    reason: str = ""
    edits: tuple[ReportedEdit, ...] = ()
    alternatives: Annotated[tuple[ReportedEdit, ...], key(omit="empty")] = ()
    outside: Annotated[Outside | None, key(omit="none")] = None

    JSON_ORDER: ClassVar[tuple[str, ...]] = ("reason", "edits", "alternatives", "outside", "text")


class ReportedFinding(Struct, frozen=True):
    """A finding as reported: where it is (already resolved), what to do, how it is suppressed.

    `fix` is the change for this stack when the rule could name one; otherwise a renderer shows
    the rule's remediation (`Report.rule(id)`). `parts` are the indexes (into
    `Topology.parts()`: node groups, then the Lustre file system) of the parts whose keys are on
    the finding's line.
    """

    rule: str
    severity: Severity
    message: str
    file: str
    line: int | None = None
    path: str = ""  # the key path as written under `config:`; "" for the stack as a whole
    suppression: Annotated[Suppression | None, key(omit="none")] = None  # set when suppressed
    # the Pulumi URN of the resource at fault (read-back stacks, the pack)
    resource: Annotated[str | None, key(omit="none")] = None
    fix: Annotated[ReportedFix | None, key(omit="none", shape="text")] = None
    parts: Annotated[tuple[int, ...], key(omit="empty")] = ()

    # `suppressed`, computed, after `path`
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "rule",
        "severity",
        "message",
        "file",
        "line",
        "path",
        "suppressed",
        "suppression",
        "resource",
        "fix",
        "parts",
    )

    @property
    def suppressed(self) -> bool:
        return self.suppression is not None

    @property
    def baselined(self) -> bool:
        """Suppressed by the baseline (`--baseline`), not by a suppression of its own."""
        return self.suppression is not None and self.suppression.kind == BASELINE

    @property
    def where(self) -> str:
        """`file:line`, or the file alone."""
        return f"{self.file}:{self.line}" if self.line else self.file


class UnusedSuppressionReport(Struct, frozen=True):
    """A suppression that suppressed no finding of its stack (info: never changes the exit code)."""

    rule: str
    reason: str
    kind: str  # inSource (the stack's `suppress:` list) or external (`--suppress`)
    file: str
    line: int | None = None
    path: str | None = None  # the suppression's key path in the stack file; None for `--suppress`

    @property
    def where(self) -> str:
        """`stacks/x.yaml:12` for the stack's own suppression, `command line` for `--suppress`."""
        if self.kind == EXTERNAL:
            return COMMAND_LINE
        return self.file + (f":{self.line}" if self.line else "")

    @property
    def message(self) -> str:
        said = f"--suppress {self.rule}" if self.kind == EXTERNAL else f"suppression of '{self.rule}'"
        return f"{said} matched no finding in this stack; remove it, or check that it names the rule meant"


class BaselineFixed(Struct, frozen=True):
    """An entry of the baseline (`--baseline`) that matches no unsuppressed finding of its stack any
    more: fixed, or suppressed since. Never changes the exit code; drop it by writing the baseline again."""

    rule: str
    path: str  # the entry's model path (`planner:cluster.node_groups[0].efa`); "" for the stack as a whole
    resource: Annotated[str | None, key(omit="none")] = None  # the URN, for a program's resource

    @property
    def where(self) -> str:
        """The resource's URN and the path, or the path alone (`the stack` for the stack as a whole)."""
        said = self.path or "the stack"
        return f"{self.resource} ({said})" if self.resource else said

    @property
    def message(self) -> str:
        return f"baseline entry of '{self.rule}' at {self.where} matches no finding any more: fixed"


class UltraServerUnit(Struct, frozen=True):
    """The UltraServer type a node group is bought in (from the catalogue, at build time)."""

    name: str
    members: int
    accelerators: int
    interconnect: str


class GroupTopology(Struct, frozen=True):
    """A node group as the topology diagram draws it."""

    name: str
    instance_type: str
    purchase: Purchase
    count: int
    availability_zone: str
    efa: bool  # EFA declared
    efa_supported: bool  # the instance type supports EFA (catalogue)
    accelerators: int  # count x accelerators per instance
    accelerator: str  # the accelerator's name (catalogue)
    ultraserver: UltraServerUnit | None = None


class LustreTopology(Struct, frozen=True):
    """The FSx for Lustre file system as the topology diagram draws it."""

    deployment_type: DeploymentType
    storage_capacity_gib: int | None  # None: Intelligent-Tiering, elastic storage
    per_unit_storage_throughput: int | None
    efa_enabled: bool
    availability_zone: str | None
    s3_import_path: str | None
    storage_type: Annotated[str | None, key(omit="none")] = None  # INTELLIGENT_TIERING, else left out
    throughput_capacity_mbps: Annotated[int | None, key(omit="none")] = None
    read_cache_sizing_mode: Annotated[ReadCacheSizingMode | None, key(omit="none")] = None  # Intelligent-Tiering only
    read_cache_size_gib: Annotated[int | None, key(omit="none")] = None


class Topology(Struct, frozen=True):
    """What the cluster is made of: placement, node groups and the file system."""

    placement: str
    node_groups: tuple[GroupTopology, ...] = ()
    lustre: LustreTopology | None = None

    def parts(self) -> tuple[GroupTopology | LustreTopology, ...]:
        """The parts a finding's `parts` index: node groups in order, then the file system."""
        return self.node_groups + ((self.lustre,) if self.lustre is not None else ())


class StackReport(Struct, frozen=True):
    """One stack: identity and source, summary, findings (sorted by file and line), cost, unused
    suppressions and topology. `cost` is None when the command prices nothing (preflight)."""

    name: Annotated[str, key("stack")]
    file: str
    region: str
    summary: Summary
    topology: Topology
    findings: tuple[ReportedFinding, ...] = ()
    cost: CostReport | None = None
    # only when the workload names a model and no MFU: the run's predicted step (planner.core.runtime_model)
    run_time: Annotated[RunTimeReport | None, key(omit="none")] = None
    # only when there is one, like a finding's `fix`
    unused_suppressions: Annotated[tuple[UnusedSuppressionReport, ...], key(omit="empty")] = ()
    # entries of the baseline (`--baseline`) no longer found in this stack; only when there is one
    baseline_fixed: Annotated[tuple[BaselineFixed, ...], key(omit="empty")] = ()

    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "name",
        "file",
        "region",
        "summary",
        "findings",
        "cost",
        "run_time",
        "unused_suppressions",
        "baseline_fixed",
        "topology",
    )
