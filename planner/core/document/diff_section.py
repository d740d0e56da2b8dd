"""The diff section of the document: what a change does to each stack's cost and findings.

A `diff` report holds the head side's stacks (`Report.stacks`, as `plan` reports them) and
this section: the base side's report (`base`, a `plan` report of the stacks before the
change), and per stack matched by name its status, the change of its total and monthly cost,
the line items that changed, and the findings added and resolved; then the totals. The
producer (`planner.core.document.build_diff`) computes every figure, so the renderers
format and never compute; the codec (`planner.core.document.codec`) writes and reads them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Protocol

from planner.core.document.codec import key
from planner.core.document.cost_section import LineItem
from planner.core.document.stacks import ReportedFinding, StackReport


class SideReport(Protocol):
    """A side of the diff: a `planner.core.document.Report` (named by its shape: that module holds this
    one; the codec reads it as a `Report`)."""

    @property
    def stacks(self) -> tuple[StackReport, ...]: ...


Status = Literal["added", "removed", "changed", "unchanged"]


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
    # only when change_usd is None
    change_known_usd: float | None = field(default=None, metadata=key(omit=("when", "change_usd")))


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


@dataclass(frozen=True)
class DiffTotal:
    """Every stack together: the total before and after, the monthly change, the findings added and resolved."""

    before_usd: float | None
    after_usd: float | None
    change_usd: float | None
    change_percent: float | None
    change_known_usd: float | None = field(
        metadata=key(omit="none")
    )  # the priced items' change, when change_usd is None
    monthly_change_usd: float | None
    monthly_change_known_usd: float | None = field(metadata=key(omit="none"))  # when monthly_change_usd is None
    findings_added: int
    findings_resolved: int

    @property
    def change(self) -> Change:
        """The total as a `Change` (how reports show a change)."""
        return Change(self.before_usd, self.after_usd, self.change_usd, self.change_percent, self.change_known_usd)


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

    JSON_ORDER: ClassVar[tuple[str, ...]] = ("base_label", "head_label", "price_book", "total", "stacks", "base")

    def base_stack(self, s: StackDiff) -> StackReport | None:
        """The base side of `s` (None: the stack was added)."""
        return next((p for p in self.base.stacks if p.name == s.base_stack), None) if s.base_stack is not None else None


def head_stack(report: SideReport, s: StackDiff) -> StackReport | None:
    """The head side of `s` in a diff report (None: the stack was removed)."""
    return next((p for p in report.stacks if p.name == s.head_stack), None) if s.head_stack is not None else None
