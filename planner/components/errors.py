"""The error a component raises for unusable input, in a module of its own: the argument
checks (`args`) and the planning (`checks`) both raise it, and neither imports the other."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi

from planner.core.reading.problems import Problem


class ClusterInputError(pulumi.RunError):
    """The declared cluster is unusable input; `problems` are the CLI's one-line problems."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
