"""Where a key path is, worked out at the edge (as cfn-lint turns a match's path into a line).

Rules speak in key paths; a stack's locator turns one into a `Location`: a line of the
stack file for a YAML stack, or the URN of the resource a value was read back from for a
Pulumi program or the policy pack (`Stack.resources`). A stack read back from a program
also carries a `Locator` (`Stack.locator`, from `planner.readback.program_resources`) naming the program's file
and line per resource, and saying a fix in the program's terms, so a finding is located where the user declared it when it is made,
never moved afterwards; the document (`planner.core.document`) carries the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypeVar

from msgspec import Struct

from planner.core.model.cluster import Path, Stack
from planner.core.model.findings import Fix
from planner.core.reading.fields import key_path
from planner.core.reading.yaml_lines import line_of


class Location(Struct, frozen=True):
    file: str
    line: int | None = None  # a line of `file`; None: the file as a whole, or a read-back stack
    logical: str | None = None  # the URN of the resource at fault (read-back stacks)
    path: str = ""  # the key path, `planner:cluster.node_groups[0].count`

    def where(self) -> str:
        """`file:line`, or the file alone."""
        return f"{self.file}:{self.line}" if self.line else self.file


V = TypeVar("V")


def nearest(mapping: Mapping[Path, V], path: Path) -> V | None:
    """The value at `path` or at its nearest ancestor present in `mapping` (a missing key's parent)."""
    while True:
        if path in mapping:
            return mapping[path]
        if not path:
            return None
        path = path[:-1]


class Locator(Protocol):
    """Where the key paths of a read-back stack were declared, and its fixes in those terms."""

    def locate(self, stack: Stack, path: Path) -> Location:
        """The file, line and resource URN the value at `path` was declared at."""
        ...

    def say(self, stack: Stack, fix: Fix) -> str:
        """`fix` (data: edits of the model) as the change to make where the stack was declared."""
        ...


def locate(stack: Stack, path: Path) -> Location:
    """`path` of `stack`: its line (stack files) or the URN it was read back from (programs, the pack),
    at the program's file and line when the stack has a locator."""
    if stack.locator is not None:
        found: Location = stack.locator.locate(stack, tuple(path))
        return found
    return in_file(stack, path)


def in_file(stack: Stack, path: Path) -> Location:
    """`path` of `stack` by its own lines and resources, without a locator."""
    return Location(
        stack.file, line_of(stack.lines, tuple(path)), nearest(stack.resources, tuple(path)), key_path(tuple(path))
    )


def fix_text(stack: Stack, fix: Fix) -> str:
    """A rule's fix in the terms of where `stack` was declared: its locator's (a program's resources,
    the pack's config), else the stack file's keys (`planner.core.input.fix_words`)."""
    if stack.locator is not None:
        said: str = stack.locator.say(stack, fix)
        return said
    from planner.core.input.fix_words import in_stack_terms

    return in_stack_terms(stack, fix)
