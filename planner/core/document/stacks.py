"""The stack section of the document: one planned (or preflighted) stack as every format shows it.

Everything a renderer needs is here, resolved by the producer before the document is built
(`planner.core.planning.build_report`): a finding's file, line and resource (for a cluster read back
from a program: the program's file and line and the resource's URN), its stack-specific fix,
the parts of the cluster its line belongs to (so "a price for a part an error rules out" is
decided without the stack file), and the declared topology the Markdown diagram draws. So no
renderer asks the registry, the catalogue, the pipeline or the locator.

`summary` (`planner.core.document.summary_section.Summary`) and `cost`
(`planner.core.document.cost_section.CostReport`, line item by line item) are typed; they serialise to
the JSON `planner.core.planning.summary.summarize` and the cost estimate (`CostEstimate.to_json`) have always
produced (docs/output.md), and the document round-trips exactly
(`StackReport.from_json(s.to_json()) == s`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.core.document.cost_section import CostReport
from planner.core.document.summary_section import Summary
from planner.core.model.cluster import DeploymentType, Purchase
from planner.core.model.findings import Severity, severity_of

IN_SOURCE = "inSource"  # suppression kinds, as SARIF names them
EXTERNAL = "external"
COMMAND_LINE = "command line"  # where an `--suppress` suppression is
# what an input problem of the command line names as its file (`InputProblem.has_file`): the pipeline's
# `--suppress` check says COMMAND_LINE, the commands' options "<command line>"
COMMAND_LINE_FILES = frozenset({COMMAND_LINE, "<command line>"})


@dataclass(frozen=True)
class Suppression:
    """How and why a finding is suppressed: in the stack file (`inSource`, with its reason) or
    on the command line (`external`)."""

    kind: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Suppression:
        return cls(d["kind"], d["reason"])


@dataclass(frozen=True)
class ReportedFinding:
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
    suppression: Suppression | None = None  # set when suppressed
    resource: str | None = None  # the Pulumi URN of the resource at fault (read-back stacks, the pack)
    fix: str | None = None
    parts: tuple[int, ...] = ()

    @property
    def suppressed(self) -> bool:
        return self.suppression is not None

    @property
    def where(self) -> str:
        """`file:line`, or the file alone."""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "path": self.path,
            "suppressed": self.suppressed,
        }
        if self.suppression is not None:
            out["suppression"] = self.suppression.to_json()
        if self.resource is not None:
            out["resource"] = self.resource
        if self.fix is not None:
            out["fix"] = self.fix
        if self.parts:
            out["parts"] = list(self.parts)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ReportedFinding:
        sup = d.get("suppression")
        return cls(
            d["rule"],
            severity_of(d["severity"]),
            d["message"],
            d["file"],
            d.get("line"),
            d.get("path") or "",
            None if sup is None else Suppression.from_json(sup),
            d.get("resource"),
            d.get("fix"),
            tuple(d.get("parts") or ()),
        )


@dataclass(frozen=True)
class UnusedSuppressionReport:
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

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "reason": self.reason,
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "path": self.path,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> UnusedSuppressionReport:
        return cls(d["rule"], d["reason"], d["kind"], d.get("file", ""), d.get("line"), d.get("path"))


@dataclass(frozen=True)
class UltraServerUnit:
    """The UltraServer type a node group is bought in (from the catalogue, at build time)."""

    name: str
    members: int
    accelerators: int
    interconnect: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "members": self.members,
            "accelerators": self.accelerators,
            "interconnect": self.interconnect,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> UltraServerUnit:
        return cls(d["name"], d["members"], d["accelerators"], d["interconnect"])


@dataclass(frozen=True)
class GroupTopology:
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

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instance_type": self.instance_type,
            "purchase": self.purchase,
            "count": self.count,
            "availability_zone": self.availability_zone,
            "efa": self.efa,
            "efa_supported": self.efa_supported,
            "accelerators": self.accelerators,
            "accelerator": self.accelerator,
            "ultraserver": None if self.ultraserver is None else self.ultraserver.to_json(),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GroupTopology:
        u = d.get("ultraserver")
        return cls(
            d["name"],
            d["instance_type"],
            d["purchase"],
            d["count"],
            d["availability_zone"],
            d["efa"],
            d["efa_supported"],
            d["accelerators"],
            d["accelerator"],
            None if u is None else UltraServerUnit.from_json(u),
        )


@dataclass(frozen=True)
class LustreTopology:
    """The FSx for Lustre file system as the topology diagram draws it."""

    deployment_type: DeploymentType
    storage_capacity_gib: int
    per_unit_storage_throughput: int | None
    efa_enabled: bool
    availability_zone: str | None
    s3_import_path: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "deployment_type": self.deployment_type,
            "storage_capacity_gib": self.storage_capacity_gib,
            "per_unit_storage_throughput": self.per_unit_storage_throughput,
            "efa_enabled": self.efa_enabled,
            "availability_zone": self.availability_zone,
            "s3_import_path": self.s3_import_path,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LustreTopology:
        return cls(
            d["deployment_type"],
            d["storage_capacity_gib"],
            d.get("per_unit_storage_throughput"),
            d["efa_enabled"],
            d.get("availability_zone"),
            d.get("s3_import_path"),
        )


@dataclass(frozen=True)
class Topology:
    """What the cluster is made of: placement, node groups and the file system."""

    placement: str
    node_groups: tuple[GroupTopology, ...] = ()
    lustre: LustreTopology | None = None

    def parts(self) -> tuple[GroupTopology | LustreTopology, ...]:
        """The parts a finding's `parts` index: node groups in order, then the file system."""
        return self.node_groups + ((self.lustre,) if self.lustre is not None else ())

    def to_json(self) -> dict[str, Any]:
        return {
            "placement": self.placement,
            "node_groups": [g.to_json() for g in self.node_groups],
            "lustre": None if self.lustre is None else self.lustre.to_json(),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Topology:
        fs = d.get("lustre")
        return cls(
            d["placement"],
            tuple(GroupTopology.from_json(g) for g in d.get("node_groups") or ()),
            None if fs is None else LustreTopology.from_json(fs),
        )


@dataclass(frozen=True)
class StackReport:
    """One stack: identity and source, summary, findings (sorted by file and line), cost, unused
    suppressions and topology. `cost` is None when the command prices nothing (preflight)."""

    name: str
    file: str
    region: str
    summary: Summary
    topology: Topology
    findings: tuple[ReportedFinding, ...] = ()
    cost: CostReport | None = None
    unused_suppressions: tuple[UnusedSuppressionReport, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stack": self.name,
            "file": self.file,
            "region": self.region,
            "summary": self.summary.to_json(),
            "findings": [f.to_json() for f in self.findings],
            "cost": None if self.cost is None else self.cost.to_json(),
        }
        if self.unused_suppressions:  # only when there is one, like a finding's `fix`
            out["unused_suppressions"] = [u.to_json() for u in self.unused_suppressions]
        out["topology"] = self.topology.to_json()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> StackReport:
        cost = d.get("cost")
        return cls(
            d["stack"],
            d["file"],
            d["region"],
            Summary.from_json(d["summary"]),
            Topology.from_json(d["topology"]),
            tuple(ReportedFinding.from_json(f) for f in d.get("findings") or ()),
            None if cost is None else CostReport.from_json(cost),
            tuple(UnusedSuppressionReport.from_json(u) for u in d.get("unused_suppressions") or ()),
        )
