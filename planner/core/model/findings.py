"""A finding: one thing wrong or risky in a declared cluster, at a key path of its stack.

`path` is the key path of the value at fault (`planner:cluster.node_groups[0].count` in
JSON); `file`, `line` and `resource` are where that path was found by the stack's locator
(`planner.core.input.locations`): a line of a stack file, or the URN of the resource a read-back value
came from. A suppressed finding records how (`inSource`, `external`) and why.

A finding has no JSON of its own: every output (the CLI's formats, the components' `findings`,
`diff`) serialises it as the document reports it (`planner.core.document.ReportedFinding`,
built by `planner.core.planning.build_report.finding`), so there is one shape to read.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from msgspec import Struct
from msgspec.structs import replace

# How bad a finding is; `--fail-on` names one of the first two.
Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
_RANK: dict[Severity, int] = {"info": 0, "warning": 1, "error": 2}


def at_least(severity: Severity, threshold: Severity) -> bool:
    return _RANK[severity] >= _RANK[threshold]


def severity_of(value: Any) -> Severity:
    """The severity `value` names (a saved report's, read back); ValueError for anything else, so
    a report that says `fatal` is refused in one line instead of failing in a renderer."""
    for s in SEVERITIES:
        if value == s:
            return s
    from planner.core.text.safe import excerpt

    raise ValueError(f"severity {excerpt(value)}: expected one of {', '.join(SEVERITIES)}")


EditOp = Literal["set", "add", "remove"]
EDIT_OPS: tuple[EditOp, ...] = get_args(EditOp)
# A value an edit writes: a scalar, or a tuple of strings (a list key such as reservation ids).
EditValue = bool | int | float | str | tuple[str, ...] | None
# The one edit path outside the cluster: the stack's region (`aws:region` in its stack config), which a fix
# that moves the stack sets (`planner.core.model.edits.apply_to_stack` applies it)
REGION: tuple[str] = ("region",)


class Edit(Struct, frozen=True):
    """One change to the model at a model path (`("node_groups", 0, "count")`, below the cluster), kept
    as data so that every adapter says it in its own terms (the stack file's key, the program's resource
    and property, the pack's config key) and a test can apply it and plan again
    (`planner.core.model.edits.apply_edits`).

    `set` writes `value` at `path`; `add` appends `value` to the list at `path`; `remove` drops the
    value at `path` (the model's default applies again), or `value` from the list at `path` when given.
    `note` is said after the change, in words every adapter shares ("the 2 UltraServers you pay for").

    `resource`, when given, is the URN of one of a program's resources, and the edit is of that resource
    rather than of the model: `path` is its property as the engine names it (`("scalingConfig",
    "desiredSize")`, `()` for the resource as a whole), for a change of the program's shape that the model
    holds no value for (a size known only at deploy written as a literal, a tag, a security group rule). A
    `set` or `add` without a value writes what `note` says ("a number known at preview"). Only the program's
    adapters say it (`planner.readback.program_terms`); `apply_edits` refuses it.
    """

    path: tuple[Any, ...]
    op: EditOp
    value: EditValue = None
    note: str = ""
    resource: str = ""


# Why a fix's reason is an action outside the declaration, which no edit of the model says: the few kinds
# there are, each with why. A fix with no edits names one (`outside`); `tests/test_fix_kinds.py` fails on a
# fix that has neither edits nor a kind.
Outside = Literal[
    "quota", "purchase", "opt-in", "price", "confirm", "catalogue", "account", "record", "run", "workload"
]
OUTSIDE: dict[Outside, str] = {
    "quota": "a Service Quotas increase, which the account asks AWS for",
    "purchase": "a Capacity Block or reservation booked in the account, whose id only the account then holds",
    "opt-in": "an account setting: opting in to a Local Zone's group",
    "price": "a price planner has no figure for: a price book file or --price, not the stack",
    "confirm": "a question only AWS or the account answers (an offering, an UltraCluster's size, a reservation "
    "known at deploy)",
    "catalogue": "planner's shipped data disagrees with the account: fixed in planner/data, not in the stack",
    "account": "what the account holds or grants (an existing subnet's zone or free addresses, the caller's "
    "permissions and credentials)",
    "record": "a new node group, file system or stack, which the user names and sizes",
    "run": "how planner is run (preflight's --region), not what the stack declares",
    "workload": "a different training job (a smaller model), which is the user's to choose",
}
OUTSIDE_KINDS: tuple[Outside, ...] = get_args(Outside)


def property_path(path: tuple[Any, ...]) -> str:
    """An edit of a resource's property path as the engine names it: `networkInterfaces[8].interfaceType`."""
    said = ""
    for p in path:
        said += f"[{p}]" if isinstance(p, int) else (f".{p}" if said else str(p))
    return said


class Fix(Struct, frozen=True):
    """What to change for a finding to go away: the edits (all of them), other single edits that would
    do instead (`alternatives`, said after `, or`), and `reason`: why, in words that name no key of any
    adapter. When the reason is (also) an action outside the declaration (a quota increase, a console
    purchase), `outside` names its kind (`OUTSIDE`), and a fix without edits has one: `outside(...)`."""

    reason: str = ""
    edits: tuple[Edit, ...] = ()
    alternatives: tuple[Edit, ...] = ()
    outside: Outside | None = None


def outside(kind: Outside, reason: str, edits: tuple[Edit, ...] = (), alternatives: tuple[Edit, ...] = ()) -> Fix:
    """A fix whose reason is an action outside the declaration, of `kind` (`OUTSIDE` says why no edit says
    it), with the edits that would also make the finding go away, if any."""
    return Fix(reason, edits, alternatives, kind)


class Finding(Struct, frozen=True):
    """What a rule found in one stack: its key path, the location worked out from it, and what to do."""

    rule: str
    severity: Severity
    message: str
    file: str
    line: int | None = None
    suppressed: bool = False
    resource: str | None = None  # a Pulumi URN, when the finding comes from a deployed program
    path: tuple[Any, ...] = ()  # the key path of the value at fault; () for the stack as a whole
    suppression: tuple[str, str] | None = None  # (kind, reason) when suppressed: inSource or external
    fix: Fix | None = None  # what to change in this stack, when the rule can say; else its remediation

    def suppress(self, kind: str = "external", reason: str = "") -> Finding:
        return replace(self, suppressed=True, suppression=(kind, reason))

    @property
    def baselined(self) -> bool:
        """Suppressed by the baseline (`--baseline`: kind `baseline`), not by a suppression of its own."""
        return self.suppression is not None and self.suppression[0] == "baseline"

    @property
    def key(self) -> str:
        """The key path as written under `config:` (`planner:cluster.node_groups[0].count`)."""
        from planner.core.reading.fields import key_path

        return key_path(self.path)

    def sort_key(self) -> tuple[Any, ...]:
        # the resource last: a program's loop makes several resources at one line, each with the same
        # finding, and the order the engine registers them in is not fixed
        return (self.file, self.line or 0, -_RANK[self.severity], self.rule, self.message, self.resource or "")
