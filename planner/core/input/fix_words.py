"""A fix said in the stack file's words: `in node group 'a', set efa: false`.

A rule builds its fix as data (`planner.core.model.findings.Fix`: edits of the model and a reason);
each adapter says it in its own terms. These are the stack file's: each edit's key under
`planner:cluster` and its value as YAML writes it. The program's words are
`planner.readback.program_terms`, the pack's `planner.policy.planning`; the pieces they share
(a value as YAML writes it, the key of a model path, how a fix's parts are joined) are here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.core.model.cluster import Cluster, Path, Stack
from planner.core.model.findings import REGION, Edit, Fix

# model fields whose stack-file key has another name
STACK_KEYS: dict[str, str] = {"capacity_reservation_ids": "capacity_reservation_id"}
REGION_KEY = "aws:region"  # the stack config's key of the region (`REGION`), beside `planner:cluster`


def yaml_value(value: Any) -> str:
    """`value` as a stack file writes it (`false`, `2`, `336`, `us-east-1a`, `[cr-1, cr-2]`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, tuple):
        return value[0] if len(value) == 1 else "[" + ", ".join(yaml_value(v) for v in value) + "]"
    return "null" if value is None else str(value)


def group_of(cluster: Cluster, path: Path) -> tuple[str | None, Path]:
    """(the node group's name, the path within it) for a model path into a node group; (None, path) otherwise."""
    if len(path) >= 3 and path[0] == "node_groups" and isinstance(path[1], int):
        groups = cluster.node_groups
        name = groups[path[1]].name if 0 <= path[1] < len(groups) else str(path[1])
        return name, path[2:]
    return None, path


def stack_key(path: Path) -> str:
    """A model path below a node group or the cluster as the stack file's dotted key (`lustre.efa_enabled`)."""
    return ".".join(STACK_KEYS.get(p, p) if isinstance(p, str) else str(p) for p in path)


def current(cluster: Cluster, path: Path) -> Any:
    """The model's value at `path`, None when there is none."""
    node: Any = cluster
    for key in path:
        if isinstance(key, int):
            node = node[key] if isinstance(node, tuple) and -len(node) <= key < len(node) else None
        else:
            node = getattr(node, key, None)
        if node is None:
            return None
    return node


def change(cluster: Cluster, edit: Edit) -> str:
    """One edit as the stack file's change: `set KEY: VALUE`, `add VALUE to KEY`, `remove KEY: VALUE`."""
    _, path = group_of(cluster, edit.path)
    return said_at(path, edit, current(cluster, edit.path))


def said_at(path: Path, edit: Edit, now: Any = None) -> str:
    """`edit` as the change of the stack file's key at `path` (below its node group, or the cluster); `now`:
    the value there, named by a removal."""
    key = REGION_KEY if path == REGION else stack_key(path)
    if edit.op == "set":
        said = f"set {key}: {yaml_value(edit.value)}"
    elif edit.op == "add":
        said = f"add {yaml_value(edit.value)} to {key}"
    elif edit.value is not None:
        said = f"remove {yaml_value(edit.value)} from {key}"
    else:
        said = f"remove {key}: {yaml_value(now)}" if isinstance(now, bool | str) else f"remove {key}"
    return f"{said} ({edit.note})" if edit.note else said


def in_group_terms(name: str | None, edit: Edit) -> str:
    """One edit in a stack file's words when the stack is not at hand (`planner capacity --instance-type`):
    an edit of a node group's key in the group named `name` (`in node group 'gpus', set purchase:
    capacity-block`; `in the node group, ...` without a name), a cluster key as it is."""
    if len(edit.path) >= 3 and edit.path[0] == "node_groups" and isinstance(edit.path[1], int):
        where = f"in node group '{name}', " if name else "in the node group, "
        return where + said_at(edit.path[2:], edit)
    return said_at(edit.path, edit)


def joined(fix: Fix, say: Callable[[Edit], tuple[str, str]]) -> str:
    """A fix's text from its edits said one by one (`say(edit)` -> (subject, change)): edits on one
    subject share it, then each alternative after `, or `, then the reason in parentheses; without
    edits, the reason first (what to do, in words), then the alternatives."""
    if not fix.edits and fix.reason:
        alternatives = ["".join(say(edit)) for edit in fix.alternatives]
        return ", or ".join([fix.reason, *alternatives])
    parts: list[str] = []
    last: str | None = None
    for edit in fix.edits:
        subject, said = say(edit)
        parts.append(said if subject == last else subject + said)
        last = subject
    text = "; ".join(parts)
    for edit in fix.alternatives:
        subject, said = say(edit)
        piece = said if subject == last else subject + said
        text = f"{text}, or {piece}" if text else piece
        last = subject
    if not fix.reason:
        return text
    if not text:
        return fix.reason
    # a reason that leads in ("cut $510.00:") comes first; one that offers another way ("or train fewer
    # parameters") follows the alternatives; one that says why, in parentheses
    if fix.reason.endswith(":"):
        return f"{fix.reason} {text}"
    return f"{text}, {fix.reason}" if fix.reason.startswith("or ") else f"{text} ({fix.reason})"


def in_stack_terms(stack: Stack, fix: Fix) -> str:
    """`fix` as the change to make in `stack`'s file."""

    def say(edit: Edit) -> tuple[str, str]:
        name, _ = group_of(stack.cluster, edit.path)
        return (f"in node group '{name}', " if name is not None else ""), change(stack.cluster, edit)

    return joined(fix, say)
