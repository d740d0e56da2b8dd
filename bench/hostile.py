"""Hostile stack files, shared by the tests (what planner answers) and `make bench` (how fast).

A policy check runs on every pull request, so a stack file written to exhaust it (a billion
laughs, deep nesting, millions of tiny values, a file at the size limit) must be refused
with one clean line. `tests/test_robustness.py` checks the answer; `bench.bounds` times it,
since a time limit in a test fails on a loaded machine rather than on slow code.
"""

from __future__ import annotations

from pathlib import Path

from planner.core.reading import yaml_lines as yamlload

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
BOMB_SHAPES = ((10, 10), (30, 2), (6, 40))  # (levels, fan): wide, deep, very wide
BOMB_KINDS = ("list", "map", "merge")
DEEP_STYLES = ("flow-list", "flow-map", "block-map", "block-list")
MANY_GROUPS = (5_000, 60_000)  # planned; past the value budget (4 values each), refused
DENSE = {
    "flow-list": "[" + "1," * 4_000_000 + "1]",
    "flow-map": "{" + "a," * 4_000_000 + "b}",
    "block-list": "\n" + "  - x\n" * 1_300_000,
}


def laughs(levels: int, fan: int, kind: str) -> str:
    """A billion-laughs document: each level's anchor aliases the one below `fan` times."""
    if kind == "list":
        lines = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fan)}]" for i in range(1, levels)]
    elif kind == "map":
        lines = ["a0: &a0 {k: lol}"] + [
            f"a{i}: &a{i} {{{', '.join(f'k{j}: *a{i - 1}' for j in range(fan))}}}" for i in range(1, levels)
        ]
    else:  # merge keys copy a mapping per alias
        lines = ["a0: &a0 {k0: lol}"] + [
            f"a{i}: &a{i} {{{', '.join(f'k{j}: *a{i - 1}' for j in range(fan))}, <<: *a{i - 1}}}"
            for i in range(1, levels)
        ]
    return "\n".join(lines) + f"\nconfig: {{aws:region: us-east-2, planner:cluster: *a{levels - 1}}}\n"


def deep(depth: int, style: str) -> str:
    """`planner:cluster` nested `depth` levels deep (block styles at most 800: YAML indents them)."""
    if style == "flow-list":
        inner = "[" * depth + "]" * depth
    elif style == "flow-map":
        inner = "{a: " * depth + "1" + "}" * depth
    elif style == "block-map":
        inner = "".join("\n" + "  " * (i + 3) + f"k{i}:" for i in range(min(depth, 800))) + " 1"
    else:
        inner = "".join("\n" + "  " * (i + 3) + "-" for i in range(min(depth, 800))) + " 1"
    return f"config:\n  aws:region: us-east-2\n  planner:cluster: {inner}\n"


def over_the_size_limit() -> bytes:
    """A bundled stack padded one byte past `yamlload.MAX_BYTES`."""
    return BUNDLED[0].read_bytes() + b"#" * (yamlload.MAX_BYTES + 1)


def large_valid() -> bytes:
    """A bundled stack padded with 7 MiB of comments: just under the limit, and valid."""
    return BUNDLED[0].read_bytes() + (b"# padding " + b"x" * 100 + b"\n") * (7 * 1024 * 1024 // 111)


def many_groups(groups: int) -> str:
    """A cluster of `groups` one-instance node groups."""
    body = "".join(f"      - {{name: g{i}, instance_type: trn2.48xlarge, count: 1}}\n" for i in range(groups))
    return (
        "config:\n  aws:region: us-east-2\n  planner:cluster:\n"
        f"    availability_zone: us-east-2b\n    node_groups:\n{body}"
    )


def dense(body: str) -> str:
    """Millions of tiny values under `planner:cluster`, in under 8 MiB."""
    return "config:\n  aws:region: us-east-2\n  planner:cluster: " + body + "\n"
