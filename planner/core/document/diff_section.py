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
from typing import Annotated, ClassVar, Literal, Protocol

from msgspec import Struct

from planner.core.document.codec import key
from planner.core.document.cost_section import LineItem
from planner.core.document.stacks import ReportedFinding, StackReport


class SideReport(Protocol):
    """A side of the diff: a `planner.core.document.Report` (named by its shape: that module holds this
    one; the codec reads it as a `Report`)."""

    @property
    def stacks(self) -> tuple[StackReport, ...]: ...


Status = Literal["added", "removed", "changed", "unchanged"]


class Change(Struct, frozen=True):
    """Before, after and the change of a cost; a stack absent on one side costs 0 there (its side is None).

    When a side is incomplete (a price unknown, something left out, no hours) the change is unknown
    (None): `unknown_because` says what each side lacks, and the priced items bound it where they
    can: an incomplete side costs at least its priced items, so with the other side complete the
    change is `at_least_usd` (the side after the change incomplete) or `at_most_usd` (the side
    before). The change of the priced items alone is no bound: it is given (`priced_change_usd`)
    only when both sides lack the same things and have their hours, so that like is compared with
    like; when an unpriced type replaces a priced one it would point the wrong way, and it is not.
    """

    before_usd: float | None
    after_usd: float | None
    change_usd: float | None
    change_percent: float | None
    unknown_because: Annotated[tuple[str, ...], key(omit="empty")] = ()
    at_least_usd: Annotated[float | None, key(omit="none")] = None
    at_most_usd: Annotated[float | None, key(omit="none")] = None
    priced_change_usd: Annotated[float | None, key(omit="none")] = None


class LineItemChange(Struct, frozen=True):
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


class StackDiff(Struct, frozen=True):
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


class DiffTotal(Struct, frozen=True):
    """Every stack together: the total before and after, the monthly change, the findings added and resolved."""

    before_usd: float | None
    after_usd: float | None
    change_usd: float | None
    change_percent: float | None
    monthly_change_usd: float | None
    findings_added: int
    findings_resolved: int
    # when a change is unknown: what the stacks lack, and the bounds (see `Change`)
    unknown_because: Annotated[tuple[str, ...], key(omit="empty")] = ()
    at_least_usd: Annotated[float | None, key(omit="none")] = None
    at_most_usd: Annotated[float | None, key(omit="none")] = None
    monthly_at_least_usd: Annotated[float | None, key(omit="none")] = None
    monthly_at_most_usd: Annotated[float | None, key(omit="none")] = None
    priced_change_usd: Annotated[float | None, key(omit="none")] = None
    monthly_priced_change_usd: Annotated[float | None, key(omit="none")] = None

    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "before_usd",
        "after_usd",
        "change_usd",
        "change_percent",
        "unknown_because",
        "at_least_usd",
        "at_most_usd",
        "priced_change_usd",
        "monthly_change_usd",
        "monthly_at_least_usd",
        "monthly_at_most_usd",
        "monthly_priced_change_usd",
        "findings_added",
        "findings_resolved",
    )

    @property
    def change(self) -> Change:
        """The total as a `Change` (how reports show a change): what the stacks lack said as how many
        are incomplete (each stack's row says what)."""
        incomplete = len(dict.fromkeys(why.split(": ", 1)[0] for why in self.unknown_because))
        return Change(
            self.before_usd,
            self.after_usd,
            self.change_usd,
            self.change_percent,
            (f"{incomplete} stack{'s' if incomplete != 1 else ''} incomplete",) if incomplete else (),
            self.at_least_usd,
            self.at_most_usd,
            self.priced_change_usd,
        )

    @property
    def monthly(self) -> Change:
        """The monthly change as a `Change` (its sides are not totalled: only the change and its bounds)."""
        return Change(
            None,
            None,
            self.monthly_change_usd,
            None,
            (),
            self.monthly_at_least_usd,
            self.monthly_at_most_usd,
            self.monthly_priced_change_usd,
        )


class DiffSection(Struct, frozen=True):
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
