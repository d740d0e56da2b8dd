"""The diff section of the document: what a change does to each stack's cost and findings.

A `diff` report holds the head side's stacks (`Report.stacks`, as `plan` reports them) and
this section: the base side's report (`base`, a `plan` report of the stacks before the
change), and per stack matched by name its status, the change of its total and monthly cost,
the line items that changed, and the findings added and resolved; then the totals. The
producer (`planner.core.document.build_diff`) computes every figure, so the renderers
format and never compute; `from_json(to_json(x)) == x`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from planner.core.document.cost_section import LineItem
from planner.core.document.stacks import ReportedFinding, StackReport

Status = Literal["added", "removed", "changed", "unchanged"]


class SideReport(Protocol):
    """A side of the diff: a `planner.core.document.Report` (named by its shape: that module reads this one)."""

    @property
    def stacks(self) -> tuple[StackReport, ...]: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Change:
    """Before, after and the change of a cost; a stack absent on one side costs 0 there (its side is None).

    When a side is incomplete (a price unknown) the change is unknown (None); `change_known_usd`
    is then the change of the priced line items only, and reports label it as such.
    """

    before_usd: float | None
    after_usd: float | None
    change_usd: float | None
    change_percent: float | None
    change_known_usd: float | None = None  # only when change_usd is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "before_usd": self.before_usd,
            "after_usd": self.after_usd,
            "change_usd": self.change_usd,
            "change_percent": self.change_percent,
        }
        if self.change_usd is None:
            out["change_known_usd"] = self.change_known_usd
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Change:
        return cls(d["before_usd"], d["after_usd"], d["change_usd"], d["change_percent"], d.get("change_known_usd"))


@dataclass(frozen=True)
class LineItemChange:
    """A line item added, removed or changed (matched by name and resource), both sides as the
    stacks' estimates have them, with the monthly (730 h) and the run's difference."""

    name: str
    resource: str
    status: Literal["added", "removed", "changed"]
    before: LineItem | None  # the base side's line item (`stacks[].cost.line_items[]`); None when added
    after: LineItem | None  # the head side's; None when removed
    monthly_before_usd: float | None
    monthly_after_usd: float | None
    monthly_change_usd: float | None
    total_before_usd: float | None
    total_after_usd: float | None
    total_change_usd: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "resource": self.resource,
            "status": self.status,
            "before": None if self.before is None else self.before.to_json(),
            "after": None if self.after is None else self.after.to_json(),
            "monthly_before_usd": self.monthly_before_usd,
            "monthly_after_usd": self.monthly_after_usd,
            "monthly_change_usd": self.monthly_change_usd,
            "total_before_usd": self.total_before_usd,
            "total_after_usd": self.total_after_usd,
            "total_change_usd": self.total_change_usd,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LineItemChange:
        before, after = d["before"], d["after"]
        return cls(
            d["name"],
            d["resource"],
            d["status"],
            None if before is None else LineItem.from_json(before),
            None if after is None else LineItem.from_json(after),
            d["monthly_before_usd"],
            d["monthly_after_usd"],
            d["monthly_change_usd"],
            d["total_before_usd"],
            d["total_after_usd"],
            d["total_change_usd"],
        )


@dataclass(frozen=True)
class StackDiff:
    """One stack before and after: `base_stack` and `head_stack` name it in the base report and in the
    report's stacks (None on the side it is absent from); `stack` is how reports name the pair
    (`a -> b` when two stack files of different names are compared)."""

    stack: str
    status: Status
    base_stack: str | None
    head_stack: str | None
    base_file: str | None
    head_file: str | None
    total: Change
    monthly: Change
    line_items: tuple[LineItemChange, ...] = ()
    findings_added: tuple[ReportedFinding, ...] = ()  # unsuppressed, in head and not in base
    findings_resolved: tuple[ReportedFinding, ...] = ()  # unsuppressed, in base and not in head

    def new_findings(self) -> list[ReportedFinding]:
        """Added findings that are not a resolved one reworded: what `--fail-on` fails on.

        A finding whose message carries a figure (budget-exceeded's total, a checkpoint time)
        is re-worded when the figure moves; it shows as added and resolved, but it was there
        before, so it is not new. Each resolved finding excuses one added finding of the same
        rule and severity in the same stack.
        """
        excused = Counter((f.rule, f.severity) for f in self.findings_resolved)
        out = []
        for f in self.findings_added:
            key = (f.rule, f.severity)
            if excused[key] > 0:
                excused[key] -= 1
            elif not f.suppressed:
                out.append(f)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "status": self.status,
            "base_stack": self.base_stack,
            "head_stack": self.head_stack,
            "base_file": self.base_file,
            "head_file": self.head_file,
            "total": self.total.to_json(),
            "monthly": self.monthly.to_json(),
            "line_items": [i.to_json() for i in self.line_items],
            "findings_added": [f.to_json() for f in self.findings_added],
            "findings_resolved": [f.to_json() for f in self.findings_resolved],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> StackDiff:
        return cls(
            d["stack"],
            d["status"],
            d["base_stack"],
            d["head_stack"],
            d["base_file"],
            d["head_file"],
            Change.from_json(d["total"]),
            Change.from_json(d["monthly"]),
            tuple(LineItemChange.from_json(i) for i in d["line_items"]),
            tuple(ReportedFinding.from_json(f) for f in d["findings_added"]),
            tuple(ReportedFinding.from_json(f) for f in d["findings_resolved"]),
        )


@dataclass(frozen=True)
class DiffTotal:
    """Every stack together: the total before and after, the monthly change, the findings added and resolved."""

    before_usd: float | None
    after_usd: float | None
    change_usd: float | None
    change_percent: float | None
    change_known_usd: float | None  # the priced items' change, only when change_usd is None
    monthly_change_usd: float | None
    monthly_change_known_usd: float | None  # only when monthly_change_usd is None
    findings_added: int
    findings_resolved: int

    @property
    def change(self) -> Change:
        """The total as a `Change` (how reports show a change)."""
        return Change(self.before_usd, self.after_usd, self.change_usd, self.change_percent, self.change_known_usd)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "before_usd": self.before_usd,
            "after_usd": self.after_usd,
            "change_usd": self.change_usd,
            "change_percent": self.change_percent,
        }
        if self.change_known_usd is not None:
            out["change_known_usd"] = self.change_known_usd
        out["monthly_change_usd"] = self.monthly_change_usd
        if self.monthly_change_known_usd is not None:
            out["monthly_change_known_usd"] = self.monthly_change_known_usd
        out.update(findings_added=self.findings_added, findings_resolved=self.findings_resolved)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DiffTotal:
        return cls(
            d["before_usd"],
            d["after_usd"],
            d["change_usd"],
            d["change_percent"],
            d.get("change_known_usd"),
            d["monthly_change_usd"],
            d.get("monthly_change_known_usd"),
            d["findings_added"],
            d["findings_resolved"],
        )


@dataclass(frozen=True)
class DiffSection:
    """The change from `base_label` (a path or git ref) to `head_label`: the base side's report, each stack's
    difference (by name, sorted), and the totals."""

    base_label: str
    head_label: str
    price_book: str
    base: SideReport  # the base side as `plan` reports it (a Report)
    stacks: tuple[StackDiff, ...]
    total: DiffTotal

    def base_stack(self, s: StackDiff) -> StackReport | None:
        """The base side of `s` (None: the stack was added)."""
        return next((p for p in self.base.stacks if p.name == s.base_stack), None) if s.base_stack is not None else None

    def to_json(self) -> dict[str, Any]:
        return {
            "base_label": self.base_label,
            "head_label": self.head_label,
            "price_book": self.price_book,
            "total": self.total.to_json(),
            "stacks": [s.to_json() for s in self.stacks],
            "base": self.base.to_json(),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], read_report: Callable[[dict[str, Any]], SideReport]) -> DiffSection:
        """The section; `read_report` reads the base side (`Report.from_json`)."""
        return cls(
            d["base_label"],
            d["head_label"],
            d["price_book"],
            read_report(d["base"]),
            tuple(StackDiff.from_json(s) for s in d["stacks"]),
            DiffTotal.from_json(d["total"]),
        )


def head_stack(report: SideReport, s: StackDiff) -> StackReport | None:
    """The head side of `s` in a diff report (None: the stack was removed)."""
    return next((p for p in report.stacks if p.name == s.head_stack), None) if s.head_stack is not None else None
