"""The planner Action's outputs, from planner's own JSON report and nothing else.

`python3 -I action/outputs.py CODE PLAN_JSON` prints `exit-code=` and `total-cost=` lines
for $GITHUB_OUTPUT. CODE is the exit status of the `planner plan --format json` run that
wrote PLAN_JSON. It runs isolated (`-I`: no working directory, script folder or user site
on sys.path, no PYTHON* variables), so a `json.py` in the pull request's checkout is never
imported; and it imports only the standard library. A report that is missing or not
planner's (no `stacks` list of numbers or nulls) is unusable input, exit code 2, no cost:
the gate never passes on something planner did not say.

`python3 -I action/outputs.py not-run` is the one other case: the paths held no stack file
or folder (a change to README.md alone), so planner was not run; exit code 0 and no cost,
since there is nothing planner could have said.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

EXIT_CODES = ("0", "1", "2")


def total_cost(report: Any) -> str:
    """USD over every stack to the cent, `unknown` if any stack's total is null; ValueError if not planner's report."""
    stacks = report.get("stacks") if isinstance(report, dict) else None
    if not isinstance(stacks, list) or not stacks:
        raise ValueError("no stacks")
    totals = []
    for stack in stacks:
        cost = stack.get("cost") if isinstance(stack, dict) else None
        total = cost.get("total_usd") if isinstance(cost, dict) else None
        if total is not None and (
            isinstance(total, bool) or not isinstance(total, (int, float)) or not math.isfinite(total)
        ):
            raise ValueError("total_usd is not a number")
        totals.append(total)
    return "unknown" if any(t is None for t in totals) else f"{sum(totals):.2f}"


def outputs(code: str, plan_json: str) -> dict[str, str]:
    """The Action's `exit-code` and `total-cost`: 2 and no cost unless planner ran and wrote its report."""
    if code not in EXIT_CODES or code == "2":
        return {"exit-code": "2", "total-cost": ""}
    try:
        with open(plan_json, encoding="utf-8") as fh:
            return {"exit-code": code, "total-cost": total_cost(json.load(fh))}
    except (OSError, ValueError):
        return {"exit-code": "2", "total-cost": ""}


NOT_RUN = {"exit-code": "0", "total-cost": ""}  # nothing to plan: no report, no cost, nothing to fail on


def main(argv: list[str]) -> int:
    if argv == ["not-run"]:
        values = NOT_RUN
    else:
        code, plan_json = argv
        values = outputs(code, plan_json)
    for name, value in values.items():
        print(f"{name}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
